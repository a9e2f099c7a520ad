"""UK bank holidays of a division, from the `holidays` library (offline; its UK rules and the one-off
holidays it lists), imported only when a row needs them and remembered in a small cache file.

Importing the library's UK calendar (`python -X importtime` says how long) takes longer than a whole
`calendar weeks` over a warm agency cache, so the days it gives are kept in a JSON file
(`cache`, the CLI's cache folder) keyed by the library's file: an upgrade of the library is a new key.
Nothing at startup imports this module: `wfctl --version`, `--help` and Tab never pay for it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: The divisions GOV.UK's bank holidays are published for, and the library's subdivision of each.
DIVISIONS = {"england-and-wales": "ENG", "scotland": "SCT", "northern-ireland": "NIR"}
DEFAULT_DIVISION = "england-and-wales"


class BankHolidays:
    """The bank holidays of one division over some years: `names(day)` and `is_holiday(day)`."""

    def __init__(self, division: str, years: Iterable[int], cache: Path | None = None) -> None:
        if division not in DIVISIONS:
            from wfctl.payroll.calendar import CalendarError

            raise CalendarError(f"--division {division!r}: one of {', '.join(DIVISIONS)}")
        self.division = division
        wanted = sorted(set(years))
        self._days: dict[dt.date, str] = {}
        if wanted:
            self._days = _load(division, wanted[0], wanted[-1], cache)

    def names(self, day: dt.date) -> str | None:
        return self._days.get(day)

    def is_holiday(self, day: dt.date) -> bool:
        return day in self._days

    def between(self, first: dt.date, last: dt.date) -> list[tuple[dt.date, str]]:
        """The bank holidays from `first` to `last` (both included), in order."""
        return sorted((day, name) for day, name in self._days.items() if first <= day <= last)


def preload() -> None:
    """Import the library's UK calendar (in a thread while the agency is read: a first run overlaps the two)."""
    with contextlib.suppress(ImportError):
        import holidays.countries.united_kingdom  # noqa: F401


def _library_key() -> str | None:
    """What changes when the library is upgraded: its UK file's path, size and time (no import)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("holidays")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    uk = Path(spec.origin).parent / "countries" / "united_kingdom.py"
    try:
        st = uk.stat()
    except OSError:
        return None
    return f"{uk}:{st.st_size}:{st.st_mtime_ns}"


def _load(division: str, first: int, last: int, cache: Path | None) -> dict[dt.date, str]:
    key = _library_key()
    if key is None:
        from wfctl.payroll.calendar import CalendarError

        raise CalendarError("bank holidays need the holidays library (pip install holidays), a dependency of wfctl")
    name = f"{division}:{first}-{last}"
    kept = _read(cache) if cache is not None else {}
    if kept.get("library") == key and name in kept.get("days", {}):
        return {dt.date.fromisoformat(day): text for day, text in kept["days"][name].items()}
    days = _compute(division, first, last)
    if cache is not None:
        saved: dict[str, Any] = kept if kept.get("library") == key else {"library": key, "days": {}}
        entries = saved.setdefault("days", {})
        if len(entries) >= 32:  # a cache, not a log: the last few ranges asked
            entries.clear()
        entries[name] = {day.isoformat(): text for day, text in sorted(days.items())}
        _write(cache, saved)
    return days


def _compute(division: str, first: int, last: int) -> dict[dt.date, str]:
    from holidays.countries.united_kingdom import UnitedKingdom

    found = UnitedKingdom(subdiv=DIVISIONS[division], years=range(first, last + 1))
    return {day: str(text) for day, text in found.items()}


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: dict[str, Any]) -> None:
    """Best effort (a cache): written whole (wfctl.fsutil's one atomic write), or not at all."""
    from wfctl.fsutil import LocalWriteError, write_private_file

    with contextlib.suppress(LocalWriteError, OSError):
        write_private_file(path, json.dumps(data, separators=(",", ":")).encode("utf-8"))
