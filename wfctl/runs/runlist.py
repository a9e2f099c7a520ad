"""The runs of one profile, found and summed up: `wfctl imports list|show|prune` read the journals
(`wfctl.runs.journal`) as `Run`s, each with its state and counts; `wfctl.runs.undo` takes one back.

The statuses and counts of an undo run live here too: a run's state (undone, partly undone) and its
counts are read from the undo runs that took it back.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wfctl.exit_codes import ExitCode
from wfctl.files.errors import RunNotFound as RunNotFound
from wfctl.runs import journal
from wfctl.runs.journal import Entry
from wfctl.runs.journalentry import Key
from wfctl.runs.session import list_journals

UNDONE, GONE, CHANGED, FAILED = "undone", "gone", "changed", "failed"
#: An undo's outcome for a record a prune deleted: made again, with a new id (issue 32).
RECREATED = "recreated"
#: The rows of an undo that need no more work.
SETTLED = frozenset({UNDONE, GONE, RECREATED})
#: What an undo does to a row of each status (other rows changed nothing).
ACTION_FOR = {"created": "delete", "updated": "restore", "deleted": "re-create"}
#: The counts of an undo run, in the order a summary says them.
UNDO_COUNTS = ("deleted", "restored", RECREATED, "gone", "changed", "failed")
IMPORT_COUNTS = ("created", "updated", "unchanged", "skipped", "failed")
COUNT_LABELS = {"deleted": "deleted", "restored": "restored", RECREATED: "re-created (new ids)", "gone": "already gone",
           "changed": "changed since the run", "failed": "failed"}
_PLAN_LABELS = {"deleted": "to delete", "restored": "to restore", RECREATED: "to re-create (new ids)",
                "gone": "already gone",
                "changed": "changed since the run", "failed": "cannot undo"}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass
class Run:
    """One journal of the profile: an import run, or an undo run (`undo_of` is then set)."""

    path: str
    header: dict[str, Any]
    finished: bool
    state: str = ""
    #: the finished undo runs that took this run back (all or some of it), newest first
    undone_by: list[str] = field(default_factory=list)
    _read: tuple[dict[Key, Entry], dict[str, Any] | None] | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return str(self.header.get("run") or os.path.basename(self.path).removesuffix(".journal"))

    @property
    def kind(self) -> str:
        return str(self.header.get("kind") or "")

    @property
    def undo_of(self) -> str | None:
        return str(self.header["undo"]) if self.header.get("undo") else None

    @property
    def started(self) -> str:
        return str(self.header.get("started") or "")

    @property
    def timestamp(self) -> float:
        """When the run started, in seconds since the epoch (the file's mtime when the header lacks it)."""
        started = self.header.get("started")
        if isinstance(started, int | float):
            return float(started)
        if isinstance(started, str) and started:
            from datetime import UTC, datetime

            try:
                when = datetime.fromisoformat(started.replace("Z", "+00:00"))
            except ValueError:
                pass
            else:
                return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()
        return _mtime(self.path) / 1e9

    def entries(self) -> dict[Key, Entry]:
        return self._load()[0]

    @property
    def counts(self) -> dict[str, int]:
        """The counts of the end line, or (a run that did not finish) of its rows so far."""
        end = _end_line(self.path) if self.finished else None
        if end is not None and isinstance(end.get("counts"), dict):
            return {str(k): int(v) for k, v in end["counts"].items() if isinstance(v, int)}
        if self.undo_of:
            return undo_counts(self.entries(), None)
        return dict(Counter(entry.status for entry in self.entries().values()))

    def summary(self) -> dict[str, Any]:
        """The run as `imports list -o json` and `imports show -o json` give it."""
        return {"run": self.id, "kind": self.kind, "file": self.header.get("path") or None,
                "profile": self.header.get("profile"), "target": self.header.get("target"),
                "started": self.started or None, "counts": self.counts, "state": self.state,
                "undo": self.undo_of, "undoneBy": self.undone_by[0] if self.undone_by else None,
                **({"note": str(self.note)} if self.note else {})}

    @property
    def note(self) -> str:
        """What the person who ran it said about it (`bans add --note`): kept in the journal only."""
        return str(self.header.get("note") or "")

    def _load(self) -> tuple[dict[Key, Entry], dict[str, Any] | None]:
        if self._read is None:
            _, entries, end = journal.read(self.path)
            self._read = (entries, end)
        return self._read


# -- finding runs --------------------------------------------------------------------------------

def load_runs(directory: str) -> list[Run]:
    """Every run in `directory`, newest first, each with its state: complete, incomplete (some rows
    failed), interrupted, running (its lock is held), undone or partly undone (a finished undo run took
    back all or some of it)."""
    runs = []
    for path in list_journals(directory):
        header = journal.header_of(path)
        if header is not None:
            runs.append(Run(path, header, journal.is_finished(path)))
    undone: dict[str, str] = {}
    for run in runs:
        if run.undo_of and run.finished:
            whole = not unsettled(run.counts)
            undone[run.undo_of] = "undone" if whole or undone.get(run.undo_of) == "undone" else "partly undone"
    for run in runs:
        if not run.finished and _locked(run):
            run.state = "running"
        elif not run.undo_of and run.id in undone:
            run.state = undone[run.id]
        elif run.finished:
            run.state = "complete"
        else:  # rows failed (a rerun retries them), or the run was stopped before its end
            run.state = "incomplete" if run.counts.get("failed") else "interrupted"
    runs.sort(key=lambda run: (run.timestamp, _mtime(run.path)), reverse=True)  # ties: within a second
    by_id = {run.id: run for run in runs}
    for run in runs:  # newest first, so each run's newest undo comes first
        if run.undo_of and run.finished and run.undo_of in by_id:
            by_id[run.undo_of].undone_by.append(run.id)
    return runs


def profile_runs(profile: str) -> list[Run]:
    """The runs of `profile` (see `load_runs`)."""
    return load_runs(journal.runs_dir(profile))


def find_profile_run(profile: str, wanted: str) -> Run:
    """The run `wanted` of `profile`; none (or several) is a RunNotFound, exit 4 (2)."""
    return find_run(profile_runs(profile), wanted)


def find_run(runs: list[Run], wanted: str) -> Run:
    """The run whose id is `wanted`, or the one run whose id, or whose id's part after its date (`397049` of
    `261206-397049`, the part that tells runs apart), starts with it."""
    for run in runs:
        if run.id == wanted:
            return run
    matches = [run for run in runs if wanted and (run.id.startswith(wanted)
                                                  or run.id.partition("-")[2].startswith(wanted))]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise RunNotFound(f"{wanted!r} names {len(matches)} runs ({', '.join(r.id for r in matches[:5])}); "
                          "give more of the id")
    raise RunNotFound(f"no run {wanted!r} in this profile (`wfctl imports list` shows the runs)",
                      ExitCode.NOT_FOUND)


def heading(run: Run) -> str:
    """`run <id>  site import  sites.csv  started <when>  complete` (a command's run: `run <id>  bans add
    W-1 --client Acme  started ...`), the first line of `imports show`, and the run's note on a line of its
    own when it has one."""
    from wfctl.text.safetext import one_line

    if run.undo_of:
        what = f"{run.kind} undo of run {run.undo_of}"
    elif run.header.get("command"):  # `bans add`, `rates set`: the path says the command and what it changed
        what = ""
    else:
        what = f"{run.kind} import"
    parts = [f"run {run.id}", what, str(run.header.get("path") or "") if not run.undo_of else "",
             f"started {run.started}" if run.started else "",
             f"{run.state} by run {run.undone_by[0]}" if run.undone_by else run.state]
    note = f"note: {one_line(run.note)}\n" if run.note else ""
    return one_line("  ".join(part for part in parts if part)) + "\n" + note


def count_lines(counts: dict[str, int], undo: bool, *, planned: bool = False) -> str:
    """The counts as `label  count` lines, the counts in a column (as a rate or ban plan's counts), the last lines
    of `imports show` and of an undo plan, on a terminal and in a pipe alike (a pipe got TABs; issue 49)."""
    if undo:
        pairs = summary_parts(counts, planned=planned)
    else:
        pairs = [(name, counts.get(name, 0)) for name in IMPORT_COUNTS]
        pairs += [(name, count) for name, count in counts.items() if name not in IMPORT_COUNTS and count]
    width = max((len(label) for label, _ in pairs), default=0)
    return "".join(f"{label:<{width}}  {count}\n" for label, count in pairs)


def parse_age(text: str) -> float:
    """Seconds in `30d`, `12h`, `90m`, `2w`, `45s` (ValueError otherwise)."""
    value = text.strip().lower()
    if len(value) < 2 or value[-1] not in _UNITS or not value[:-1].isdigit():
        raise ValueError(f"{text!r} is not an age like 30d, 12h, 90m, 2w")
    return int(value[:-1]) * _UNITS[value[-1]]


def prunable(runs: Iterable[Run], older_than: float, now: float) -> list[Run]:
    """The runs that started more than `older_than` seconds before `now` and are not running."""
    return [run for run in runs if run.state != "running" and run.timestamp < now - older_than]


def count_outcomes(outcomes: Iterable[Entry], run_entries: dict[Key, Entry]) -> dict[str, int]:
    """The counts of outcome entries (a preview's statuses, or an undo's), as UNDO_COUNTS names them."""
    return undo_counts({e.key: e for e in outcomes}, run_entries)


def summary_parts(counts: dict[str, int], *, planned: bool = False) -> list[tuple[str, int]]:
    """(label, count) of each count, in order: `to delete`/`deleted`, ...; `re-created` only when a prune's
    deletes were (the undo of a run without one says what it always said)."""
    labels = _PLAN_LABELS if planned else COUNT_LABELS
    return [(labels[key], counts.get(key, 0)) for key in UNDO_COUNTS if key != RECREATED or counts.get(key)]


def unsettled(counts: dict[str, int]) -> int:
    """Rows an undo could not take back (changed since the run, or failed)."""
    return counts.get(CHANGED, 0) + counts.get(FAILED, 0)



def undo_counts(entries: dict[Key, Entry], run_entries: dict[Key, Entry] | None) -> dict[str, int]:
    """The counts of an undo run's rows (`UNDO_COUNTS`): an `undone` row is `restored` when the run updated
    it, `deleted` when it created it (by its changes, when the run's rows are not at hand)."""
    counts = dict.fromkeys(UNDO_COUNTS, 0)
    for key, entry in entries.items():
        status = entry.status
        if status == UNDONE:
            original = run_entries.get(key) if run_entries is not None else None
            if original is not None and original.order:
                continue  # a rename cycle's temporary rename: one more step, not a row of the run
            restored = original.status == "updated" if original is not None else bool(entry.changes) and all(
                pair[1] is not None for pair in entry.changes.values())
            status = "restored" if restored else "deleted"
        if status in counts:
            counts[status] += 1
    return counts



# -- private ---------------------------------------------------------------------------------------

def _locked(run: Run) -> bool:
    """Whether a process holds the run's lock (it is running now)."""
    try:
        with journal.ImportLock(os.path.dirname(run.path), run.header):
            return False
    except journal.RunLocked:
        return True
    except OSError:
        return False


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _end_line(path: str) -> dict[str, Any] | None:
    import json

    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        end = json.loads(tail)
    except (OSError, ValueError):
        return None
    return end if isinstance(end, dict) and end.get("end") else None
