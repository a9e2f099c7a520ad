"""Runs after the fact: `wfctl imports list|show|undo|prune` read the journals of one profile
(`wfctl.runs.journal`) and take a run back.

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

This module plans an undo, builds its inverse plan of actions (one a record) and runs it on the one
executor (`wfctl.runs.engine`, records in parallel); finding runs and their counts live in
`wfctl.runs.runlist`, the per-row decisions in `wfctl.runs.undoer` (both re-exported here).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from wfctl.api.records.recordrules import natural_key
from wfctl.api.records.resources import counted
from wfctl.runs import journal
from wfctl.runs.engine import Executor, RunContext
from wfctl.runs.journal import SENDING, Entry
from wfctl.runs.journalentry import Key
from wfctl.runs.runlist import (
    ACTION_FOR,
    CHANGED,
    COUNT_LABELS,
    FAILED,
    GONE,
    IMPORT_COUNTS,
    SETTLED,
    UNDO_COUNTS,
    UNDONE,
    Run,
    RunNotFound,
    count_lines,
    count_outcomes,
    find_profile_run,
    find_run,
    heading,
    load_runs,
    parse_age,
    profile_runs,
    prunable,
    summary_parts,
    undo_counts,
    unsettled,
)
from wfctl.runs.session import RunRecord, as_record
from wfctl.runs.undoer import Undoer

__all__ = [
    "ACTION_FOR",
    "CHANGED",
    "FAILED",
    "GONE",
    "IMPORT_COUNTS",
    "SETTLED",
    "UNDONE",
    "UNDO_CONCURRENCY",
    "UNDO_COUNTS",
    "Run",
    "RunNotFound",
    "TakeBack",
    "UndoPlan",
    "Undoer",
    "count_lines",
    "count_outcomes",
    "find_profile_run",
    "find_run",
    "heading",
    "inverse_plan",
    "load_runs",
    "parse_age",
    "plan_undo",
    "preview_undo",
    "profile_runs",
    "prunable",
    "question",
    "run_undo",
    "summary_line",
    "summary_parts",
    "unsettled",
]


# -- undo ----------------------------------------------------------------------------------------

@dataclass
class UndoPlan:
    """What an undo of `run` still has to do: `pending` rows of the run, newest first."""

    run: Run
    directory: str
    header: RunRecord  # the undo run's (an unfinished undo's, when it resumes)
    pending: list[Entry]
    undoable: int  # rows of the run that changed something
    resume_path: str | None = None
    resumed: dict[Key, Entry] = field(default_factory=dict)
    undone_by: list[str] = field(default_factory=list)  # earlier finished undo runs

    @property
    def deletes(self) -> int:
        return sum(1 for e in self.pending if e.status == "created")

    @property
    def restores(self) -> int:
        return sum(1 for e in self.pending if e.status == "updated" and not e.order)  # not a cycle's extra step

    @property
    def recreates(self) -> int:
        """Records a prune deleted, made again (new ids)."""
        return sum(1 for e in self.pending if e.status == "deleted")

    @property
    def run_id(self) -> str:
        return self.header.run


def plan_undo(run: Run, runs: list[Run], profile: str) -> UndoPlan:
    """The rows of `run` not yet taken back by an earlier undo, and the journal to record this one in."""
    directory = os.path.dirname(run.path)
    header = replace(as_record(run.header), run=run.id, extra={}).undo_of(journal.new_run_id(), profile)
    settled: set[Key] = set()
    earlier = []
    for other in runs:
        if other.undo_of == run.id and other.finished:
            earlier.append(other.id)
            settled.update(key for key, e in other.entries().items() if e.status in SETTLED)
    resume_path = journal.find_unfinished(directory, header)
    resumed: dict[Key, Entry] = {}
    if resume_path is not None:
        read_header, resumed, _ = journal.read(resume_path)
        header = as_record(read_header)
        settled.update(key for key, e in resumed.items() if e.status in SETTLED)
    rows = [e for e in reversed(run.entries().values()) if e.status in ACTION_FOR or e.status == SENDING]
    pending = [e for e in rows if e.key not in settled]
    return UndoPlan(run, directory, header, pending, len(rows), resume_path, resumed, earlier)



#: Rows taken back at once by an undo (16 in flight: rows of different records are independent).
UNDO_CONCURRENCY = 16


def run_undo(plan: UndoPlan, undoer: Undoer, on_row: Callable[[Entry], None], *,
             concurrency: int = UNDO_CONCURRENCY) -> dict[str, int]:
    """Take back every pending row under the run's locks, journalled; returns the counts of this undo run
    (rows settled by the journal it resumes included).

    Rows of different records are independent: up to `concurrency` are sent at once. The rows of one
    record are taken back one after the other, newest first (as a single undo would). `on_row` is called
    once per row as each is done, one call at a time. An error every further row would meet too (the
    login, the network) stops the undo: rows in flight finish and are journalled, the others are not
    started, and the journal stays resumable (it is raised; Ctrl-C and a journal that cannot be written
    raise the executor's Stopped)."""
    with journal.ImportLock(plan.directory, plan.header), journal.ImportLock(plan.directory, plan.run.header):
        if not plan.run.finished:
            _close(plan.run)
        if plan.resume_path is not None:
            log = journal.Journal(plan.resume_path, plan.header, dict(plan.resumed))
        else:
            log = journal.Journal(journal.journal_path(plan.directory, plan.run_id), plan.header)
        counts: dict[str, int] | None = None
        try:
            _take_back_all(undoer.api, log, plan.pending, lambda entry: undoer.undo(entry, log), on_row,
                           max(1, concurrency))
            counts = undo_counts(log.entries, plan.run.entries())
        finally:
            log.finish(counts)  # None (stopped): the journal stays resumable
    assert counts is not None
    return counts


def preview_undo(plan: UndoPlan, undoer: Undoer, on_row: Callable[[Entry], None], *,
                 concurrency: int = UNDO_CONCURRENCY) -> None:
    """What an undo would do to each pending row (`Undoer.preview`: reads only), `concurrency` rows at once;
    `on_row` is called as each is checked, one call at a time."""
    _take_back_all(undoer.api, None, plan.pending, undoer.preview, on_row, max(1, concurrency))


@dataclass
class TakeBack:
    """An action of an undo: the entries of one record that a run changed, taken back one after the other,
    newest first (as a single undo would); its journal key is its newest entry's, each entry journalled
    under its own key. `take_back` is `Undoer.undo` (or `Undoer.preview`: reads only)."""

    key: Key
    entries: list[Entry]
    take_back: Callable[[Entry], Entry]

    def apply(self, run: RunContext) -> None:
        for entry in self.entries:
            if run.stopping():
                return
            run.report(self.take_back(entry))


def inverse_plan(pending: list[Entry], take_back: Callable[[Entry], Entry]) -> list[TakeBack]:
    """The actions that take back `pending` (newest first): one a record, its rows in order; a rename
    cycle's rows (issue 33 §3) one action, in the reverse of the order they were sent, then the temporary
    rename that opened it (its entry's `order`)."""
    cycles: list[TakeBack] = []
    by_key: dict[Key, Entry] = {entry.key: entry for entry in pending}
    for entry in pending:
        if entry.order:
            steps = [by_key.pop(row) for row in reversed(entry.order) if row in by_key]
            cycles.append(TakeBack(entry.key, [*steps, by_key.pop(entry.key)], take_back))
    groups: dict[str, list[Entry]] = {}
    for entry in pending:  # newest first within each record, as `pending` is
        if entry.key in by_key:
            groups.setdefault(entry.id or f"row {entry.key}", []).append(entry)
    return cycles + _chained([TakeBack(group[0].key, group, take_back) for group in groups.values()])


def _renamed(action: TakeBack) -> tuple[str, str] | None:
    """(the name its record holds now, the name the undo gives it back), by natural key, when the run
    renamed it."""
    names = [pair for entry in action.entries if entry.status in ("updated", SENDING)
             and isinstance(pair := entry.changes.get("name"), list) and len(pair) == 2]
    return (natural_key(names[0][1]), natural_key(names[-1][0])) if names else None


def _chained(actions: list[TakeBack]) -> list[TakeBack]:
    """`actions`, a chain of renames as one action in the order the names allow. The run sent a chain
    (each record renamed into the name of one renamed after it) from its free end (renames.py), so each
    record's old name is held by another record of the run until that one is taken back: taken back at
    once, each but one met a 409. A record whose old name another holds now follows that one. Names are
    compared across parents (the journal does not say an update's parent): at worst two undos that did not
    need to wait for one another run one after the other."""
    renamed = {id(action): _renamed(action) for action in actions}
    holder = {names[0]: action for action in actions if (names := renamed[id(action)])}
    following: dict[int, TakeBack] = {}  # id(action) -> the action that takes back its name next
    waiting: set[int] = set()
    for action in actions:
        names = renamed[id(action)]
        first = holder.get(names[1]) if names else None
        if first is not None and first is not action and id(first) not in following:
            following[id(first)] = action
            waiting.add(id(action))
    out: list[TakeBack] = []
    placed: set[int] = set()
    for action in actions:
        if id(action) in waiting:
            continue
        chain = [action]
        placed.add(id(action))
        while (after := following.get(id(chain[-1]))) is not None and id(after) not in placed:
            chain.append(after)
            placed.add(id(after))
        out.append(action if len(chain) == 1 else
                   TakeBack(action.key, [entry for a in chain for entry in a.entries], action.take_back))
    return out + [action for action in actions if id(action) not in placed]  # a loop of names across parents


def _take_back_all(api: Any, log: journal.Journal | None, pending: list[Entry],
                   take_back: Callable[[Entry], Entry], on_row: Callable[[Entry], None], concurrency: int) -> None:
    """`take_back` each of `pending` on the one executor, the rows of one record in order, `concurrency`
    records at once. Raises Stopped (Ctrl-C, the journal), or the error every further row would meet."""
    actions = inverse_plan(pending, take_back)
    run = RunContext(api, log, progress=on_row)
    Executor(run, min(concurrency, max(1, len(actions))), name="wfctl-undo").run(actions)


def summary_line(plan: UndoPlan, counts: dict[str, int], kind: str) -> str:
    """`undo run <id> of run <run>: deleted 3 sites, restored 2, 1 changed since the run`."""
    from wfctl.text.safetext import one_line

    parts = []
    if counts.get("deleted"):
        parts.append(f"deleted {counted(kind, counts['deleted'])}")
    if counts.get("restored"):
        parts.append(f"restored {counts['restored']}" if parts else f"restored {counted(kind, counts['restored'])}")
    if counts.get("recreated"):
        parts.append(f"re-created {counted(kind, counts['recreated'])} (with new ids)")
    parts.extend(f"{counts[key]} {COUNT_LABELS[key]}" for key in ("gone", "changed", "failed") if counts.get(key))
    return one_line(f"undo run {plan.run_id} of run {plan.run.id}: {', '.join(parts) or 'nothing to do'}")


def question(plan: UndoPlan, kind: str) -> str:
    """`Undo run <run> (sites.csv, started 2026-11-24 08:44 UTC): delete 3 sites, restore 2? [y/N] `: the
    file and the time name the run a person means."""
    parts = []
    if plan.deletes:
        parts.append(f"delete {counted(kind, plan.deletes)}")
    if plan.restores:
        parts.append(f"restore {plan.restores}" if parts else f"restore {counted(kind, plan.restores)}")
    if plan.recreates:
        parts.append(f"re-create {counted(kind, plan.recreates)} a prune deleted (new ids)")
    rest = len(plan.pending) - plan.deletes - plan.restores - plan.recreates
    if rest:
        parts.append(f"{rest} row{'s' if rest != 1 else ''} of unknown outcome")
    import os

    from wfctl.text.safetext import one_line

    path = str(plan.run.header.get("path") or "")
    started = plan.run.started.replace("T", " ").removesuffix("Z")[:16]  # 2026-11-24 08:44 (UTC)
    about = ", ".join(part for part in (one_line(os.path.basename(path)) if path else "",
                                        f"started {started} UTC" if started else "") if part)
    return f"Undo run {plan.run.id}{f' ({about})' if about else ''}: {', '.join(parts)}? [y/N] "


# -- private ---------------------------------------------------------------------------------------

def _close(run: Run) -> None:
    """End an unfinished run's journal: once undone, running its import again starts afresh instead of
    resuming it (and skipping rows whose records the undo deleted)."""
    entries = run.entries()
    journal.Journal(run.path, run.header, dict(entries)).finish(dict(Counter(e.status for e in entries.values())))
    run.finished = True

