"""Bot specs on the command line: ``name:key=value`` options, the ``first`` and ``value``
baselines, ``ruledraft bots``, and one-line errors for specs that name no usable bot."""

from __future__ import annotations

import pytest
from strategies import bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.play import agents
from ruledraft.play.agents import (
    BotOption,
    BotSpecError,
    FirstAgent,
    GreedyAgent,
    RandomAgent,
    ValueAgent,
    default_card_values,
    make_agent,
    parse_bot,
    register_agent,
)
from ruledraft.play.runner import bot_seed, play_game

runner = CliRunner()


class Tuned:
    """A test bot with declared options."""

    options = (
        BotOption("depth", int, 1, "how far to look", minimum=0),
        BotOption("temperature", float, 0.5, "how bold"),
        BotOption("greedy", bool, False, "take points first"),
        BotOption("label", str, "x", "a name"),
    )

    def __init__(self, seed, depth=1, temperature=0.5, greedy=False, label="x"):
        self.name = "tuned"
        self.settings = (depth, temperature, greedy, label)

    def act(self, state, seat):
        return state.legal_actions(seat)[0]


@pytest.fixture
def tuned():
    register_agent("tuned", Tuned, replace=True)
    yield
    agents._REGISTRY.pop("tuned", None)
    agents._SPECS.clear()


def test_options_are_parsed_by_their_declared_types(tuned):
    """tuned:depth=3:temperature=0.25:greedy=yes:label=deep passes each option by keyword, typed."""
    bot = make_agent("tuned:depth=3:temperature=0.25:greedy=yes:label=deep", 0)
    assert bot.settings == (3, 0.25, True, "deep")


def test_options_not_given_keep_the_bots_defaults(tuned):
    """A plain name and a spec with some options leave the other options at the factory's defaults."""
    assert make_agent("tuned", 0).settings == (1, 0.5, False, "x")
    assert make_agent("tuned:greedy=false", 0).settings == (1, 0.5, False, "x")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tuned:depth=-1", "bot 'tuned:depth=-1': option depth=-1: must be at least 0"),
        ("tuned:depth=deep", "bot 'tuned:depth=deep': option depth=deep: expected a whole number"),
        ("tuned:temperature=hot", "bot 'tuned:temperature=hot': option temperature=hot: expected a number"),
        ("tuned:temperature=nan", "bot 'tuned:temperature=nan': option temperature=nan: expected a finite number"),
        ("tuned:greedy=maybe", "bot 'tuned:greedy=maybe': option greedy=maybe: expected true or false"),
        (
            "tuned:width=3",
            "bot 'tuned:width=3': unknown option 'width' (options of tuned: depth, temperature, greedy, label)",
        ),
        ("tuned:depth", "bot 'tuned:depth': 'depth' is not an option (KEY=VALUE)"),
        ("tuned:depth=1:depth=2", "bot 'tuned:depth=1:depth=2': option 'depth' is given twice"),
        ("greedy:x=1", "bot 'greedy:x=1': unknown option 'x' (options of greedy: none)"),
        (":x=1", "bot ':x=1': no bot name before ':'"),
        ("mybot.py", "bot 'mybot.py': name the class after the file (mybot.py:ClassName)"),
    ],
)
def test_bad_options_are_one_line_errors_naming_the_bot_and_option(tuned, spec, message):
    """Each malformed spec raises BotSpecError with exactly this one-line message."""
    with pytest.raises(BotSpecError) as caught:
        parse_bot(spec)
    assert str(caught.value) == message


def test_an_unknown_bot_name_suggests_and_lists_the_known_ones():
    """An unknown name says 'unknown bot', suggests the nearest and lists the bots and the other spec forms."""
    with pytest.raises(BotSpecError) as caught:
        parse_bot("gredy")
    assert str(caught.value) == (
        "unknown bot 'gredy' (did you mean 'greedy'?); known: first, greedy, ismcts, planner, random, value (or FILE.py:CLASS, MODULE:CLASS)"
    )


def test_the_built_in_bots_are_made_by_plain_name_as_before():
    """make_agent gives the same classes for plain names, and KeyError for an unknown plain name."""
    assert type(make_agent("random", 1)) is RandomAgent
    assert type(make_agent("greedy", 1)) is GreedyAgent
    assert type(make_agent("first", 1)) is FirstAgent
    assert type(make_agent("value", 1)) is ValueAgent
    with pytest.raises(KeyError):
        make_agent("nope", 0)


def test_first_takes_the_first_legal_move():
    """first's move is legal_actions(seat)[0] at every turn of a game."""
    game = Game(bundled_ruleset("sushi-go"), 3)
    state = game.new_initial_state(5)
    bot = make_agent("first", 0)
    while not state.is_terminal():
        assert bot.act(state, 0) == state.legal_actions(0)[0]
        state.apply_actions([state.legal_actions(s)[0] for s in range(3)])


def test_default_card_values_come_from_the_rulesets_scoring_and_are_fixed():
    """The value bot's default values are computed once per game, the same for two games of a ruleset, and every card reads a finite number."""
    rs = bundled_ruleset("sushi-go")
    a, b = Game(rs, 4), Game(rs, 4)
    values = default_card_values(a)
    assert default_card_values(a) is values
    assert default_card_values(b) == values
    assert len(values) == a.num_card_types
    ids = rs.catalogue.ids
    by_id = dict(zip(ids, values))
    assert by_id["squid_nigiri"] > by_id["egg_nigiri"] > 0  # nigiri are worth what they score
    assert by_id["chopsticks"] == 0  # no rule reads chopsticks


def test_a_card_value_option_changes_what_the_value_bot_takes():
    """value:squid_nigiri=100 takes a squid nigiri whenever one is in its hand."""
    game = Game(bundled_ruleset("sushi-go"), 3)
    squid = game.ruleset.card_index("squid_nigiri")
    bot = make_agent("value:squid_nigiri=100", 0)
    seen = 0
    for seed in range(20):
        state = game.new_initial_state(seed)
        if squid in state.legal_actions(0):
            seen += 1
            assert bot.act(state, 0) == squid
    assert seen > 0


def test_card_values_are_checked_against_the_ruleset():
    """With the ruleset's card ids, a card value for a card it lacks is a one-line error with a suggestion."""
    ids = bundled_ruleset("sushi-go").catalogue.ids
    with pytest.raises(BotSpecError) as caught:
        parse_bot("value:sqiud_nigiri=4", ids)
    assert str(caught.value) == (
        "bot 'value:sqiud_nigiri=4': 'sqiud_nigiri' is neither an option of value nor a card of the ruleset"
        " (did you mean 'squid_nigiri'?)"
    )
    with pytest.raises(BotSpecError) as caught:
        parse_bot("value:tempura=lots", ids)
    assert str(caught.value) == "bot 'value:tempura=lots': card value tempura=lots: expected a number"
    with pytest.raises(BotSpecError) as caught:
        parse_bot("value:tempura=1e309", ids)
    assert str(caught.value) == "bot 'value:tempura=1e309': card value tempura=1e309: expected a finite number"


def test_games_with_options_are_reproducible():
    """The same seed and specs give the same game, options included."""
    game = Game(bundled_ruleset("sushi-go"), 3)
    bots = ["value:tempura=3", "first", "greedy"]
    a, b = play_game(game, 9, bots), play_game(game, 9, bots)
    assert a.totals() == b.totals()


def test_simulate_cli_rejects_a_bad_spec_with_exit_2():
    """simulate --bots value:tempra=3 exits 2 with one line on stderr naming the bot, the option and the nearest card."""
    result = runner.invoke(app, ["simulate", "sushi-go", "--games", "2", "-q", "--bots", "value:tempra=3"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: bot 'value:tempra=3': 'tempra' is neither an option of value nor a card of the ruleset"
        " (did you mean 'tempura'?)\n"
    )


def test_simulate_cli_runs_the_baselines_with_options():
    """simulate names each seat by its spec in the JSON summary."""
    import json

    result = runner.invoke(
        app, ["simulate", "sushi-go", "--games", "5", "-q", "--json", "--bots", "first,value:tempura=3,greedy"]
    )
    assert result.exit_code == 0, result.output
    assert [s["bot"] for s in json.loads(result.stdout)["seats"]] == ["first", "value:tempura=3", "greedy", "greedy"]


def test_the_bots_command_lists_every_bot_with_its_options(tuned):
    """ruledraft bots prints each bot's summary, its options with defaults, and the spec syntax (wide terminal: no line broken)."""
    result = runner.invoke(app, ["bots"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert (
        "first: The first legal move: the card listed first; as strong as the ruleset's card order makes it." in lines
    )
    assert "tuned: A test bot with declared options." in lines
    assert "  depth=integer (default 1): how far to look" in lines
    assert "  greedy=true/false (default False): take points first" in lines
    assert "  CARD=number (default from the ruleset): the value of a card type, by card id" in lines
    assert lines[-1] == "Options: NAME:KEY=VALUE:KEY=VALUE. Your own bot: FILE.py:CLASS or MODULE:CLASS[:KEY=VALUE]."


def test_the_bots_command_fits_80_columns():
    """At 80 columns every line of ruledraft bots fits, a long summary continued on an indented line."""
    result = runner.invoke(app, ["bots"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    assert "greedy: The move that most raises its own score right now, as the ruleset's" in lines


@pytest.mark.parametrize("command", ["simulate", "play"])
def test_help_mentions_the_spec_syntax(command):
    """simulate --help and play --help say how to give options and your own bot."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "300"})
    text = " ".join(result.stdout.replace("│", " ").split())
    assert "Options after colons (value:tempura=3); your own bot as FILE.py:CLASS or MODULE:CLASS" in text


def test_play_game_seeds_the_value_bot_like_the_others():
    """A value bot made for seat s with bot_seed breaks ties the same way twice."""
    game = Game(bundled_ruleset("sushi-go"), 2)
    state = game.new_initial_state(3)
    one, two = make_agent("value", bot_seed(3, 1)), make_agent("value", bot_seed(3, 1))
    assert one.act(state, 1) == two.act(state, 1)
