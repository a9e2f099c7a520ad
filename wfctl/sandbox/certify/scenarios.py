"""Scenarios: what a certification plays to the program, as data (docs/sandbox.md, "Certifying a client").

    scenarios = load_scenarios("standard")          # the set shipped in standard.json
    scenarios = load_scenarios("my-scenarios.json") # a file of the same form

A scenario file is JSON: `{"scenarios": [{...}, ...]}`, each scenario

    {"name": "throttled",                      # unique; [a-z0-9-]
     "about": "429 bursts with Retry-After",   # one line for the report
     "quirks": ["next-page=int"],              # as `wfctl sandbox serve --quirk` spells them
     "faults": {                               # all optional
         "throttle": {"at": [3, 4], "retry_after": 1},     # these requests (1-based, every path) get 429
         "unavailable": {"at": [5, 6], "retry_after": 1},  # these get 503 (a window)
         "fail_write": {"nth": 1},             # the Nth write (POST/PUT/DELETE of /api/) gets 500, not applied
         "drop_refresh_answer": {"nth": 1},    # the Nth refresh is applied and its answer lost
         "expire_access_after": 4,             # after the 4th request, every access token issued has expired
         "foreign_next_page": true},           # the first page's nextPage names another origin
     "exit": "zero"}                           # "zero": the program must exit 0; "any": its exit is not graded

Every check runs in every scenario (a check with nothing to judge holds).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from wfctl.sandbox.quirks import parse_quirks

STANDARD = "standard"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_FAULTS = {"throttle", "unavailable", "fail_write", "drop_refresh_answer", "expire_access_after", "foreign_next_page"}


class ScenarioError(Exception):
    """A scenario file the certification cannot play: one line."""


@dataclass(frozen=True)
class Window:
    at: tuple[int, ...] = ()
    retry_after: int = 1


@dataclass(frozen=True)
class Faults:
    throttle: Window = field(default_factory=Window)
    unavailable: Window = field(default_factory=Window)
    fail_write: int = 0
    drop_refresh_answer: int = 0
    expire_access_after: int = 0
    foreign_next_page: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    quirks: tuple[str, ...] = ()
    faults: Faults = field(default_factory=Faults)
    exit: str = "zero"


def load_scenarios(source: str) -> list[Scenario]:
    """`standard`, or the path of a scenario file. ScenarioError (one line) for anything it cannot play."""
    if source == STANDARD:
        text = resources.files("wfctl.sandbox.certify").joinpath("standard.json").read_text(encoding="utf-8")
        where = "the standard scenarios"
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"{source}: {(exc.strerror or str(exc)).lower()}") from None
        where = source
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ScenarioError(f"{where}: not JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("scenarios"), list) or not document["scenarios"]:
        raise ScenarioError(f'{where}: a scenario file is {{"scenarios": [...]}} with at least one')
    scenarios = [_scenario(item, where, number) for number, item in enumerate(document["scenarios"], 1)]
    names = [s.name for s in scenarios]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ScenarioError(f"{where}: scenario names appear twice: {', '.join(twice)}")
    return scenarios


def _scenario(item: Any, where: str, number: int) -> Scenario:
    def bad(why: str) -> ScenarioError:
        return ScenarioError(f"{where}: scenario {number}: {why}")

    if not isinstance(item, dict):
        raise bad("is not an object")
    unknown = set(item) - {"name", "about", "quirks", "faults", "exit"}
    if unknown:
        raise bad(f"unknown keys {', '.join(sorted(unknown))}")
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise bad("needs a name of lowercase letters, digits and dashes")
    quirks = item.get("quirks", [])
    try:
        parse_quirks(quirks)
    except (ValueError, TypeError) as exc:
        raise bad(str(exc)) from None
    if item.get("exit", "zero") not in ("zero", "any"):
        raise bad('exit is "zero" or "any"')
    faults = item.get("faults", {})
    if not isinstance(faults, dict) or set(faults) - _FAULTS:
        raise bad(f"faults are an object of {', '.join(sorted(_FAULTS))}")
    try:
        played = Faults(throttle=_window(faults.get("throttle")), unavailable=_window(faults.get("unavailable")),
                        fail_write=_count(faults.get("fail_write", {}), "nth"),
                        drop_refresh_answer=_count(faults.get("drop_refresh_answer", {}), "nth"),
                        expire_access_after=_whole(faults.get("expire_access_after", 0)),
                        foreign_next_page=bool(faults.get("foreign_next_page", False)))
    except (ValueError, TypeError) as exc:
        raise bad(f"faults: {exc}") from None
    return Scenario(name=name, about=str(item.get("about", "")), quirks=tuple(quirks), faults=played,
                    exit=item.get("exit", "zero"))


def _window(value: Any) -> Window:
    if value is None:
        return Window()
    if not isinstance(value, dict) or not isinstance(value.get("at"), list):
        raise ValueError('a window is {"at": [request numbers], "retry_after": seconds}')
    return Window(at=tuple(_whole(n) for n in value["at"]), retry_after=_whole(value.get("retry_after", 1)))


def _count(value: Any, key: str) -> int:
    if not isinstance(value, dict):
        raise ValueError(f'{{"{key}": N}} expected')
    return _whole(value.get(key, 0))


def _whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{value!r} is not a whole number")
    return value
