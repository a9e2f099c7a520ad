"""The help index: where it is kept, what it is keyed by, and `--help` answered from it (stdlib only).

Importing typer alone takes longer than a person waits for a Tab press, so `wfctl --help`, every
`wfctl <command>... --help` and every completion request are answered from an index instead (see
wfctl.cmdline.startup, which dispatches): the help text of every command and the completion tree, both generated
from the Typer app itself (wfctl.cmdline.indexbuilder), kept in the user's cache and keyed by wfctl's version, the
newest mtime under the package and the Python environment, and laid out for the terminal's width (80 to
120 columns: another width builds it again). What it holds from the config file, the profiles `-p <TAB>`
offers, is keyed by that file's stamp and read again when the file changes (no help text depends on the
config). A request the index cannot answer exactly as click would (read from the one walk of the command
line, wfctl.cmdline.argv) raises NotIndexed, and Typer answers it. The completion answer is wfctl.cmdline.completeanswer.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from wfctl.cmdline.argv import VALUE_LIKE_OPTION

if TYPE_CHECKING:
    from wfctl.cmdline.argv import CommandLine

INDEX_FORMAT = 1
HELP_WIDTH = 80  # the index holds help laid out for a terminal of 80 columns or more (narrower: Typer)
HELP_MAX_WIDTH = 120  # help uses the terminal's width up to this many columns (wfctl.cmdline.help_format)
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class NotIndexed(Exception):
    """The index cannot answer this request exactly as Typer would: Typer answers it."""


def index_path() -> str:
    from wfctl.dirs import cache_dir

    return os.path.join(cache_dir(), f"index-{_hash(sys.prefix)}.json")


def index_key() -> str:
    """What the index was built from: wfctl's version, the newest file under the package, the format."""
    from wfctl import __version__

    return f"{INDEX_FORMAT}|{__version__}|{_newest_mtime(_PACKAGE)}|{sys.prefix}"


def config_stamp() -> str:
    """The config file as it is now (its path, size and mtime): the key of what the index holds from it.
    Help holds nothing of it (a test builds the index under two configs); `-p <TAB>` lists its profiles."""
    from wfctl.dirs import config_file

    path = config_file()
    try:
        found = os.stat(path)
    except OSError:
        return f"{path}|-"
    return f"{path}|{found.st_size}|{found.st_mtime_ns}"


def config_section() -> dict[str, Any]:
    """What the index holds from the config file, read now: its profiles (name, service URL), as `-p <TAB>`
    offers them, and the stamp of the file they were read from (taken first: a write meanwhile is seen)."""
    from wfctl.cmdline.completion_cache import complete_profiles

    stamp = config_stamp()
    return {"stamp": stamp, "profiles": [list(item) for item in complete_profiles(None, "")]}


def profiles(index: dict[str, Any]) -> list[tuple[str, str]]:
    """The profiles of the config file, from the index while the file is as it was when they were read;
    read again (and the index stored with them) when it changed."""
    section = index.get("config")
    if not isinstance(section, dict) or section.get("stamp") != config_stamp():
        section = index["config"] = config_section()
        store_index(index)
    return [(str(name), str(url)) for name, url in section["profiles"]]


def store_index(index: dict[str, Any]) -> None:
    """Write the index (atomically; a cache that cannot be written only means it is built or read again)."""
    import json

    from wfctl.fsutil import write_private_file

    try:
        write_private_file(index_path(), json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    except OSError:
        return


def load_index() -> dict[str, Any] | None:
    import json

    try:
        with open(index_path(), encoding="utf-8") as handle:
            index = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(index, dict) or index.get("key") != index_key() or index.get("width") != help_width():
        return None  # built for another terminal width: built again for this one
    return index


def help_answer(index: dict[str, Any], line: CommandLine) -> tuple[str, int]:
    """`wfctl [options] <command>... --help` (or a bare `wfctl`): the help of the command named, found
    the way click parses (the one walk of the command line over the index's tree). Typer answers instead
    where click would first act on an option value (a callback, a value it could reject) of a command
    above the one asked about."""
    if _terminal_columns() < HELP_WIDTH:
        raise NotIndexed
    if not line.words:
        return index["help"][""] + "\n", 0
    walk = line.walk(index["tree"])
    asked = walk.help_at
    if asked is None or any(at < asked and why != VALUE_LIKE_OPTION for at, why in walk.problems):
        raise NotIndexed  # Typer says what is wrong with it
    given = [each for each in walk.options if each.index < asked]
    if any(each.option["callback"] for each in given):
        raise NotIndexed
    for depth in range(walk.help_depth):  # click processes the values of the commands above first
        _check_values(walk.levels[depth].node, {each.option["name"]: True if each.value is None else each.value
                                               for each in given if each.depth == depth})
    return index["help"][" ".join(walk.path[: walk.help_depth])] + "\n", 0


def _check_values(node: dict[str, Any], given: dict[str, Any]) -> None:
    """Raise NotIndexed unless click would accept the option values of `node` (a command above the
    one whose help is asked for, so click processes them first), environment variables included."""
    for param in node["params"]:
        if param["kind"] != "option":
            continue
        value = given.get(param["name"])
        for name in param["envvar"] if value is None else ():
            value = os.environ.get(name) or value
        if value is None or value is True:
            continue
        completes = param["completes"] or [None, None]
        if param["callback"] or not (param["plain"] or (completes[0] == "choices"
                                                        and value in completes[1]["values"])):
            raise NotIndexed


def help_width() -> int:
    """The width the index lays help out for: the terminal's, from HELP_WIDTH to HELP_MAX_WIDTH."""
    return max(HELP_WIDTH, min(_terminal_columns(), HELP_MAX_WIDTH))


def _terminal_columns() -> int:
    """The width click lays help out for: $COLUMNS, else the terminal's, else 80 (shutil's rule)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        if columns <= 0:
            columns = 80
    return columns


def _newest_mtime(top: str) -> int:
    newest = 0
    stack = [top]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
    return newest


def _hash(text: str) -> str:
    import zlib

    return format(zlib.crc32(text.encode()), "08x")
