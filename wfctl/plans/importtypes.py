"""What a bulk import is told and what it answers: its options, the summary of a run, the problems of
invalid rows, and the two ways a run ends early (`ValidationStopped`, and the executor's `Stopped`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wfctl.runs.engine import Stopped

if TYPE_CHECKING:
    from wfctl.plans.scope import Scope

__all__ = ["DRY_STATUSES", "STATUSES", "UNSENT", "Options", "Problem", "Stopped", "Summary", "ValidationStopped",
           "column_names"]

STATUSES = ("created", "updated", "unchanged", "skipped", "failed", "invalid")
#: A prune's outcomes, besides the rows': `gone` is a delete whose record someone else deleted since the plan.
PRUNE_STATUSES = ("deleted", "gone")
DRY_STATUSES = {"created": "create", "updated": "update"}
#: A row whose intent was written but that was never sent (the run stopped first).
UNSENT = "unsent"


@dataclass
class Problem:
    row: int
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        where = f"row {self.row} (line {self.line})" if self.row else f"line {self.line}"
        return f"{where}, column {self.column}: {self.message}" if self.column else f"{where}: {self.message}"


def grouped_problems(problems: list[Problem]) -> list[str]:
    """Each cause once (its column and message), with every row it holds for, in the order causes first come:
    `rows 1-50 (lines 2-51), column client: no client is named ...` (50 rows of one client: one line, not 50)."""
    causes: dict[tuple[str, str], list[Problem]] = {}
    lines = []
    for problem in problems:
        if not problem.row:
            lines.append(str(problem))
            continue
        if (problem.column, problem.message) not in causes:
            lines.append(f"\0{len(causes)}")
        causes.setdefault((problem.column, problem.message), []).append(problem)
    said = []
    for cause, (column, message) in zip(causes.values(), causes, strict=True):
        rows = sorted({p.row for p in cause})
        if len(rows) == 1:
            said.append(str(cause[0]))
            continue
        numbers = _ranges(rows)
        at = f"rows {numbers} (lines {_ranges(sorted({p.line for p in cause}))})"
        said.append(f"{at}, column {column}: {message}" if column else f"{at}: {message}")
    return [said[int(line[1:])] if line.startswith("\0") else line for line in lines]


def _ranges(numbers: list[int], most: int = 8) -> str:
    """`1-50`, `1-3, 7, 9-12`; past `most` ranges, `... (N rows in all)`."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    text = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans[:most])
    return text + (f", ... ({len(numbers)} in all)" if len(spans) > most else "")


@dataclass
class Options:
    kind: str
    parent_id: str | None = None  # --client / --branch: every row goes there
    on_existing: str = "skip"  # skip | update | fail
    concurrency: int = 8
    dry_run: bool = False
    skip_invalid: bool = False
    journal_path: str | None = None  # --journal; default: a new run under journal.runs_dir(profile)
    target: str = ""  # the service origin (part of what makes two runs the same import)
    profile: str = "default"
    file_path: str = ""  # as the user named it, for `imports list`
    ignore_ids: bool = False  # --ignore-ids: rows matched by name only (copies from another parent)
    #: --ignore-columns: a person's own columns (`Notes`), as given: left unread, not refused as unknown
    ignore_columns: tuple[str, ...] = ()
    #: --prune / diff: the records the file is the truth for; the inventory holds every one of them,
    #: parents the file has no row for included (scope.py)
    scope: Scope | None = None
    prune: bool = False  # --prune: the records in `scope` that no row keeps are deleted (prune.py)
    max_deletes: int = 10  # --max-deletes: more deletes than this refuse ...
    max_delete_share: float = 0.25  # --max-delete-share: ... and so does a larger share of the scope's records
    allow_deletes: int | None = None  # --allow-deletes N: past the limits, when the plan deletes exactly N
    #: --skip-misplaced: records the service lists in scope whose own parent is another are left out of a
    #: prune (said), instead of stopping it (wfctl.api.records.listcheck)
    skip_misplaced: bool = False
    #: --accept-spreadsheet-changes, --accept-row N: spreadsheet-like changes sent as they are (the plan
    #: view says so beside each one, `accepted_by`)
    accept_spreadsheet_changes: bool = False
    accept_rows: frozenset[int] = frozenset()
    #: a copy (`copy --from-profile`): file row -> the id of the record it copies in the other profile
    #: (journalled with the row's outcome), and the look-up of a delete's record there (wfctl.plans.prune:
    #: `SourceCheck`); None for an import of a file
    row_sources: dict[int, str] | None = None
    source_check: Any = None
    #: a diff (issue 49): a row whose id the service no longer has is only in the file (a create), not an
    #: invalid row; an import keeps refusing it (`no site with id ...`)
    gone_ids_are_new: bool = False
    #: `--plan FILE`: the saved plan's SHA-256, in the run's journal header (a plan run twice is found by it)
    plan: str = ""

    def accepted_by(self, row: int) -> str | None:
        """The option that sends `row`'s spreadsheet-like changes as they are, if one does."""
        if self.accept_spreadsheet_changes:
            return "--accept-spreadsheet-changes"
        return f"--accept-row {row}" if row in self.accept_rows else None


@dataclass
class Summary:
    rows: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    problems: list[Problem] = field(default_factory=list)
    invalid: int = 0
    resumed: int = 0
    #: Of `counts`, the rows an earlier run of a resumed import did (`counts` is the whole run's).
    before: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # the last pass (validate, then run); `timed()` makes it the whole import
    dry_run: bool = False
    journal_path: str | None = None
    run_id: str = ""
    blank: int = 0
    plan_seconds: float = 0.0  # reading the file and what exists, before the send pass
    skipped_differ: int = 0  # rows skipped (exist) whose record holds other values: their edits unsent
    skipped_unread: int = 0  # rows skipped whose record could not be read to tell
    prune: bool = False  # a run with --prune: its counts say `deleted` too
    started: float = field(default_factory=time.monotonic, repr=False)  # when the import began
    #: the plan's rename cycles (renames.py), each rename as JSON: a plan that holds any is refused
    cycles: list[list[dict[str, Any]]] = field(default_factory=list)
    not_in_file: int = 0  # records the file could reach that no row matches (planning.ImportPlan.not_in_file)
    #: a prune's deletes, those of the run it resumes included: with the rows, what the run has to do (`units`)
    deletes: int = 0

    def timed(self) -> Summary:
        """The summary with `seconds` the whole import, from its start to now, and `plan_seconds` the
        part before the send pass (whose time `seconds` held). Called once, when the result is shown."""
        total = time.monotonic() - self.started
        self.plan_seconds = max(0.0, total - self.seconds)
        self.seconds = total
        return self

    @property
    def failed(self) -> int:
        return self.counts["failed"] + self.counts["invalid"]

    @property
    def units(self) -> int:
        """What the run has to do: its rows, and a prune's deletes (as its progress line counts them)."""
        return self.rows + self.deletes

    @property
    def done(self) -> int:
        return sum(self.counts.get(s, 0) for s in ("created", "updated", "unchanged", "skipped", "deleted"))

    def as_json(self) -> dict[str, Any]:
        """The summary's JSON shape, the same keys for a plan and a run (`skippedDiffer`: of the rows
        skipped because their record exists, those whose values differ from it, left unsent)."""
        return {"run": self.run_id or None, "rows": self.rows, **{s: self.counts[s] for s in STATUSES},
                **(self.prune_counts() if self.prune else {}),
                "skippedDiffer": self.skipped_differ, "notInFile": self.not_in_file, "blank": self.blank, "seconds": round(self.seconds, 3),
                "dryRun": self.dry_run, **({"renameCycles": self.cycles} if self.cycles else {}),
                **({"thisRun": self.this_run()} if self.resumed and not self.dry_run else {})}

    def this_run(self) -> dict[str, int]:
        """A resumed run's own rows and counts (the summary's `rows` and counts are the whole run's): what
        its human line says too."""
        counts = {s: self.counts.get(s, 0) - self.before.get(s, 0) for s in STATUSES}
        return {"rows": self.rows - self.resumed, "doneBefore": self.resumed, **counts,
                **(self.prune_counts(self.before) if self.prune else {})}

    def end_counts(self) -> dict[str, int]:
        """The counts a complete run's journal ends with: the rows', and a prune's `deleted` (`gone` too, when
        a delete met a record deleted since the plan)."""
        counts = {s: self.counts.get(s, 0) for s in STATUSES}
        if self.prune:
            counts.update((s, n) for s, n in self.prune_counts().items() if n or s == "deleted")
        return counts

    def prune_counts(self, before: dict[str, int] | None = None) -> dict[str, int]:
        """A prune's counts (less those of `before`): `deleted`, and `gone` (deleted by someone else since the
        plan: the delete met 404), so that every delete planned is counted once."""
        before = before or {}
        return {s: self.counts.get(s, 0) - before.get(s, 0) for s in PRUNE_STATUSES}


def column_names(text: str | None) -> tuple[str, ...]:
    """The names of `--ignore-columns a,b` (none for None)."""
    return tuple(name.strip() for name in (text or "").split(",") if name.strip())


class ValidationStopped(Exception):
    """Some rows are invalid: nothing was sent."""

    def __init__(self, summary: Summary) -> None:
        super().__init__(f"{summary.invalid} of {summary.rows} rows {'is' if summary.invalid == 1 else 'are'} invalid")
        self.summary = summary
