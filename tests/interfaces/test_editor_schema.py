"""Editors agree with ``validate``: the rule files opened in the real ``yaml-language-server``.

The server (the engine of the common editors' YAML support) is driven over stdio,
one server process for all the files. It is an npm package pinned with its
dependencies by ``tests/data/editor/server/package-lock.json``, installed on first
use into a cache folder outside the repository (``$RULEDRAFT_NODE_CACHE``, default
``~/.cache/ruledraft``); without Node and npm the test fails with a message saying so.

The editor corpus ``tests/data/editor/`` holds files with schema-level mistakes; each
``# expect-line: N`` line names a line where the editor (and ``validate``) must
report a problem, and no other line may get one.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from paths import DATA, ROOT

from ruledraft.language.loading import check_ruleset

SCHEMA = ROOT / "schemas" / "ruleset.schema.json"
CORPUS = DATA / "editor"

#: the pinned server and its dependencies (package.json, package-lock.json): the 1.19
#: line applies draft-07 semantics (it ignores ``unevaluatedProperties`` and
#: ``dependentRequired``), as the editors in common use do
SERVER_PACKAGE = CORPUS / "server"
LOCKED_VERSION = json.loads((SERVER_PACKAGE / "package.json").read_text(encoding="utf-8"))["dependencies"][
    "yaml-language-server"
]
#: ``RULEDRAFT_YAML_LS_VERSION=1.25.0`` tries another version (1.25 applies 2020-12), unlocked
SERVER_VERSION = os.environ.get("RULEDRAFT_YAML_LS_VERSION", LOCKED_VERSION)
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")
EXPECT_LINE = re.compile(r"^# expect-line: (\d+)$")

TIMEOUT = 120  # seconds; only to avoid a hang, never a speed assertion


def _rule_files() -> list[Path]:
    """Every bundled ruleset and every examples/ rule file not named broken-* and holding no tune mark."""
    files = sorted((ROOT / "rulesets").glob("*.yaml")) + sorted(
        p
        for p in (ROOT / "examples").rglob("*.yaml")
        if "plugins" not in p.parts  # these need their plug-in
    )
    # a file with tune marks ({tune: [2, 6]} for a number, read before the schema check)
    # is flagged by a schema that knows plain numbers only
    return [p for p in files if not p.name.startswith("broken-") and "{tune:" not in p.read_text(encoding="utf-8")]


def _corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


def _expected_lines(path: Path) -> set[int]:
    lines = set()
    for text in path.read_text(encoding="utf-8").splitlines():
        match = EXPECT_LINE.match(text)
        if match:
            lines.add(int(match.group(1)))
    return lines


# ---------------------------------------------------------------- installing the server


def _cache_dir() -> Path:
    base = os.environ.get("RULEDRAFT_NODE_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache") / "ruledraft"


def _fail(message: str) -> None:
    pytest.fail(message, pytrace=False)


def server_script() -> Path:
    """The pinned yaml-language-server's entry script, installed with npm when missing."""
    if shutil.which("node") is None:
        _fail(
            f"this test needs Node.js (and npm, to install yaml-language-server@{SERVER_VERSION}, "
            "the editors' YAML engine): install Node.js with npm and run the tests again"
        )
    cache = _cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable home: pytest's own cache folder, which git ignores
        cache = ROOT / ".pytest_cache"
    prefix = cache / f"yaml-language-server-{SERVER_VERSION}"
    package = prefix / "node_modules" / "yaml-language-server"
    script = package / "bin" / "yaml-language-server"

    def installed() -> bool:
        manifest = package / "package.json"
        return (
            script.is_file()
            and manifest.is_file()
            and json.loads(manifest.read_text(encoding="utf-8")).get("version") == SERVER_VERSION
        )

    if installed():
        return script
    if shutil.which("npm") is None:
        _fail(
            f"this test needs npm to install yaml-language-server@{SERVER_VERSION} into {prefix}: "
            "install Node.js with npm and run the tests again"
        )
    staging = cache / f"{prefix.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
    if SERVER_VERSION == LOCKED_VERSION:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SERVER_PACKAGE / name, staging / name)
        command = ["npm", "ci", "--prefix", str(staging), *quiet]
    else:
        command = [
            "npm",
            "install",
            "--prefix",
            str(staging),
            "--no-save",
            *quiet,
            f"yaml-language-server@{SERVER_VERSION}",
        ]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        _fail(
            f"npm could not install yaml-language-server@{SERVER_VERSION} ({' '.join(command)}):\n"
            f"{done.stdout}{done.stderr}"
        )
    try:
        os.rename(staging, prefix)
    except OSError:  # a run beside this one got there first, or a broken copy is in the way
        if not installed():
            shutil.rmtree(prefix, ignore_errors=True)
            os.rename(staging, prefix)
        shutil.rmtree(staging, ignore_errors=True)
    if not installed():
        _fail(f"npm ran, but yaml-language-server@{SERVER_VERSION} is not in {prefix}")
    return script


# ---------------------------------------------------------------- a small LSP client


class LanguageServer:
    """Just enough of the Language Server Protocol to open files and read diagnostics."""

    def __init__(self, script: Path, root: Path):
        self.proc = subprocess.Popen(
            ["node", str(script), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.diagnostics: dict[str, list] = {}
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.settings = {
            "validate": True,
            "hover": False,
            "completion": False,
            "format": {"enable": False},
            "schemaStore": {"enable": False},
            "schemas": {},
            "customTags": [],
        }
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {
                    "workspace": {"configuration": True},
                    "textDocument": {"publishDiagnostics": {"relatedInformation": False}},
                },
                "initializationOptions": {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        )
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": {"yaml": self.settings}})

    # -- wire

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                header = header.strip()
                if not header:
                    break
                name, _, value = header.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if length is None:
                continue
            self.inbox.put(json.loads(stream.read(length)))

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params):
        self.next_id += 1
        wanted = self.next_id
        self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        while True:
            message = self._take()
            if message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise AssertionError(f"{method} failed: {message['error']}")
                return message.get("result")

    def _take(self) -> dict:
        try:
            message = self.inbox.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"yaml-language-server said nothing for {TIMEOUT} s") from None
        self._handle(message)
        return message

    def _handle(self, message: dict) -> None:
        method = message.get("method")
        if method == "textDocument/publishDiagnostics":
            params = message["params"]
            self.diagnostics[params["uri"]] = params["diagnostics"]
        elif method is not None and "id" in message:
            # a request from the server: configuration, capability registration, progress ...
            result = None
            if method == "workspace/configuration":
                result = [
                    self.settings if item.get("section") == "yaml" else None for item in message["params"]["items"]
                ]
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    # -- documents

    def open_all(self, paths: list[Path]) -> dict[Path, list]:
        """Open every file; return each one's diagnostics once the server has published them."""
        uris = {}
        for path in paths:
            uri = path.as_uri()
            uris[uri] = path
            self.diagnostics.pop(uri, None)
            self.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "yaml",
                        "version": 1,
                        "text": path.read_text(encoding="utf-8"),
                    }
                },
            )
        deadline = time.monotonic() + TIMEOUT
        while not all(uri in self.diagnostics for uri in uris):
            if time.monotonic() > deadline:
                missing = [str(p) for u, p in uris.items() if u not in self.diagnostics]
                raise AssertionError(f"no diagnostics published for: {missing}")
            self._take()
        return {path: self.diagnostics[uri] for uri, path in uris.items()}

    def schemas_of(self, path: Path) -> list[str]:
        """The schema URIs the server attached to an open file."""
        result = self.request("yaml/get/jsonSchema", path.as_uri()) or []
        return [entry.get("uri") for entry in result]

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def opened():
    """One server for the whole module: every rule file and every corpus file, opened once."""
    server = LanguageServer(server_script(), ROOT)
    try:
        files = _rule_files() + _corpus_files()
        diagnostics = server.open_all(files)
        schemas = {path: server.schemas_of(path) for path in files}
        yield diagnostics, schemas
    finally:
        server.close()


def _describe(diagnostics: list) -> str:
    return "\n".join(
        f"  {d['range']['start']['line'] + 1}:{d['range']['start']['character'] + 1}: {d.get('message')}"
        for d in diagnostics
    )


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ---------------------------------------------------------------- the tests


def test_rule_files_carry_the_schema_modeline():
    """Every bundled ruleset and every examples/ rule file not named broken-* names the schema on its first line, by a correct relative path."""
    assert len(_rule_files()) >= 14
    for path in _rule_files():
        first = path.read_text(encoding="utf-8").splitlines()[0]
        match = MODELINE.match(first)
        assert match, f"{_rel(path)}: first line is {first!r}"
        assert (path.parent / match.group(1)).resolve() == SCHEMA, _rel(path)


@pytest.mark.parametrize("path", _rule_files(), ids=_rel)
def test_rule_file_opens_in_the_editor_with_zero_diagnostics(path, opened):
    """The language server attaches the ruleset schema to the file and reports nothing on it."""
    diagnostics, schemas = opened
    assert SCHEMA.as_uri() in schemas[path], f"no ruleset schema attached to {_rel(path)}: {schemas[path]}"
    assert diagnostics[path] == [], f"{_rel(path)}:\n{_describe(diagnostics[path])}"


def test_editor_corpus_is_there():
    """The editor corpus has files, each with at least one expect-line marker, each carrying the schema modeline."""
    files = _corpus_files()
    assert len(files) >= 5
    for path in files:
        assert _expected_lines(path), _rel(path)
        assert MODELINE.match(path.read_text(encoding="utf-8").splitlines()[0]), _rel(path)


@pytest.mark.parametrize("path", _corpus_files(), ids=_rel)
def test_editor_reports_each_schema_mistake_on_its_line(path, opened):
    """With the schema attached, the server reports a problem on every expect-line line of the corpus file, and on no other line."""
    diagnostics, schemas = opened
    assert SCHEMA.as_uri() in schemas[path], f"no ruleset schema attached to {_rel(path)}: {schemas[path]}"
    got = {d["range"]["start"]["line"] + 1 for d in diagnostics[path]}
    assert got == _expected_lines(path), f"{_rel(path)}:\n{_describe(diagnostics[path])}"


@pytest.mark.parametrize("path", _corpus_files(), ids=_rel)
def test_validate_reports_the_same_lines_as_the_editor(path, monkeypatch):
    """`validate` rejects each corpus file, with its diagnostics on exactly the expect-line lines."""
    monkeypatch.chdir(ROOT)
    result = check_ruleset(_rel(path))
    assert not result.ok
    assert {d.line for d in result.diagnostics} == _expected_lines(path), "\n".join(str(d) for d in result.diagnostics)
