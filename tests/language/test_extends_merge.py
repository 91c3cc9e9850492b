"""``extends:``: how a child's card updates merge into its parent's card."""

from __future__ import annotations

from pathlib import Path

from ruledraft.language.loading import check_ruleset, load_ruleset


def write(tmp_path, cards: str):
    path = tmp_path / "child.yaml"
    path.write_text(f"format: 1\nextends: sushi-go\nid: child\nname: Child\ncards:\n{cards}", encoding="utf-8")
    return path


def test_a_cards_attributes_and_players_merge_key_by_key(tmp_path):
    """{id: squid_nigiri, attributes: {spicy: 1}} keeps value 3 (squid still scores 3); players: {max: 4} keeps the parent's other keys."""
    rs = load_ruleset(write(tmp_path, "  - {id: squid_nigiri, attributes: {spicy: 1}}\n"))
    squid = rs.catalogue.cards[rs.catalogue.index_of("squid_nigiri")]
    assert squid.attributes == {"value": 3, "spicy": 1}
    assert squid.tags == frozenset({"nigiri"}) and squid.count == 5
    nigiri = next(r for r in rs.rules if r.id == "nigiri")
    from ruledraft.tableau import Tableau

    assert nigiri.score(Tableau.from_cards(rs.catalogue.size, [[squid.index], []])) == [3, 0]


def test_tags_and_an_effect_are_replaced_whole(tmp_path):
    """A child's tags list replaces the parent's (nigiri no longer tags squid), as lists do everywhere in extends."""
    rs = load_ruleset(
        write(tmp_path, "  - {id: squid_nigiri, tags: [fish]}\n  - {id: egg_nigiri, tags: [nigiri, fish]}\n")
    )
    squid = rs.catalogue.cards[rs.catalogue.index_of("squid_nigiri")]
    assert squid.tags == frozenset({"fish"}) and squid.attributes == {"value": 3}


def test_a_wrong_merged_attribute_is_located_in_the_child(tmp_path):
    """A child's attribute with a wrong value is an error at the child's line and column."""
    result = check_ruleset(write(tmp_path, "  - {id: squid_nigiri, attributes: {value: x}}\n"))
    (d,) = result.diagnostics
    assert (d.file, d.line, d.column) == (str(tmp_path / "child.yaml"), 6, 44)


def test_a_parent_named_with_the_wrong_ending_is_suggested_from_the_files_beside(tmp_path):
    """extends: game.yml where game.yaml lies beside the child: the error at extends: suggests the file that is there."""
    (tmp_path / "tide-pool.yaml").write_text("format: 1\n", encoding="utf-8")
    child = tmp_path / "storm.yaml"
    child.write_text("format: 1\nextends: tide-pool.yml\nid: storm\nname: Storm\n", encoding="utf-8")
    (d,) = check_ruleset(child).diagnostics
    assert (d.line, d.column) == (2, 10)
    assert d.message == "cannot find the ruleset 'tide-pool.yml' to extend (did you mean 'tide-pool.yaml'?)"


def test_too_long_a_chain_of_parents_names_the_file_it_counts_from(tmp_path):
    """l20 extends l19 ... extends sushi-go: more levels than MAX_DEPTH is an error at the deep file's extends:, naming the file asked for."""
    from ruledraft.language.inheritance import MAX_DEPTH

    for n in range(MAX_DEPTH + 4):
        parent = "sushi-go" if n == 0 else f"l{n - 1}.yaml"
        (tmp_path / f"l{n}.yaml").write_text(f"format: 1\nextends: {parent}\nid: l{n}\nname: L{n}\n", encoding="utf-8")
    asked = f"l{MAX_DEPTH + 3}.yaml"
    (d,) = check_ruleset(tmp_path / asked).diagnostics
    assert d.message == f"more than {MAX_DEPTH} levels of 'extends' (counting from {asked})"
    assert (d.line, d.column) == (2, 10)


def test_a_variants_card_id_or_attribute_that_reads_like_a_typo_is_warned_of(tmp_path):
    """A new card id close to a parent's card, scored by no rule (tempora for tempura), and an attribute close
    to one the parent's card has and no card else has (valu beside value): each a warning at its place saying
    what the file does instead; the ruleset stays valid."""
    result = check_ruleset(
        write(tmp_path, "  - {id: tempora, count: 10}\n  - {id: squid_nigiri, attributes: {valu: 4}}\n")
    )
    assert result.ruleset is not None
    places = [(d.severity, d.line, d.column, d.message) for d in result.diagnostics]
    assert places == [
        (
            "warning",
            6,
            10,
            "card 'tempora' is new in this file, and no rule scores it (did you mean 'tempura'?): an entry with the"
            " id of a card the file extends changes that card; a new id adds a card to the deck",
        ),
        (
            "warning",
            7,
            37,
            "attribute 'valu' is new to card 'squid_nigiri' (did you mean 'value'?): a card's attributes merge key by"
            " key, so its 'value' stays 3",
        ),
    ]


def test_a_variants_new_cards_and_attributes_meant_as_such_are_not_warned_of(tmp_path):
    """A new card a rule scores (a maki_4 tagged maki with icons), one with an effect, a name far from every
    parent card, and an attribute another card has too: no warning."""
    cards = (
        "  - {id: maki_4, count: 4, group: maki, tags: [maki], attributes: {icons: 4}}\n"
        "  - {id: wasabe, count: 2, effect: {kind: extra_pick}}\n"
        "  - {id: hot_sauce, count: 3}\n"
        "  - {id: squid_nigiri, attributes: {icon: 1}}\n"
        "  - {id: egg_nigiri, attributes: {icon: 1}}\n"
    )
    result = check_ruleset(write(tmp_path, cards))
    assert result.ruleset is not None and result.diagnostics == []


def test_a_parent_not_found_is_suggested_by_its_name_not_its_ending(tmp_path):
    """extends: nosuch.yaml beside link.yaml: no suggestion (the names share only '.yaml'); lnk.yaml is suggested
    link.yaml, and a bundled id is suggested for a name close to it."""
    (tmp_path / "link.yaml").write_text("format: 1\n", encoding="utf-8")
    said = {}
    for asked in ("nosuch.yaml", "lnk.yaml", "sushigo"):
        child = tmp_path / "child.yaml"
        child.write_text(f"format: 1\nextends: {asked}\nid: c\nname: C\n", encoding="utf-8")
        (d,) = check_ruleset(child).diagnostics
        said[asked] = d.message.removeprefix(f"cannot find the ruleset '{asked}' to extend")
    assert said == {
        "nosuch.yaml": "",
        "lnk.yaml": " (did you mean 'link.yaml'?)",
        "sushigo": " (did you mean 'sushi-go'?)",
    }


def test_a_parent_that_does_not_load_is_shown_at_its_place_and_named_at_extends(tmp_path):
    """A parent that looks like a rule file but is not valid UTF-8: its own problem at its place, and the child's
    extends: names it (it said only that the parent 'does not load as YAML'); a parent of any other text still
    shows nothing of it."""
    (tmp_path / "base.yaml").write_bytes(b"format: 1\nid: base\nname: \xff bad\n")
    child = tmp_path / "child.yaml"
    child.write_text("format: 1\nextends: base.yaml\nid: c\nname: C\n", encoding="utf-8")
    said = [(Path(d.file).name, d.line, d.column, d.message) for d in check_ruleset(child).diagnostics]
    assert said == [
        ("base.yaml", 3, 7, "the file is not valid UTF-8 text (byte 0xff)"),
        ("child.yaml", 2, 10, "'base.yaml', which this file extends, has a problem, shown at its place"),
    ]
    (tmp_path / "notes.yaml").write_bytes(b"secret: \xff\n")
    child.write_text("format: 1\nextends: notes.yaml\nid: c\nname: C\n", encoding="utf-8")
    (d,) = check_ruleset(child).diagnostics
    assert (Path(d.file).name, d.message) == ("child.yaml", "'notes.yaml' is not a rule file")
