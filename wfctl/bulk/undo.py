"""Runs after the fact: `wfctl imports list|show|undo|prune` read the journals of one profile
(`wfctl.bulk.journal`) and take a run back.

An undo deletes what a run created and puts back the values its updates replaced, newest row first.
It is a run of its own, journalled like an import (its header names the run it takes back in
`undo`; its rows keep the run's row numbers), so a killed undo resumes where it stopped, and each
row is checked against the service before anything is written:

- a record that is no longer there is `gone` (nothing to do: it counts as undone);
- a record whose values are no longer those the run left is `changed` (since the run) and left
  alone, unless `force`;
- a record the service refuses to delete (409: a client that now has sites) is `failed`;
- anything else is `undone`: deleted, or its old values restored.

A row settled by an earlier undo (`undone` or `gone`) is not taken back twice, so undoing a run again
changes nothing.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.records import LIST_FIELDS
from wfctl.bulk import journal
from wfctl.bulk.journal import SENDING, Entry
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode

UNDONE, GONE, CHANGED, FAILED = "undone", "gone", "changed", "failed"
#: The rows of an undo that need no more work.
SETTLED = frozenset({UNDONE, GONE})
#: What an undo does to a row of each status (other rows changed nothing).
ACTION_FOR = {"created": "delete", "updated": "restore"}
#: The counts of an undo run, in the order a summary says them.
UNDO_COUNTS = ("deleted", "restored", "gone", "changed", "failed")
IMPORT_COUNTS = ("created", "updated", "unchanged", "skipped", "failed")
_LABELS = {"deleted": "deleted", "restored": "restored", "gone": "already gone",
           "changed": "changed since the run", "failed": "failed"}
_PLAN_LABELS = {"deleted": "to delete", "restored": "to restore", "gone": "already gone",
                "changed": "changed since the run", "failed": "cannot undo"}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class RunNotFound(CliError):
    """No run (exit 4), or several (exit 2), go by the id given."""


@dataclass
class Run:
    """One journal of the profile: an import run, or an undo run (`undo_of` is then set)."""

    path: str
    header: dict[str, Any]
    finished: bool
    state: str = ""
    _read: tuple[dict[int, Entry], dict[str, Any] | None] | None = field(default=None, repr=False)

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

    def entries(self) -> dict[int, Entry]:
        return self._load()[0]

    @property
    def counts(self) -> dict[str, int]:
        """The counts of the end line, or (a run that did not finish) of its rows so far."""
        end = _end_line(self.path) if self.finished else None
        if end is not None and isinstance(end.get("counts"), dict):
            return {str(k): int(v) for k, v in end["counts"].items() if isinstance(v, int)}
        if self.undo_of:
            return _undo_counts(self.entries(), None)
        return dict(Counter(entry.status for entry in self.entries().values()))

    def summary(self) -> dict[str, Any]:
        """The run as `imports list -o json` and `imports show -o json` give it."""
        return {"run": self.id, "kind": self.kind, "file": self.header.get("path") or None,
                "profile": self.header.get("profile"), "target": self.header.get("target"),
                "started": self.started or None, "counts": self.counts, "state": self.state,
                "undo": self.undo_of}

    def _load(self) -> tuple[dict[int, Entry], dict[str, Any] | None]:
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
    for path in journal.list_journals(directory):
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
    return runs


def profile_runs(profile: str) -> list[Run]:
    """The runs of `profile` (see `load_runs`)."""
    return load_runs(journal.runs_dir(profile))


def find_profile_run(profile: str, wanted: str) -> Run:
    """The run `wanted` of `profile`; none (or several) is a CliError, exit 4 (2)."""
    return find_run(profile_runs(profile), wanted)


def find_run(runs: list[Run], wanted: str) -> Run:
    """The run whose id is `wanted`, or the one run whose id starts with it."""
    for run in runs:
        if run.id == wanted:
            return run
    matches = [run for run in runs if wanted and run.id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise RunNotFound(f"{wanted!r} names {len(matches)} runs ({', '.join(r.id for r in matches[:5])}); "
                          "give more of the id")
    raise RunNotFound(f"no run {wanted!r} in this profile (`wfctl imports list` shows the runs)",
                      ExitCode.NOT_FOUND)


def heading(run: Run) -> str:
    """`run <id>  site import  sites.csv  started <when>  complete`, the first line of `imports show`."""
    from wfctl.safetext import one_line

    what = f"{run.kind} undo of run {run.undo_of}" if run.undo_of else f"{run.kind} import"
    parts = [f"run {run.id}", what, str(run.header.get("path") or "") if not run.undo_of else "",
             f"started {run.started}" if run.started else "", run.state]
    return one_line("  ".join(part for part in parts if part)) + "\n"


def count_lines(counts: dict[str, int], undo: bool, *, planned: bool = False) -> str:
    """The counts as `label<TAB>count` lines: the last lines of `imports show` and of an undo plan."""
    if undo:
        pairs = summary_parts(counts, planned=planned)
    else:
        pairs = [(name, counts.get(name, 0)) for name in IMPORT_COUNTS]
        pairs += [(name, count) for name, count in counts.items() if name not in IMPORT_COUNTS and count]
    return "".join(f"{label}\t{count}\n" for label, count in pairs)


def parse_age(text: str) -> float:
    """Seconds in `30d`, `12h`, `90m`, `2w`, `45s` (ValueError otherwise)."""
    value = text.strip().lower()
    if len(value) < 2 or value[-1] not in _UNITS or not value[:-1].isdigit():
        raise ValueError(f"{text!r} is not an age like 30d, 12h, 90m, 2w")
    return int(value[:-1]) * _UNITS[value[-1]]


def prunable(runs: Iterable[Run], older_than: float, now: float) -> list[Run]:
    """The runs that started more than `older_than` seconds before `now` and are not running."""
    return [run for run in runs if run.state != "running" and run.timestamp < now - older_than]


# -- undo ----------------------------------------------------------------------------------------

@dataclass
class UndoPlan:
    """What an undo of `run` still has to do: `pending` rows of the run, newest first."""

    run: Run
    directory: str
    header: dict[str, Any]  # the undo run's header (an unfinished undo's, when it resumes)
    pending: list[Entry]
    undoable: int  # rows of the run that changed something
    resume_path: str | None = None
    resumed: dict[int, Entry] = field(default_factory=dict)
    undone_by: list[str] = field(default_factory=list)  # earlier finished undo runs

    @property
    def deletes(self) -> int:
        return sum(1 for e in self.pending if e.status == "created")

    @property
    def restores(self) -> int:
        return sum(1 for e in self.pending if e.status == "updated")

    @property
    def run_id(self) -> str:
        return str(self.header.get("run", ""))


def plan_undo(run: Run, runs: list[Run], profile: str) -> UndoPlan:
    """The rows of `run` not yet taken back by an earlier undo, and the journal to record this one in."""
    directory = os.path.dirname(run.path)
    header = {key: run.header.get(key) for key in ("kind", "file", "path", "target", "parent", "onExisting")}
    header.update(run=journal.new_run_id(), nonce=os.urandom(8).hex(), profile=profile, started=_now(),
                  undo=run.id)
    settled: set[int] = set()
    earlier = []
    for other in runs:
        if other.undo_of == run.id and other.finished:
            earlier.append(other.id)
            settled.update(row for row, e in other.entries().items() if e.status in SETTLED)
    resume_path = journal.find_unfinished(directory, header)
    resumed: dict[int, Entry] = {}
    if resume_path is not None:
        header, resumed, _ = journal.read(resume_path)
        header = {k: v for k, v in header.items() if k != "journal"}
        settled.update(row for row, e in resumed.items() if e.status in SETTLED)
    rows = [e for _, e in sorted(run.entries().items(), reverse=True) if e.status in ACTION_FOR or e.status == SENDING]
    pending = [e for e in rows if e.row not in settled]
    return UndoPlan(run, directory, header, pending, len(rows), resume_path, resumed, earlier)


class Undoer:
    """Takes back the rows of one run on the service (`api`: a wfctl Client)."""

    def __init__(self, api: Any, kind: str, *, force: bool = False, header: dict[str, Any] | None = None) -> None:
        self.api = api
        self.kind = kind
        self.force = force
        self.header = header or {}  # the header of the run taken back (its nonce, file, parent)
        self.parent = str(self.header.get("parent") or "")

    def preview(self, entry: Entry) -> Entry:
        """What `undo` would do to the row, written nothing: status deleted/restored/changed/gone/failed."""
        return self._take_back(entry, None)

    def undo(self, entry: Entry, undo_journal: journal.Journal) -> Entry:
        """Take back one row, recording its intent and outcome in `undo_journal`; returns the outcome."""
        outcome = self._take_back(entry, undo_journal)
        undo_journal.record(outcome.row, outcome.status, outcome.id, outcome.error, outcome.name, outcome.changes)
        return outcome

    # -- private -------------------------------------------------------------------------------

    def _take_back(self, entry: Entry, log: journal.Journal | None) -> Entry:
        from wfctl.api.errors import ApiError, NotFound

        row = entry.row
        if entry.status == SENDING:
            settled = self._in_flight(entry, log)
            if settled.status not in ACTION_FOR:
                return settled
            entry = settled
        if not entry.id:
            return Entry(row, FAILED, "", "the run recorded no id for this row", entry.name)
        # A row whose intent the killed undo wrote may have been done by it: then it is ours.
        ours = log is not None and log.was_sending(row)
        try:
            current = self.api.get_record(self.kind, entry.id)
        except NotFound:
            return Entry(row, UNDONE if ours else GONE, entry.id, "", entry.name)
        except ApiError as exc:
            _stop_on_run_wide(exc)
            return Entry(row, FAILED, entry.id, exc.one_line(), entry.name)
        name = entry.name or str(current.get("name") or "")
        if entry.status == "created":
            return self._delete(entry, current, name, log)
        return self._restore(entry, current, name, log)

    def _in_flight(self, entry: Entry, log: journal.Journal | None) -> Entry:
        """What a row that the run was sending when it stopped did. An update's intent carries its id
        and changes: it is taken back as an update (restored already when it was not applied). A create
        is sent again with the run's Idempotency-Key: the service replays the answer of a create it
        applied (that record is the run's), or applies it now (then this undo deletes it again). A
        preview sends nothing: it looks the record up by its natural key."""
        from wfctl.api.errors import ApiError, Conflict

        row = entry.row
        if entry.changes and entry.id:
            return Entry(row, "updated", entry.id, "", entry.name, entry.changes)
        if entry.body is None:
            return Entry(row, FAILED, entry.id, "the run stopped before this row's answer arrived, and its journal "
                         "(written by an older wfctl) does not say what was sent: check the record by hand", entry.name)
        parent = entry.parent or self.parent or None
        key = journal.idempotency_key(self.header, self.kind, parent, row)
        try:
            if log is None:
                found = self.api.find_same(self.kind, parent, entry.body)
                if found is None:
                    return Entry(row, GONE, "", "", entry.name)
                return Entry(row, "created", str(found.get("id", "")), "", entry.name, left=found)
            log.intend(row)
            record, replayed = self.api.resend_create(self.kind, parent, entry.body, key)
        except Conflict:
            return Entry(row, FAILED, "", f"the run stopped before this row's answer arrived, and a {self.kind} "
                         f"named {entry.name!r} exists that this deployment cannot say was the run's: "
                         "check it by hand", entry.name)
        except ApiError as exc:
            _stop_on_run_wide(exc)
            return Entry(row, FAILED, "", exc.one_line(), entry.name)
        record_id = str(record.get("id") or "")
        if replayed or not record_id:
            return Entry(row, "created", record_id, "", entry.name, left=record)
        try:  # the killed run's create never arrived: the one just made goes again at once
            getattr(self.api, f"delete_{self.kind}")(record_id)
        except ApiError as exc:
            _stop_on_run_wide(exc)
            return Entry(row, FAILED, record_id, exc.one_line(), entry.name)
        return Entry(row, GONE, record_id, "", entry.name)

    def _delete(self, entry: Entry, current: dict[str, Any], name: str, log: journal.Journal | None) -> Entry:
        from wfctl.api.records import changed_fields, changed_since

        given = {key: pair[1] for key, pair in entry.changes.items()}
        if entry.left is not None:  # the whole record as the run left it: any later change counts
            left = entry.left
            differs = changed_since(left, current, self.kind)
        else:  # a journal of an older wfctl: the fields the run gave
            left = given
            differs = list(changed_fields(current, left))
        if differs and not self.force:
            return self._changed(entry, differs, left, current, name, "deletes")
        removed = {key: [current.get(key), None] for key in (given or left) if key != "id"}
        return self._apply(entry, name, removed, "deleted", log,
                           lambda: getattr(self.api, f"delete_{self.kind}")(entry.id))

    def _restore(self, entry: Entry, current: dict[str, Any], name: str, log: journal.Journal | None) -> Entry:
        """Put back what the run's update replaced: each scalar field the run changed, and of each list the
        entries it added, removed or changed (everyone else's later entries stay)."""
        from wfctl.api.records import left_as_run_left, restore_list

        pairs = {key: (_restorable(key, pair[0]), pair[1]) for key, pair in entry.changes.items()}
        if all(left_as_run_left(key, new, old, current.get(key)) for key, (old, new) in pairs.items()):
            # restored already (by a killed undo, by hand, or an update the run never got to apply)
            return Entry(entry.row, UNDONE if log is not None else "restored", entry.id, "", name)
        differs = [key for key, (old, new) in pairs.items() if not left_as_run_left(key, old, new, current.get(key))]
        if differs and not self.force:
            return self._changed(entry, differs, {key: new for key, (_, new) in pairs.items()}, current, name,
                                 "overwrites")

        def restored(record: dict[str, Any]) -> dict[str, Any]:
            return {key: restore_list(key, old, new, record.get(key)) if key in LIST_FIELDS else old
                    for key, (old, new) in pairs.items()}

        shown = {key: [current.get(key), value] for key, value in restored(current).items()}
        return self._apply(entry, name, shown, "restored", log,
                           lambda: self.api.update_record(self.kind, entry.id, restored, current=current,
                                                          settle=False))

    def _apply(self, entry: Entry, name: str, changes: dict[str, list[Any]], planned: str,
               log: journal.Journal | None, send: Callable[[], object]) -> Entry:
        """Send one row's undo, its intent journalled first; a preview (no journal) says what it would do."""
        from wfctl.api.errors import ApiError, NotFound

        if log is None:
            return Entry(entry.row, planned, entry.id, "", name, changes)
        log.intend(entry.row)
        try:
            send()
        except NotFound:
            return Entry(entry.row, GONE, entry.id, "", name)
        except ApiError as exc:
            _stop_on_run_wide(exc)
            return Entry(entry.row, FAILED, entry.id, exc.one_line(), name)
        return Entry(entry.row, UNDONE, entry.id, "", name, changes)

    def _changed(self, entry: Entry, differs: list[str], left: dict[str, Any], current: dict[str, Any], name: str,
                 verb: str) -> Entry:
        """A `changed` outcome: the record no longer holds what the run `left` there in `differs`."""
        changes = {key: [left.get(key), current.get(key)] for key in differs}
        return Entry(entry.row, CHANGED, entry.id, f"changed since the run ({', '.join(differs)}); --force {verb} "
                     "it anyway", name, changes)


#: Rows taken back at once by an undo (16 in flight: rows of different records are independent).
UNDO_CONCURRENCY = 16


def run_undo(plan: UndoPlan, undoer: Undoer, on_row: Callable[[Entry], None], *,
             concurrency: int = UNDO_CONCURRENCY) -> dict[str, int]:
    """Take back every pending row under the run's locks, journalled; returns the counts of this undo run
    (rows settled by the journal it resumes included).

    Rows of different records are independent: up to `concurrency` are sent at once. The rows of one
    record are taken back one after the other, newest first (as a single undo would). `on_row` is called
    in the calling thread, once per row, as each is done. An error every further row would meet too (the
    login, the network) stops the undo: rows in flight finish and are journalled, the others are not
    started, and the journal stays resumable."""
    with journal.ImportLock(plan.directory, plan.header), journal.ImportLock(plan.directory, plan.run.header):
        if not plan.run.finished:
            _close(plan.run)
        if plan.resume_path is not None:
            log = journal.Journal(plan.resume_path, plan.header, dict(plan.resumed))
        else:
            log = journal.Journal(journal.journal_path(plan.directory, plan.run_id), plan.header)
        counts: dict[str, int] | None = None
        try:
            _take_back_all(plan.pending, undoer, log, on_row, max(1, concurrency))
            counts = _undo_counts(log.entries, plan.run.entries())
        finally:
            log.finish(counts)  # None (stopped): the journal stays resumable
    assert counts is not None
    return counts


def _take_back_all(pending: list[Entry], undoer: Undoer, log: journal.Journal, on_row: Callable[[Entry], None],
                   concurrency: int) -> None:
    """`undoer.undo` of each of `pending`, the rows of one record in order, `concurrency` records at once."""
    import queue
    import threading

    if concurrency == 1 or len(pending) < 2:
        for entry in pending:
            on_row(undoer.undo(entry, log))
        return
    groups: dict[str, list[Entry]] = {}
    for entry in pending:  # newest first within each record, as `pending` is
        groups.setdefault(entry.id or f"row {entry.row}", []).append(entry)
    work: queue.SimpleQueue[list[Entry] | None] = queue.SimpleQueue()
    for group in groups.values():
        work.put(group)
    done: queue.SimpleQueue[Entry | BaseException] = queue.SimpleQueue()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            group = work.get()
            if group is None:
                return
            for entry in group:
                if stop.is_set():
                    return
                try:
                    outcome = undoer.undo(entry, log)
                except BaseException as exc:  # a run-wide error, or the journal failing: stop every worker
                    stop.set()
                    done.put(exc)
                    return
                done.put(outcome)

    threads = [threading.Thread(target=worker, name=f"wfctl-undo-{i}", daemon=True)
               for i in range(min(concurrency, len(groups)))]
    for _ in threads:
        work.put(None)
    for thread in threads:
        thread.start()
    failure: BaseException | None = None
    try:
        reported = 0
        while reported < len(pending):
            try:
                item = done.get(timeout=0.2)  # a short wait: Ctrl-C is seen at once
            except queue.Empty:
                if not any(thread.is_alive() for thread in threads) and done.empty():
                    break
                continue
            if isinstance(item, BaseException):
                failure = failure or item
                break
            reported += 1
            on_row(item)
    except BaseException:  # Ctrl-C: no row starts after it; those in flight end and are journalled
        stop.set()
        _join(threads)
        raise
    stop.set()
    _join(threads)
    while True:  # rows that ended while the others stopped: reported, as journalled
        try:
            item = done.get_nowait()
        except queue.Empty:
            break
        if isinstance(item, BaseException):
            failure = failure or item
        else:
            on_row(item)
    if failure is not None:
        raise failure


def _join(threads: list[Any]) -> None:
    for thread in threads:
        thread.join()


def count_outcomes(outcomes: Iterable[Entry], run_entries: dict[int, Entry]) -> dict[str, int]:
    """The counts of outcome entries (a preview's statuses, or an undo's), as UNDO_COUNTS names them."""
    return _undo_counts({e.row: e for e in outcomes}, run_entries)


def summary_parts(counts: dict[str, int], *, planned: bool = False) -> list[tuple[str, int]]:
    """(label, count) of each count, in order: `to delete`/`deleted`, ..."""
    labels = _PLAN_LABELS if planned else _LABELS
    return [(labels[key], counts.get(key, 0)) for key in UNDO_COUNTS]


def summary_line(plan: UndoPlan, counts: dict[str, int], kind: str) -> str:
    """`undo run <id> of run <run>: deleted 3 sites, restored 2, 1 changed since the run`."""
    from wfctl.output import plural
    from wfctl.safetext import one_line

    parts = []
    if counts.get("deleted"):
        parts.append(f"deleted {plural(kind, counts['deleted'])}")
    if counts.get("restored"):
        parts.append(f"restored {counts['restored']}" if parts else f"restored {plural(kind, counts['restored'])}")
    parts.extend(f"{counts[key]} {_LABELS[key]}" for key in ("gone", "changed", "failed") if counts.get(key))
    return one_line(f"undo run {plan.run_id} of run {plan.run.id}: {', '.join(parts) or 'nothing to do'}")


def question(plan: UndoPlan, kind: str) -> str:
    """`Undo run <run>: delete 3 sites, restore 2? [y/N] `."""
    from wfctl.output import plural

    parts = []
    if plan.deletes:
        parts.append(f"delete {plural(kind, plan.deletes)}")
    if plan.restores:
        parts.append(f"restore {plan.restores}" if parts else f"restore {plural(kind, plan.restores)}")
    rest = len(plan.pending) - plan.deletes - plan.restores
    if rest:
        parts.append(f"{rest} row{'s' if rest != 1 else ''} of unknown outcome")
    return f"Undo run {plan.run.id}: {', '.join(parts)}? [y/N] "


def unsettled(counts: dict[str, int]) -> int:
    """Rows an undo could not take back (changed since the run, or failed)."""
    return counts.get(CHANGED, 0) + counts.get(FAILED, 0)


# -- private ---------------------------------------------------------------------------------------

def _undo_counts(entries: dict[int, Entry], run_entries: dict[int, Entry] | None) -> dict[str, int]:
    counts = dict.fromkeys(UNDO_COUNTS, 0)
    for row, entry in entries.items():
        status = entry.status
        if status == UNDONE:
            original = run_entries.get(row) if run_entries is not None else None
            restored = original.status == "updated" if original is not None else bool(entry.changes) and all(
                pair[1] is not None for pair in entry.changes.values())
            status = "restored" if restored else "deleted"
        if status in counts:
            counts[status] += 1
    return counts


def _close(run: Run) -> None:
    """End an unfinished run's journal: once undone, running its import again starts afresh instead of
    resuming it (and skipping rows whose records the undo deleted)."""
    header = {k: v for k, v in run.header.items() if k != "journal"}
    entries = run.entries()
    journal.Journal(run.path, header, dict(entries)).finish(dict(Counter(e.status for e in entries.values())))
    run.finished = True


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


def _restorable(key: str, value: Any) -> Any:
    """An old value as an update body can carry it: nothing at all is an empty string or list (the
    service refuses null)."""
    if value is not None:
        return value
    from wfctl.api.records import LIST_FIELDS

    if key in LIST_FIELDS:
        return []
    return False if key == "assessmentRequired" else ""


def _stop_on_run_wide(exc: Exception) -> None:
    """Errors that every further row would meet too stop the undo (it resumes when run again)."""
    from wfctl.api.errors import NetworkError, NotLoggedIn

    if isinstance(exc, NotLoggedIn | NetworkError):
        raise exc


def _now() -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
