"""--isolate (ruledraft.play.isolate): a bot from outside in a process of its own, sent
only its seat's view; the attacker of tests/play/test_bot_views.py and one that digs
with the garbage collector find nothing there."""

from __future__ import annotations

import io
import json
import random
import textwrap
from types import MappingProxyType

import pytest
from strategies import played_game, played_ruleset, played_sources, source_id
from test_bot_views import BOTS
from typer.testing import CliRunner

import ruledraft
from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.view import seat_view
from ruledraft.play import agents, bot_specs, isolate

cli = CliRunner()


def dump(obj, depth=0):
    """Every value reachable from ``obj`` as plain data (the game and the rules by name)."""
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return obj
    if (
        isinstance(obj, Game)
        or type(obj).__module__.startswith("ruledraft.language.")
        and "decision" not in type(obj).__module__
    ):
        return type(obj).__name__
    if depth > 40:
        return "deep"
    if isinstance(obj, (dict, MappingProxyType)):
        return sorted((repr(k), dump(v, depth + 1)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return [dump(v, depth + 1) for v in obj]
    fields = {}
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if hasattr(obj, name):
                fields[name] = dump(getattr(obj, name), depth + 1)
    if hasattr(obj, "__dict__"):
        fields.update((k, dump(v, depth + 1)) for k, v in vars(obj).items())
    return [type(obj).__name__, sorted(fields.items())]


MORE_BOTS = textwrap.dedent(
    '''
    import gc
    import os


    class Digger:
        """Looks through every object of its process for the live game (a state whose seed is not 0)."""

        def __init__(self, seed):
            self.name = "digger"

        def act(self, view, seat):
            for obj in gc.get_objects():
                if type(obj).__name__ == "State" and obj.seed != 0:
                    raise RuntimeError("found the live game")
            return view.legal_actions()[-1]


    class Loud:
        """Prints on standard output at every move (the channel to its process must survive it)."""

        def __init__(self, seed):
            self.name = "loud"

        def act(self, view, seat):
            print("my move", flush=True)
            return view.legal_actions()[-1]


    class Boom:
        def __init__(self, seed):
            self.name = "boom"

        def act(self, view, seat):
            raise RuntimeError("boom")


    class Gone:
        def __init__(self, seed):
            self.name = "gone"

        def act(self, view, seat):
            os._exit(3)


    class NotInt:
        """Chooses a string: refused, quoted once, as in the game's process."""

        def __init__(self, seed):
            self.name = "notint"

        def act(self, view, seat):
            return "3"


    class Forger:
        """Writes its process's reply itself: a pickle that would make a file in whatever
        process loads it (the run, were replies unpickled), or a reply past the size kept."""

        FORGE = "pickle"

        def __init__(self, seed):
            self.name = "forger"

        def act(self, view, seat):
            import pickle
            import struct
            import sys

            serving = sys.modules["__main__"]
            move = view.legal_actions()[0]
            marker = os.environ["FORGER_MARKER"]

            class Payload:
                def __reduce__(self):
                    return (open, (marker, "w"))

            def forged(stream, *args):
                data = pickle.dumps(("ok", [move, Payload()]))
                if self.FORGE == "huge":
                    stream.write(struct.pack("!I", 2**31))
                else:
                    stream.write(struct.pack("!I", len(data)) + data)
                stream.flush()

            for name in ("_send", "_send_reply"):
                if hasattr(serving, name):
                    setattr(serving, name, forged)
            return move


    class HugeForger(Forger):
        FORGE = "huge"


    class Spawner:
        """Starts a process of its own that sleeps for ever, its pid written where the test reads it."""

        def __init__(self, seed):
            self.name = "spawner"

        def act(self, view, seat):
            import subprocess

            if not os.path.exists(os.environ["SPAWNED_PID"]):
                sleeper = subprocess.Popen(["sleep", "600"])
                with open(os.environ["SPAWNED_PID"], "w") as f:
                    f.write(str(sleeper.pid))
            return view.legal_actions()[0]


    M = 2**64 - 1


    def _unshift(z, k):
        x = z
        for _ in range(64 // k + 1):
            x = z ^ (x >> k)
        return x & M


    def _unmix(x):
        """One splitmix64 step of derive_seed backwards (each of its steps can be undone)."""
        z = _unshift(x, 31)
        z = (z * pow(0x94D049BB133111EB, -1, 2**64)) & M
        z = _unshift(z, 27)
        z = (z * pow(0xBF58476D1CE4E5B9, -1, 2**64)) & M
        return _unshift(z, 30)


    class Cracker:
        """Works its seed back to the game's (were it bot_seed) and fails if that game deals its hand."""

        def __init__(self, seed):
            self.name = "cracker"
            self.seed = seed
            self.tried = False

        def act(self, view, seat):
            if not self.tried and view.round == 0 and view.turn == 0:
                from ruledraft import Game

                self.tried = True
                mixed = (_unmix(self.seed) - 0x9E3779B97F4A7C15 - seat) & M
                game_seed = (_unmix(mixed) - 0x9E3779B97F4A7C15 - 0xB07) & M
                dealt = Game(view.ruleset, view.players).new_initial_state(game_seed).hands[seat]
                if sorted(dealt) == sorted(view.hand):
                    raise RuntimeError("worked out the deal")
            return view.legal_actions()[-1]
    '''
)


@pytest.fixture
def bot_file(tmp_path, monkeypatch):
    """viewbots.py (the attacker and friends) in tmp_path, importable as viewbots too."""
    path = tmp_path / "viewbots.py"
    path.write_text(BOTS + MORE_BOTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield path
    agents._SPECS.clear()
    bot_specs._entry_kinds.clear()
    isolate.close_all()


def simulate(*args):
    return cli.invoke(app, ["simulate", "-q", "--json", *map(str, args)])


def means(result):
    assert result.exit_code == 0, result.output
    return [s["mean"] for s in json.loads(result.stdout)["seats"]]


@pytest.mark.parametrize("source", played_sources(), ids=source_id)
def test_a_view_travels_whole(source):
    """A view serialized for another process and read back there (its own game of the ruleset) holds the same values and answers the same moves, on every ruleset."""
    rs = played_ruleset(source)
    game = played_game(source, rs.min_players)
    there = Game(rs, rs.min_players)
    state = game.new_initial_state(3)
    rng = random.Random(3)
    while not state.is_terminal():
        for seat in state.acting_seats():
            view = seat_view(state, seat)
            back = isolate.view_from_bytes(isolate.view_bytes(view), there)
            assert back.game is there
            assert dump(back) == dump(view)
            assert back.legal_actions() == view.legal_actions()
            assert back.to_dict() == view.to_dict()
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_isolated_bot_plays_the_games_it_plays_in_process(bot_file, jobs):
    """With --isolate a bot from a file plays the same games as without, in one process and in workers, on a ruleset whose cards ask decisions; what it prints does not disturb it."""
    args = ["sushi-go-party-master-menu", "--games", "6", "--seed", "5", "--jobs", jobs]
    plain = means(simulate(*args, "--bots", f"{bot_file}:SeesView,greedy"))
    assert means(simulate(*args, "--bots", f"{bot_file}:SeesView,greedy", "--isolate")) == plain
    assert means(simulate(*args, "--bots", f"{bot_file}:Loud,greedy", "--isolate")) == plain


def test_digging_finds_the_game_in_process_and_nothing_isolated(bot_file):
    """A bot that searches its process's objects finds the live game when it runs in the game's process, and nothing with --isolate, where it plays like any bot."""
    args = ["sushi-go", "--games", "4", "--seed", "1"]
    found = simulate(*args, "--bots", f"{bot_file}:Digger,greedy")
    assert found.exit_code == 1 and "raised RuntimeError: found the live game" in found.output
    isolated = means(simulate(*args, "--bots", f"{bot_file}:Digger,greedy", "--isolate"))
    assert isolated == means(simulate(*args, "--bots", f"{bot_file}:SeesView,greedy"))


def test_a_bots_seed_cannot_be_worked_back_to_the_deal(bot_file):
    """A bot from outside is made with a one-way function of its seat's seed: undoing the seeds' derivation gives it no deal, in process or isolated (it gave every hidden hand)."""
    from ruledraft.engine.seeds import bot_seed, private_seed

    args = ["sushi-go", "--players", "3", "--games", "4", "--seed", "5"]
    quiet = means(simulate(*args, "--bots", f"{bot_file}:SeesView,greedy"))
    assert means(simulate(*args, "--bots", f"{bot_file}:Cracker,greedy")) == quiet
    assert means(simulate(*args, "--bots", f"{bot_file}:Cracker,greedy", "--isolate")) == quiet
    made = agents.make_agent(f"{bot_file}:Cracker", bot_seed(77, 1))
    assert made.seed == private_seed(bot_seed(77, 1)) != bot_seed(77, 1)
    # the bot's own seed, undone, still deals the hand: the test bot would have caught the old seeds
    namespace: dict = {}
    exec(compile(MORE_BOTS, "viewbots", "exec"), namespace)
    state = Game(ruledraft.load_ruleset("sushi-go"), 3).new_initial_state(77)
    crack = namespace["Cracker"](bot_seed(77, 1))
    with pytest.raises(RuntimeError, match="worked out the deal"):
        crack.act(seat_view(state, 1), 1)


def test_the_attacker_changes_nothing_isolated(bot_file):
    """The attacker of the views' tests, isolated, plays exactly the games of a quiet bot making the same moves."""
    args = ["sushi-go-party-party-sampler", "--games", "4", "--seed", "2"]
    quiet = means(simulate(*args, "--bots", f"{bot_file}:SeesView,greedy,random"))
    assert means(simulate(*args, "--bots", f"{bot_file}:Vandal,greedy,random", "--isolate")) == quiet


@pytest.mark.parametrize(
    ("cls", "message"),
    [("Boom", "raised RuntimeError: boom"), ("Gone", "ended its process (exit status 3)")],
)
def test_an_isolated_bot_that_fails_is_named(bot_file, cls, message):
    """An isolated bot that raises is named as one in the game's process is; one whose process dies says so."""
    result = simulate("sushi-go", "--games", "2", "--bots", f"{bot_file}:{cls},greedy", "--isolate")
    assert result.exit_code == 1
    assert f"error: bot '{bot_file}:{cls}' at seat 0 {message} (game seed" in result.output


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        ("Forger", "sent its process's run something that is not a reply"),
        ("HugeForger", "sent a reply of 2,147,483,648 bytes (at most 65,536)"),
    ],
)
def test_a_reply_its_bot_forges_runs_nothing_in_the_run(bot_file, tmp_path, monkeypatch, cls, message):
    """A bot that replaces its process's replies with a pickle that makes a file when loaded, or a header of 2 GB: the run fails naming the bot, loads nothing of it (no file is made) and holds no 2 GB."""
    marker = tmp_path / "loaded-in-the-run"
    monkeypatch.setenv("FORGER_MARKER", str(marker))
    result = simulate("sushi-go", "--games", "2", "--bots", f"{bot_file}:{cls},greedy", "--isolate")
    assert result.exit_code == 1
    assert f"error: bot '{bot_file}:{cls}' at seat 0 {message} (game seed" in result.output
    assert not marker.exists()


def test_what_an_isolated_bot_starts_ends_with_the_run(bot_file, tmp_path, monkeypatch):
    """An isolated bot that starts a process sleeping for ever: once the run is over, that process is gone too."""
    import time

    pid_file = tmp_path / "spawned.pid"
    monkeypatch.setenv("SPAWNED_PID", str(pid_file))
    result = simulate("sushi-go", "--games", "2", "--bots", f"{bot_file}:Spawner,greedy", "--isolate")
    assert result.exit_code == 0, result.output
    isolate.close_all()  # (the run's end, where a command's process closes them)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[-1].startswith("Z"):  # ended, not yet reaped by init
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"process {pid} the bot started is still running")


def test_an_isolated_move_that_is_no_integer_is_quoted_as_in_process(bot_file):
    """A bot choosing the string '3': the message quotes it once, as the game's own process does ('3', not "'3'")."""
    said = [
        simulate("sushi-go", "--games", "1", "--bots", f"{bot_file}:NotInt,greedy", *extra).output
        for extra in ([], ["--isolate"])
    ]
    assert said[0] == said[1] and f"error: bot '{bot_file}:NotInt' at seat 0 chose '3', not a legal action" in said[1]


def test_the_python_api_isolates_too(bot_file):
    """ruledraft.simulate(..., isolate=True) gives the figures of the same run without it."""
    bots = [f"{bot_file}:SeesView", "greedy"]
    plain = ruledraft.simulate("sushi-go", players=3, games=5, bots=bots, seed=9)
    isolated = ruledraft.simulate("sushi-go", players=3, games=5, bots=bots, seed=9, isolate=True)
    assert [s.mean for s in isolated.seats] == [s.mean for s in plain.seats]


def test_play_against_an_isolated_bot(bot_file):
    """play --isolate against a bot that digs for the game: it finds nothing and plays the game a quiet bot making the same moves plays; without --isolate it finds the game."""
    args = ["play", "sushi-go", "--players", "2", "--seed", "4", "--bots", f"{bot_file}:Digger"]
    isolated = cli.invoke(app, [*args, "--isolate"], input="1\n" * 60)
    assert isolated.exit_code == 0, isolated.output
    quiet = cli.invoke(app, [*args[:-1], f"{bot_file}:SeesView"], input="1\n" * 60)
    tail = isolated.output[isolated.output.index("Final totals:") :]
    assert tail == quiet.output[quiet.output.index("Final totals:") :]  # the same moves, the same game
    found = cli.invoke(app, args, input="1\n" * 60)
    assert found.exit_code == 1
    assert "raised RuntimeError: found the live game (game seed 4)" in found.stderr


class _Gone(io.BytesIO):
    """A pipe whose reader has gone: every write is refused."""

    def write(self, data):
        raise BrokenPipeError(32, "Broken pipe")


def test_an_isolated_bot_whose_run_has_ended_stops_quietly(monkeypatch):
    """The bot's process answering a run that has stopped (another seat's bot failed, a worker was
    ended) returns without a traceback, its closed pipe closed for good."""
    import sys
    from types import SimpleNamespace

    rs = played_ruleset("sushi-go")
    state = Game(rs, 2).new_initial_state(1)
    hello = {"spec": "greedy", "ruleset": SimpleNamespace(ruleset=rs), "players": 2, "path": list(sys.path)}
    asked = iter([hello, ("act", 5, isolate.view_bytes(seat_view(state, 0)), 0)])
    monkeypatch.setattr(isolate, "_receive", lambda stream: next(asked))
    replies = _Gone()
    isolate._serve(io.BytesIO(), replies)  # raised BrokenPipeError, printed by the bot's process as a traceback
    assert replies.closed


STUCK = textwrap.dedent(
    """
    import os
    import pathlib


    class Stuck:
        def __init__(self, seed):
            pass

        def act(self, view, seat):
            pathlib.Path(os.environ["STUCK_MARK"]).write_text("stuck")
            while True:
                pass
    """
)


def test_a_bot_still_thinking_when_its_run_stops_is_ended_at_once(tmp_path, monkeypatch):
    """Closing a bot's process while a move is asked of it (a Ctrl-C while it thinks)
    does not wait for the answer it will never give: the process is killed without the
    idle bot's grace (play --isolate waited 5 s after Ctrl-C); an idle one is given it."""
    import threading
    import time

    from ruledraft.language.loading import check_ruleset
    from ruledraft.play.executor import ShippedRuleset

    (tmp_path / "stuckbot.py").write_text(STUCK, encoding="utf-8")
    mark = tmp_path / "mark"
    monkeypatch.setenv("STUCK_MARK", str(mark))
    monkeypatch.chdir(tmp_path)
    checked = check_ruleset("sushi-go")
    rs, shipped = checked.ruleset, ShippedRuleset(checked.ruleset, checked.document)
    state = Game(rs, 2).new_initial_state(1)
    child = isolate._Child("stuckbot.py:Stuck", shipped, 2)
    failed: list[BaseException] = []

    def asking() -> None:
        try:
            child.ask(("act", 5, isolate.view_bytes(seat_view(state, 0)), 0))
        except BaseException as e:  # noqa: BLE001 - the pipe closed under it
            failed.append(e)

    thread = threading.Thread(target=asking, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mark.exists(), "the bot was never asked"
    waits: list[float | None] = []
    real_wait = child.process.wait

    def wait(timeout=None):
        waits.append(timeout)
        return real_wait(timeout)

    monkeypatch.setattr(child.process, "wait", wait)
    child.close()
    assert waits[0] == 0 and child.process.returncode == -9  # killed, not waited for
    thread.join(10)
    assert failed and isinstance(failed[0], isolate.BotRaised)
    idle = isolate._Child("greedy", shipped, 2)
    assert idle.ask(("act", 5, isolate.view_bytes(seat_view(state, 0)), 0)) in state.legal_actions(0)
    idle_waits: list[float | None] = []
    idle_wait = idle.process.wait
    monkeypatch.setattr(idle.process, "wait", lambda timeout=None: idle_waits.append(timeout) or idle_wait(timeout))
    idle.close()
    assert idle_waits[0] == 5 and idle.process.returncode == 0
