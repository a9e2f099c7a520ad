"""The fast path (wfctl.cmdline.startup: help and Tab presses from an index, without typer) answers exactly
what Typer itself renders and completes, for every command of the tree, in bash, zsh and fish."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.newcomer.helpers import BIN, clean_env, run_installed
from wfctl.cmdline import completion_cache, helpindex, indexbuilder, startup
from wfctl.cmdline.argv import CommandLine

SHELLS = ["bash", "zsh", "fish get-args", "fish is-args"]
IDS = {"branch": [("b-100", "North Leeds"), ("b-200", "South")],
       "client": [("c-100", "Acme: \"Ltd\""), ("c-200", "")],
       "site": [("s-100", "Dock 1"), ("s-101", "Dock $2")]}


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No WFCTL_* variables, a cache under tmp_path holding the index and cached ids, 80 columns."""
    for key in list(os.environ):
        if key.startswith("WFCTL_") or key.startswith("_WFCTL") or key in ("COMP_WORDS", "COMP_CWORD"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "80")
    key = helpindex.index_key()  # fixed: a file edited meanwhile (a shared checkout) must not turn the index stale
    monkeypatch.setattr(helpindex, "index_key", lambda: key)
    indexbuilder.write_index()
    assert helpindex.load_index() is not None
    for profile in (None, "prod"):
        path = completion_cache.cache_file(profile, None)
        for kind, items in IDS.items():
            completion_cache.remember(path, kind, items)
    return tmp_path


def _tree() -> Iterator[tuple[list[str], dict[str, Any]]]:
    index = indexbuilder.build_index()

    def walk(path: list[str], node: dict[str, Any]) -> Iterator[tuple[list[str], dict[str, Any]]]:
        yield path, node
        for name, sub in (node["commands"] or {}).items():
            yield from walk([*path, name], sub)

    yield from walk([], index["tree"])


TREE = list(_tree())
PATHS = [path for path, _ in TREE]


def _typer_help(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, int]:
    from wfctl.cmdline.main import _run

    capsys.readouterr()
    code = _run(CommandLine(list(args)))
    return capsys.readouterr().out, code


def _typer_complete(shell: str, line: tuple[list[str], str], monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> tuple[str, int]:
    from wfctl.cmdline.main import _run

    with monkeypatch.context() as mp:
        for key, value in _request(shell, line).items():
            mp.setenv(key, value)
        capsys.readouterr()
        try:
            code = _run(CommandLine([]))
        except SystemExit as exc:
            code = int(exc.code or 0)
        return capsys.readouterr().out, code


def _fast_complete(shell: str, line: tuple[list[str], str]) -> tuple[str, int] | None:
    from unittest import mock

    request = _request(shell, line)
    with mock.patch.dict(os.environ, request):  # as a real Tab press: the callbacks read the shell's words too
        return startup.fast_answer([], {**os.environ, **request})


def _request(shell: str, line: tuple[list[str], str]) -> dict[str, str]:
    args, incomplete = line
    name, _, action = shell.partition(" ")
    if name == "bash":
        return {"_WFCTL_COMPLETE": "complete_bash", "COMP_WORDS": " ".join(["wfctl", *args, incomplete]),
                "COMP_CWORD": str(len(args) + 1)}
    env = {"_WFCTL_COMPLETE": f"complete_{name}", "_TYPER_COMPLETE_ARGS": " ".join(["wfctl", *args]) + " " + incomplete}
    if action:
        env["_TYPER_COMPLETE_FISH_ACTION"] = action
    return env


def _lines(path: list[str], node: dict[str, Any]) -> list[tuple[list[str], str]]:
    """What a person types at this command before pressing Tab: (complete words, word being typed)."""
    lines = [(path, ""), (path, "-"), (path, "--")]
    for name in list(node["commands"] or {})[:2]:
        lines.append((path, name[0]))
    for param in node["params"]:
        if param["kind"] != "option" or param["hidden"]:
            continue
        if param["takes_value"]:
            lines.append(([*path, param["opts"][0]], ""))
            long = [o for o in param["opts"] if o.startswith("--")]
            if long:
                lines.append((path, long[0] + "="))
        else:
            lines.append(([*path, param["opts"][0]], "-"))
    return lines


@pytest.mark.parametrize("path", PATHS, ids=lambda p: "wfctl " + " ".join(p))
def test_help_from_the_index_is_what_typer_renders(path: list[str], isolated: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    requests = [[*path, "--help"], [*path, "-h"], ["-p", "prod", "-o", "json", *path, "--help"]]
    if path:
        requests.append(["-v", "--no-color", *path, "--help"])
    else:
        requests.append([])
    for args in requests:
        fast = startup.fast_answer(args)
        assert fast is not None, f"wfctl {' '.join(args)}: not answered from the index"
        expected, code = _typer_help(args, capsys)
        assert fast == (expected, code), f"wfctl {' '.join(args)}"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: "wfctl " + " ".join(p))
def test_completion_from_the_index_is_what_typer_answers(path: list[str], isolated: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    node = dict((tuple(p), n) for p, n in TREE)[tuple(path)]
    # the index read once for this command's Tab presses, not once a press (a run reads it once; here 100-200
    # presses a command read the same file: half of the test's time)
    monkeypatch.setattr(startup, "load_index", functools.cache(startup.load_index))
    for line in _lines(path, node):
        for shell in SHELLS:
            fast = _fast_complete(shell, line)
            assert fast is not None, f"{shell}: {line} not answered from the index"
            assert fast == _typer_complete(shell, line, monkeypatch, capsys), f"{shell}: {line}"


@pytest.mark.parametrize("line", [
    (["sites", "get"], ""),
    (["sites", "get"], "s-10"),
    (["sites", "list", "--client"], ""),
    (["-p", "prod", "clients", "get"], "c"),
    (["--profile=prod", "branches", "delete"], "b-1"),
    (["-pprod", "branches", "update"], ""),
    (["clients", "list", "--branch"], "b-2"),
    (["sites", "list"], "--client=c-1"),
], ids=str)
def test_ids_from_the_local_cache_are_what_typer_answers(line: tuple[list[str], str], isolated: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    for shell in SHELLS:
        fast = _fast_complete(shell, line)
        assert fast is not None
        assert fast == _typer_complete(shell, line, monkeypatch, capsys), shell
    bash = _fast_complete("bash", line)
    # ids were offered for an id begun; nothing typed, bash (no descriptions) is offered the names (issue 49)
    offered = {ident if line[1] else (name or ident) for items in IDS.values() for ident, name in items}
    assert bash is not None and bash[0].split("\n")[0] in offered, bash


@pytest.mark.parametrize("line", [
    (["sites", "list", "--sort-by"], "-na"),
    (["clients", "list", "--sort-by"], "name,-crea"),
    (["sites", "list", "--client"], "-"),
    (["-o"], "-"),
], ids=str)
def test_a_value_beginning_with_a_dash_is_the_options_value(line: tuple[list[str], str], isolated: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 49: the word after an option that waits for its value is that value, `-` or not (click's parser
    takes it so); both answers complete it as a value (`--sort-by -na`: -name), never as option names."""
    for shell in SHELLS:
        fast = _fast_complete(shell, line)
        assert fast is not None
        assert fast == _typer_complete(shell, line, monkeypatch, capsys), shell
    bash = _fast_complete("bash", line)
    assert bash is not None and "--" not in bash[0], bash
    if line[1] == "-na":
        assert bash[0].split("\n")[0] == "-name", bash


def test_profile_from_the_environment_picks_its_cache(isolated: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    completion_cache.remember(completion_cache.cache_file("prod", None), "site", [("s-999", "only prod")])
    monkeypatch.setenv("WFCTL_PROFILE", "prod")
    line = (["sites", "get"], "")
    assert _fast_complete("zsh", line) == _typer_complete("zsh", line, monkeypatch, capsys)
    assert _fast_complete("bash", line) == ("only prod\n", 0)  # nothing typed: bash is offered the name
    assert _fast_complete("bash", (["sites", "get"], "s-")) == ("s-999\n", 0)


@pytest.mark.parametrize("args", [
    ["no-such", "--help"],               # Typer says what is wrong
    ["-o", "xml", "sites", "--help"],    # a value click rejects before the help
    ["--version", "sites", "--help"],    # an eager option with a callback
    ["--base-url", "x y", "sites", "--help"],
], ids=" ".join)
def test_requests_the_index_does_not_decide_go_to_typer(args: list[str], isolated: Path) -> None:
    assert startup.fast_answer(args) is None


def test_a_narrow_terminal_gets_typer_help(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert startup.fast_answer(["sites", "--help"]) is None
    monkeypatch.setenv("COLUMNS", "200")  # help is laid out for up to 120 columns: an index of its own
    assert startup.fast_answer(["sites", "--help"]) is None
    indexbuilder.write_index()
    assert startup.fast_answer(["sites", "--help"]) is not None


def test_an_edited_package_makes_a_new_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key holds the newest mtime under the package: an edit or reinstall is never served stale help."""
    copy = tmp_path / "pkg"
    (copy / "sub").mkdir(parents=True)
    (copy / "sub" / "x.py").write_text("")
    monkeypatch.setattr(helpindex, "_PACKAGE", str(copy))
    key = helpindex.index_key()
    os.utime(copy / "sub" / "x.py", ns=(0, 10**19))
    assert helpindex.index_key() != key


def test_the_installed_command_answers_without_typer_once_the_index_exists(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The first help or Tab press writes the index (into the user's cache); later ones load no typer."""
    env = clean_env(tmp_path, COLUMNS="100")
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    monkeypatch.delenv("WFCTL_PROFILE", raising=False)
    monkeypatch.delenv("WFCTL_BASE_URL", raising=False)
    completion_cache.remember(completion_cache.cache_file(None, None), "site", IDS["site"])
    first, _ = run_installed(["sites", "--help"], env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert list((tmp_path / "cache" / "wfctl").glob("index-*.json"))
    requests = [(["--help"], {}), (["sites", "list", "--help"], {}), ([], {}),
                ([], {"_WFCTL_COMPLETE": "complete_bash", "COMP_WORDS": "wfctl sites ", "COMP_CWORD": "2"}),
                ([], {"_WFCTL_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "wfctl -o "}),
                ([], {"_WFCTL_COMPLETE": "complete_fish", "_TYPER_COMPLETE_ARGS": "wfctl sites get ",
                      "_TYPER_COMPLETE_FISH_ACTION": "get-args"})]
    for args, extra in requests:
        proc, modules = run_installed(args, {**env, **extra})
        assert proc.returncode == 0, proc.stderr[-2000:]
        heavy = sorted(m for m in modules if m.split(".")[0] in ("typer", "click", "rich", "httpx", "pydantic"))
        assert not heavy, f"wfctl {args} {extra}: imported {heavy[:5]}"
        assert proc.stdout.strip()
    assert first.stdout == run_installed(["sites", "--help"], env)[0].stdout


def test_bare_wfctl_prints_the_help_and_exits_0(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    for _ in range(2):  # the Typer path (no index yet), then the index
        proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("Usage: wfctl [OPTIONS] COMMAND [ARGS]...\n")
        assert "  -h, --help  Show this message and exit.\n" in proc.stdout
        assert proc.stderr == ""


def test_index_is_json_with_its_key(isolated: Path) -> None:
    data = json.loads(Path(helpindex.index_path()).read_text(encoding="utf-8"))
    assert data["key"] == helpindex.index_key() and sys.prefix in data["key"]


def test_help_into_a_pipe_the_reader_leaves_is_quiet(tmp_path: Path) -> None:
    env = clean_env(tmp_path, COLUMNS="100")
    for _ in range(2):  # Typer (no index yet), then the index
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"'{BIN / 'wfctl'}' sites create --help | head -c 1"],
                              capture_output=True, text=True, env=env, timeout=60)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "U", "")


def test_a_damaged_index_sends_the_request_to_typer(isolated: Path) -> None:
    path = Path(helpindex.index_path())
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tree"] = {"commands": None}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert startup.fast_answer(["sites", "--help"]) is None
