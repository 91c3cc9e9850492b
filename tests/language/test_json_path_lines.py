"""Where a JSON path's value starts in a document (``json_check.path_lines``): the line
``score`` gives beside each problem of a pretty-printed table."""

from __future__ import annotations

import copy
import json

from hypothesis import given
from hypothesis import strategies as st

from ruledraft.language.json_check import json_path, path_lines

MARK = "\u2063mark\u2063"

keys = st.text(alphabet=st.characters(codec="utf-8", exclude_characters='\u2063"'), max_size=6)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=25,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))


def _marked(value, path):
    """``value`` with the value at ``path`` replaced by the mark."""
    if not path:
        return MARK
    out = copy.deepcopy(value)
    holder = out
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = MARK
    return out


@given(values, st.sampled_from([None, 0, 1, 2, "\t"]), st.integers(min_value=0, max_value=3))
def test_each_paths_line_is_where_its_value_starts(value, indent, blank):
    """For every path of any JSON value, dumped with any indent after blank lines, the
    line found is the line its value starts on (where a mark put in its place lands)."""
    text = "\n" * blank + json.dumps(value, indent=indent)
    paths = {json_path(p): p for p in _paths(value)}
    found = path_lines(text, paths)
    assert set(found) == set(paths)
    for written, steps in paths.items():
        marked = "\n" * blank + json.dumps(_marked(value, steps), indent=indent)
        expected = marked[: marked.index(json.dumps(MARK))].count("\n") + 1
        assert found[written] == expected, written


def test_a_path_not_in_the_document_is_placed_at_its_nearest_enclosing_value():
    """rounds[5] of a document with two rounds is at the line of rounds; a path of
    another form is left out; a document cut short places what it read."""
    text = '{\n "rounds": [\n  [],\n  []\n ]\n}'
    assert path_lines(text, ["rounds[5]", "rounds[1]", "rounds.x", "", "not a path!"]) == {
        "rounds[5]": 2,
        "rounds[1]": 4,
        "rounds.x": 2,
        "": 1,
    }
    assert path_lines('{\n "a": [1,\n 2', ["a[1]", "b"]) == {"a[1]": 3, "b": 1}


def test_a_deeply_nested_document_is_read_without_recursion():
    """Ten thousand nested lists: the innermost's line, no RecursionError."""
    depth = 10_000
    text = "[" * depth + "\n1" + "]" * depth
    assert path_lines(text, ["[0]" * depth]) == {"[0]" * depth: 2}
