"""Every bot is handed its seat's view, never the live game: built-in, registered, from
a file, a module or an entry point, in one process and in forked and spawned workers;
only the seats that act are asked; and a bot that attacks its view changes nothing."""

from __future__ import annotations

import json
import textwrap

import pytest
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset
from typer.testing import CliRunner

import ruledraft
from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.view import SeatView
from ruledraft.play import agents, bot_specs, runner
from ruledraft.play.agents import GreedyAgent, register_agent

cli = CliRunner()

#: rulesets whose cards ask one seat to decide in the middle of a turn
DECIDING = tuple(rid for rid in BUNDLED_RULESETS if any(e.kind != "collision" for e in bundled_ruleset(rid).effects))

BOTS = textwrap.dedent(
    '''
    from ruledraft.engine.state import State


    class SeesView:
        """Takes the last legal move; fails unless it is handed a view."""

        def __init__(self, seed):
            self.name = "sees-view"

        def act(self, view, seat):
            if type(view).__name__ != "SeatView" or isinstance(view, State) or hasattr(view, "hands"):
                raise RuntimeError(f"handed {type(view).__name__}")
            return view.legal_actions()[-1]


    def everything(root):
        """Every object reachable from root through attributes and containers."""
        seen, todo = {}, [root]
        while todo:
            obj = todo.pop()
            if id(obj) in seen or isinstance(obj, (int, float, str, bool, type(None))):
                continue
            seen[id(obj)] = obj
            if type(obj).__module__.startswith("ruledraft.language") or isinstance(obj, type):
                continue  # the rule definitions
            if isinstance(obj, dict):
                todo.extend(obj.values())
            elif isinstance(obj, (list, tuple, set, frozenset)):
                todo.extend(obj)
            elif hasattr(obj, "items") and hasattr(obj, "values"):
                todo.extend(obj.values())
            for klass in type(obj).__mro__:
                for name in getattr(klass, "__slots__", ()):
                    if hasattr(obj, name):
                        todo.append(getattr(obj, name))
            if hasattr(obj, "__dict__") and not callable(obj):
                todo.extend(vars(obj).values())
        return list(seen.values())


    class Vandal:
        """Takes the last legal move, after trying every way to peek at or change the
        game through its view; fails if any of them works."""

        def __init__(self, seed):
            self.name = "vandal"

        def act(self, view, seat):
            move = view.legal_actions()[-1]
            worked = []
            for attempt in ("hands", "clone", "state", "_state", "deck", "seed"):
                if hasattr(view, attempt):
                    worked.append(f"view.{attempt}")
            for name in ("hand", "seat", "_world", "_seat", "pending"):
                try:
                    setattr(view, name, None)
                    worked.append(f"set {name}")
                except AttributeError:
                    pass
            try:
                view.known_hands[seat] = ()
                worked.append("known_hands")
            except TypeError:
                pass
            world = view.world()
            if world.seed != 0:
                worked.append("the seed")
            # change everything it can reach: every list and dict, every state's fields
            for root in (view, world, view.sample_world(lambda: 0.5)):
                for obj in everything(root):
                    if isinstance(obj, list):
                        obj.clear()
                    elif isinstance(obj, dict):
                        obj.clear()
                    elif type(obj).__name__ == "State":
                        obj.seed, obj.round, obj.finished = 1, 99, True
            if worked:
                raise RuntimeError("; ".join(worked))
            return move
    '''
)


@pytest.fixture
def bot_file(tmp_path, monkeypatch):
    """viewbots.py in tmp_path, also importable as the module viewbots, and as the entry point 'seesview'."""
    path = tmp_path / "viewbots.py"
    path.write_text(BOTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    info = tmp_path / "viewbots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: viewbots\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ruledraft.bots]\nseesview = viewbots:SeesView\n", encoding="utf-8")
    yield path
    agents._SPECS.clear()
    bot_specs._entry_kinds.clear()


def summary(*args):
    result = cli.invoke(app, ["simulate", "-q", "--json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return [(s["bot"], s["mean"]) for s in json.loads(result.stdout)["seats"]]


@pytest.mark.parametrize("start", ["fork", "spawn"])
@pytest.mark.parametrize("how", ["path", "module", "entry point"])
def test_bots_from_outside_are_handed_views_in_workers_too(bot_file, monkeypatch, start, how):
    """A bot by path, module or entry point gets a SeatView at every move, in one process and in forked or spawned workers (--jobs 2), on a ruleset whose cards ask decisions."""
    spec = {"path": f"{bot_file}:SeesView", "module": "viewbots:SeesView", "entry point": "seesview"}[how]
    monkeypatch.setattr(runner, "_start_method", lambda: start)
    args = ["sushi-go-party-master-menu", "--games", "8", "--seed", "3", "--bots", f"{spec},greedy,planner"]
    assert summary(*args, "--jobs", "1") == summary(*args, "--jobs", "2")


@pytest.mark.parametrize("rid", ["sushi-go", "sushi-go-party-master-menu", "sushi-go-party-party-sampler"])
def test_a_bot_that_attacks_its_view_changes_nothing(bot_file, rid):
    """A bot that looks for hidden parts, writes to its view and clears every list reachable from its view and its worlds plays exactly the game of a bot making the same moves quietly."""
    quiet = summary(rid, "--games", "6", "--seed", "2", "--bots", f"{bot_file}:SeesView,greedy,random")
    loud = summary(rid, "--games", "6", "--seed", "2", "--bots", f"{bot_file}:Vandal,greedy,random")
    assert [mean for _bot, mean in loud] == [mean for _bot, mean in quiet]


class Recorder(GreedyAgent):
    """The greedy bot, noting what each call hands it."""

    calls: list = []

    def act(self, view, seat):
        Recorder.calls.append((type(view), seat, view.acting_seats(), view.pending is not None))
        return super().act(view, seat)


@pytest.fixture
def recorder():
    register_agent("recorder", Recorder, replace=True)
    Recorder.calls = []
    yield
    agents._REGISTRY.pop("recorder", None)


@pytest.mark.parametrize("rid", DECIDING)
def test_registered_bots_are_asked_only_when_they_act(recorder, rid):
    """A registered bot is handed its view, and only while its seat acts: every player during the picks, the deciding seat alone while a card's effect waits."""
    rs = bundled_ruleset(rid)
    ruledraft.play_game(rs, players=rs.min_players, bots="recorder", seed=4)
    assert Recorder.calls
    assert all(kind is SeatView and seat in acting for kind, seat, acting, _ in Recorder.calls)
    decisions = [acting for _, _, acting, deciding in Recorder.calls if deciding]
    assert decisions and all(len(acting) == 1 for acting in decisions)


@pytest.mark.parametrize("rid", DECIDING)
def test_agent_objects_play_a_party_game_through_play_game(rid):
    """play_game with agent objects at every seat plays a whole game whose cards ask decisions, each object asked only for its own seat while it acts."""

    class Any:
        name = "any"

        def __init__(self):
            self.asked = 0

        def act(self, view, seat):
            assert type(view) is SeatView and view.seat == seat and seat in view.acting_seats()
            self.asked += 1
            return view.legal_actions()[0]

    rs = bundled_ruleset(rid)
    players = [Any() for _ in range(rs.min_players)]
    state = ruledraft.play_game(rs, players=rs.min_players, bots=players, seed=6)
    assert state.is_terminal() and all(p.asked for p in players)
    decided = sum(len(r.decisions) for r in state.history)
    picks = sum(len(r.actions) - len(r.auto_turns) for r in state.history)
    assert sum(p.asked for p in players) == decided + picks * rs.min_players


def test_built_in_bots_handed_a_live_state_decide_on_its_view():
    """A caller of the older interface that hands a built-in bot the live state gets the move the bot makes on the seat's view."""
    game = bundled_game("sushi-go-party-master-menu", 4)
    state = game.new_initial_state(8)
    moves = 0
    while not state.is_terminal():
        actions = []
        for s in state.acting_seats():
            for name in ("random", "first", "greedy", "value", "planner"):
                a = agents.make_agent(name, 11).act(state, s)
                b = agents.make_agent(name, 11).act(SeatView(state, s), s)
                assert a == b, name
                moves += 1
            actions.append(agents.make_agent("greedy", 1).act(state, s))
        state.apply_actions(actions)
    assert moves > 100


def test_a_view_asked_for_another_seats_moves_refuses():
    """A view knows only its own seat's moves: legal_actions(other seat) is a ValueError, its own seat's are the state's."""
    state = Game(bundled_ruleset("sushi-go"), 3).new_initial_state(1)
    view = SeatView(state, 0)
    assert view.legal_actions(0) == state.legal_actions(0)
    with pytest.raises(ValueError, match="does not know the moves of seat 1"):
        view.legal_actions(1)


def test_the_single_agent_environments_opponents_get_views(recorder):
    """The gymnasium environment's bot opponents are handed their seats' views, never the game, on a ruleset whose cards ask decisions."""
    from ruledraft.rl import single_agent_env

    env = single_agent_env("sushi-go-party-master-menu", players=3, opponents="recorder")
    obs, _info = env.reset(seed=3)
    done = False
    while not done:
        legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
        obs, _reward, done, _cut, _info = env.step(legal[0])
    assert Recorder.calls and all(kind is SeatView and seat in acting for kind, seat, acting, _ in Recorder.calls)
