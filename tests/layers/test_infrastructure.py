"""Infrastructure once (issue 22 §6): one atomic write, one answer for the directories, one file-name
encoding of profile names."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

from tests.layers.imports import PACKAGE, modules
from wfctl import dirs
from wfctl.fsutil import atomic_replace, write_private_file

XDG = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


def _calls_of(path: Path, names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "os":
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} os.{node.func.attr}")
    return found


def test_one_atomic_write():
    """Only wfctl.fsutil renames a file over another (the sandbox, a separate program, aside)."""
    renames = [hit for name, path in modules().items()
               if name != "wfctl.fsutil" and not name.startswith("wfctl.sandbox")
               for hit in _calls_of(path, {"replace", "rename"})]
    assert renames == []


def test_the_atomic_write_fsyncs_the_file_and_its_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "cache" / "ids.json"
    write_private_file(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert [Path(synced[0]).parent, synced[1]] == [target.parent, str(target.parent)]  # the file, its folder
    assert Path(synced[0]).name.startswith(".ids.json.")
    assert oct(target.stat().st_mode & 0o777) == oct(0o600)

    synced.clear()
    report = tmp_path / "report.csv"
    with atomic_replace(report, mode=0o644) as temporary, open(temporary, "w") as f:
        f.write("a\n")
    assert (report.read_text(), oct(report.stat().st_mode & 0o777)) == ("a\n", oct(0o644))
    assert [Path(synced[0]).parent, synced[1]] == [tmp_path, str(tmp_path)]
    assert sorted(os.listdir(tmp_path)) == ["cache", "report.csv"]


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG platforms")
def test_directories_on_linux_are_todays_xdg_paths_and_platformdirs_agrees(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Path):
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in XDG:
        monkeypatch.delenv(name, raising=False)
    expected = {"config": tmp_path / ".config" / "wfctl", "state": tmp_path / ".local" / "state" / "wfctl",
                "cache": tmp_path / ".cache" / "wfctl"}
    assert {"config": dirs.config_dir(), "state": dirs.state_dir(), "cache": dirs.cache_dir()} == expected
    assert {kind: dirs.platform_dir(kind) for kind in expected} == expected

    for name in XDG:
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    assert dirs.config_dir() == tmp_path / "xdg_config_home" / "wfctl"
    assert dirs.state_dir() == tmp_path / "xdg_state_home" / "wfctl"
    assert dirs.cache_dir() == tmp_path / "xdg_cache_home" / "wfctl"

    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the spec: a relative path is ignored
    assert dirs.cache_dir() == expected["cache"]


def test_every_directory_comes_from_one_module():
    """No module but wfctl.dirs reads the XDG variables or names a platform's folders (help text aside)."""
    variables = {*XDG, "APPDATA", "LOCALAPPDATA"}
    folders = ("Application Support", "AppData", ".local", ".cache", ".config")
    readers = []
    for name, path in modules().items():
        if name in ("wfctl.dirs", "wfctl.commands.help") or name.startswith("wfctl.sandbox"):  # help names them
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                      and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        readers += [f"{name}:{s.lineno}" for s in strings
                    if id(s) not in docstrings and (s.value in variables or s.value in folders)]
    assert readers == []


def test_file_locks_go_through_filelock():
    """No raw fcntl/msvcrt lock (which ran unlocked on Windows): every lock is a filelock.FileLock."""
    raw = [f"{name}: {alias.name}" for name, path in modules().items()
           for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
           if isinstance(node, ast.Import) for alias in node.names if alias.name in ("fcntl", "msvcrt")]
    assert raw == []


def test_a_held_import_lock_names_its_holder(tmp_path: Path):
    from wfctl.runs.journal import ImportLock, RunLocked

    header = {"kind": "site", "path": "/data/s.csv", "target": "http://x", "parent": "c1"}
    with ImportLock(str(tmp_path), header):
        with pytest.raises(RunLocked) as refused, ImportLock(str(tmp_path), header):
            pass
        assert str(refused.value) == f"another run of this import is in progress (pid {os.getpid()})"
    with ImportLock(str(tmp_path), header):  # released: taken again
        pass


def test_a_profile_names_its_journals_folder_as_it_names_its_token_file(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    from wfctl.fsutil import file_name_for
    from wfctl.runs.journal import runs_dir

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    runs = tmp_path / "wfctl" / "runs"
    for profile in ("default", "prod_eu", "prod/eu", "Prod", "équipe"):
        assert runs_dir(profile) == str(runs / file_name_for(profile))
    assert len({runs_dir(p) for p in ("prod_eu", "prod/eu", "Prod", "prod", "PROD")}) == 5
    # a folder an earlier version made (`Prod`, `prod_2f_eu`) keeps its runs while it is the only one
    (runs / "Prod").mkdir(parents=True)
    (runs / "prod_2f_eu").mkdir()
    assert (runs_dir("Prod"), runs_dir("prod/eu")) == (str(runs / "Prod"), str(runs / "prod_2f_eu"))
    (runs / "%50rod").mkdir()
    assert runs_dir("Prod") == str(runs / "%50rod")


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_state_kept_where_an_earlier_version_put_it_stays_in_use(platform: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    """macOS and Windows: platformdirs' folders, except that journals an earlier version kept under
    ~/.local/state/wfctl stay found (resumable, undoable) until the new folder holds runs."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in XDG:
        monkeypatch.delenv(name, raising=False)
    native = tmp_path / "native"
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(dirs, "platform_dir", lambda kind: native / kind)
    assert (dirs.config_dir(), dirs.state_dir(), dirs.cache_dir()) == (native / "config", native / "state",
                                                                       native / "cache")
    (tmp_path / ".local" / "state" / "wfctl" / "runs").mkdir(parents=True)
    assert dirs.state_dir() == tmp_path / ".local" / "state" / "wfctl"
    (native / "state" / "runs").mkdir(parents=True)
    assert dirs.state_dir() == native / "state"
