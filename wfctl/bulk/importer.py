"""A bulk import run: validate every row, resolve parents, plan by natural key, send concurrently.

Passes over the (streamed) file, so memory does not grow with its size beyond a few bytes a row:

1. parent references (`client` names, `clientId`s) are collected and resolved;
2. existing records of those parents are listed (natural key -> summary);
3. every row is decoded and validated with the write models; problems are listed with row and column
   and, unless `skip_invalid`, stop the run before anything is sent;
4. rows are sent by a pool of threads sharing one Client, at most `concurrency` at a time; each row's
   intent is written to the run's journal before it is sent and its outcome (with the values it
   changed, for review and undo) after; 429/503 pause every worker together;
5. the report re-reads the file and the journal.

A run stops early, with every row it sent recorded, when the journal cannot be written, when the
service stays unreachable, or on Ctrl-C (`Stopped`); running the same command again resumes it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import struct
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.records import changed_fields, natural_key, same_record
from wfctl.bulk import csvformat, plan
from wfctl.bulk.fastcheck import RowCheck, create_body
from wfctl.bulk.journal import Entry, Journal, JournalError, idempotency_key
from wfctl.bulk.kinds import KINDS, Kind
from wfctl.bulk.plan import Created
from wfctl.bulk.reader import CsvInput, Row

MAX_LISTED_PROBLEMS = 50
MAX_LISTED_COLUMNS = 10
#: Columns whose cells decode to something other than their text (lists, booleans).
_DECODED_COLUMNS = csvformat.LIST_COLUMNS | csvformat.BOOL_COLUMNS
MAX_ATTEMPTS = 6
BITMAP_BYTES = 1 << 20
_SIZES = struct.Struct("<II")  # a plan's spooled row: the sizes of its head and of its body, then both
STATUSES = ("created", "updated", "unchanged", "skipped", "failed", "invalid")
DRY_STATUSES = {"created": "create", "updated": "update"}
#: How long the service may stay unreachable before the run stops (rows are retried meanwhile);
#: WFCTL_UNREACHABLE_SECONDS overrides it.
UNREACHABLE_SECONDS = 30.0


@dataclass
class Problem:
    row: int
    line: int
    column: str
    message: str

    def __str__(self) -> str:
        where = f"row {self.row} (line {self.line})" if self.row else f"line {self.line}"
        return f"{where}, column {self.column}: {self.message}" if self.column else f"{where}: {self.message}"


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


@dataclass
class Summary:
    rows: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    problems: list[Problem] = field(default_factory=list)
    invalid: int = 0
    resumed: int = 0
    seconds: float = 0.0  # the last pass (validate, then run); `timed()` makes it the whole import
    dry_run: bool = False
    journal_path: str | None = None
    run_id: str = ""
    blank: int = 0
    plan_seconds: float = 0.0  # reading the file and what exists, before the send pass
    started: float = field(default_factory=time.monotonic, repr=False)  # when the import began

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
    def done(self) -> int:
        return sum(self.counts[s] for s in ("created", "updated", "unchanged", "skipped"))

    def as_json(self) -> dict[str, Any]:
        """The summary's JSON shape, the same keys for a plan and a run."""
        return {"run": self.run_id or None, "rows": self.rows, **{s: self.counts[s] for s in STATUSES},
                "blank": self.blank, "seconds": round(self.seconds, 3), "dryRun": self.dry_run}


class ValidationStopped(Exception):
    """Some rows are invalid: nothing was sent."""

    def __init__(self, summary: Summary) -> None:
        super().__init__(f"{summary.invalid} of {summary.rows} rows are invalid")
        self.summary = summary


class Stopped(Exception):
    """The run stopped before its end; every row it sent is recorded. `cause` is "interrupted",
    "journal" (a local fault) or "unreachable"."""

    def __init__(self, cause: str, message: str) -> None:
        super().__init__(message)
        self.cause = cause
        self.message = message


class Backoff:
    """A pause every worker honours: one 429/503 slows the whole pool, not one thread."""

    def __init__(self) -> None:
        self._until = 0.0
        self._lock = threading.Lock()

    def trigger(self, seconds: float) -> None:
        with self._lock:
            self._until = max(self._until, time.monotonic() + seconds)

    def wait(self) -> None:
        while (delay := self._until - time.monotonic()) > 0:
            time.sleep(min(delay, 1.0))


class Importer:
    def __init__(self, api: Any, source: CsvInput, options: Options,
                 progress: Callable[[str], None] | None = None,
                 on_total: Callable[[int, int], None] | None = None,
                 note: Callable[[str], None] | None = None) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind: Kind = KINDS[options.kind]
        self.summary = Summary(dry_run=options.dry_run)
        self._progress = progress or (lambda status: None)
        self._on_total = on_total or (lambda total, done: None)
        self._note = note or (lambda text: None)
        self._parents: dict[str, str | None] = {}  # reference -> id (None: unresolved, message below)
        self._parent_errors: dict[str, str] = {}
        self._existing: dict[tuple[str | None, str], dict[str, Any]] = {}
        # A row that carries an id is that record (matched by id, never by name): the records of the
        # parents read, by id, and each such row's id (only rows that have one).
        self._by_id: dict[str, tuple[str | None, dict[str, Any]]] = {}
        self._id_rows: dict[int, str] = {}
        self._names_lock = threading.Lock()
        self._names_read: dict[str | None, float] = {}  # parent -> when its last names read started
        self._row_of_id: dict[str, int] = {}
        self._invalid_rows: set[int] = set()
        self._duplicates: dict[int, str] = {}  # row -> message, for the second and later of a name
        self._creates = bytearray()  # row -> 1: valid, and its parent has no record of its name
        self._positions = {name: i for i, name in enumerate(source.header)}  # column -> cell position
        self._skip_columns = csvformat.READ_ONLY_COLUMNS | {self.kind.parent_id_column, self.kind.parent_name_column}
        self._backoff = Backoff()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._stopped: Stopped | None = None
        self._unreachable_since: float | None = None
        self.journal: Journal | None = None
        self._lock_held: Any = None
        self._spool: Any = None
        lean_writer = getattr(api, "lean_writer", None)  # test doubles of the Client have none
        self._sender = lean_writer() if lean_writer is not None else None

    # -- the run -------------------------------------------------------------------------------

    def open_journal(self) -> Journal:
        """Start this run's journal, or resume the unfinished one of the same import; a real run also
        takes the import's lock. Raises RunLocked, JournalError."""
        from wfctl.bulk import journal as journals

        opts = self.options
        header = {"kind": opts.kind, "file": self.source.sha256, "path": opts.file_path or self.source.display,
                  "target": opts.target, "profile": opts.profile, "parent": opts.parent_id or "",
                  "onExisting": opts.on_existing, "undo": None}
        if opts.dry_run:
            fd, plan_path = tempfile.mkstemp(prefix="wfctl-plan-", suffix=".journal")
            os.close(fd)
            try:
                self.journal = Journal(plan_path, {**header, "run": "", "nonce": "", "started": _now()},
                                       durable=False)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(plan_path)  # nothing of a plan is left behind
                raise
            return self.journal
        directory = journals.runs_dir(opts.profile)
        self._lock_held = journals.ImportLock(directory, header).__enter__()
        try:
            path: str | None = opts.journal_path or journals.find_unfinished(directory, header)
            if path and os.path.exists(path):
                old = journals.header_of(path)
                if old is None:
                    journals.read(path)  # raises: not a journal, or a corrupted one
                elif not journals.is_finished(path) and journals.import_key(old) == journals.import_key(header):
                    self.journal = Journal.resume(path)
                else:  # a finished run, or another import's: its record is kept for `imports undo`
                    raise JournalError(path, f"it holds run {old.get('run') or '?'} (another run); name a new file")
            if self.journal is None:
                import secrets

                run = journals.new_run_id()
                self.journal = Journal(opts.journal_path or journals.journal_path(directory, run),
                                       {**header, "run": run, "nonce": secrets.token_hex(8), "started": _now()})
        except BaseException:
            self.release()
            raise
        self.summary.journal_path = self.journal.path
        self.summary.run_id = self.journal.run_id
        self.summary.resumed = self.journal.resumed
        return self.journal

    def release(self) -> None:
        """Close the journal (a run that validation stopped never finished it), give up the import's
        lock, and remove a plan's temporary journal and spool, and the journal of a run that sent
        nothing (validation stopped it), which `imports list` would show as interrupted."""
        if self.journal is not None:
            self.journal.finish(None)
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        if self._lock_held is not None:
            self._lock_held.__exit__(None, None, None)
            self._lock_held = None
        journal = self.journal
        if journal is not None and (self.options.dry_run or (not journal.resumed
                                                             and next(journal.rows(), None) is None)):
            with contextlib.suppress(OSError):  # a plan, or a run that sent nothing: no run to list
                os.unlink(journal.path)

    def validate(self) -> Summary:
        """Passes 1-3. Raises ValidationStopped when rows are invalid and skip_invalid is off."""
        started = time.monotonic()
        self._check_columns()
        self._resolve_parents()
        self._load_existing()
        self._validate_rows()
        self.summary.blank = getattr(self.source, "blank_rows", 0)
        self.summary.seconds = time.monotonic() - started
        if self.summary.invalid and not self.options.skip_invalid:
            raise ValidationStopped(self.summary)
        return self.summary

    def run(self) -> Summary:
        """Pass 4: send (or, on a dry run, plan) every valid row not done by an earlier run.
        Raises Stopped when the run ends early (every row it sent is recorded)."""
        started = time.monotonic()
        if self.journal is None:
            self.open_journal()
        journal = self.journal
        assert journal is not None
        for row in journal.rows():
            if journal.done(row) and row <= self.summary.rows:
                status = str(journal.status(row))
                self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._on_total(self.summary.rows, self.summary.resumed)
        complete = False
        try:
            try:
                self._send_all()
            except KeyboardInterrupt:
                self._stopped = Stopped("interrupted", "interrupted")
            if self._stopped is not None:
                raise self._stopped
            complete = self.summary.counts["failed"] == 0 and self.summary.invalid == 0
        finally:
            journal.finish({s: self.summary.counts[s] for s in STATUSES} if complete else None)
            if self._spool is not None and not self.options.dry_run:  # a plan reads its creates back
                self._spool.close()
                self._spool = None
            self.summary.seconds = time.monotonic() - started
        return self.summary

    def outcomes(self) -> Iterator[tuple[Row, str, str, str, str]]:
        """Every input row with (status, id, error, changes), in file order, for the report; changes
        as one line (`address: 1 High St -> 2 High St; + banned worker W-2`)."""
        from wfctl.changes import compact

        kind = self.options.kind
        for row, status, entry in self._row_outcomes():
            if entry is None:
                yield row, status, "", "", ""
                continue
            pairs = {name: (pair[0], pair[1]) for name, pair in entry.changes.items()}
            yield row, status, entry.id, entry.error, compact(kind, pairs)

    def changes(self) -> Iterator[Entry | Created]:
        """The journal's entries in row order (each row's latest outcome, with its changes)."""
        if self.journal is None:
            return iter(())
        if self.options.dry_run and self._spool is not None:
            return self._planned_entries()
        return self.journal.iter_entries()

    def _planned_entries(self) -> Iterator[Entry | Created]:
        """A plan's entries in row order: its creates from the spool (they are not journaled: most of the
        cost of planning a large file), the rows that exist from the journal."""
        assert self.journal is not None
        logged = self.journal.iter_entries()
        following = next(logged, None)
        creates, invalid = self._creates, self._invalid_rows
        for (number, _, name, fields_json), body in self._spooled():
            if not creates[number] or number in invalid:  # not a create (see _planned)
                continue
            while following is not None and following.row < number:
                yield following
                following = next(logged, None)
            yield Created(number, name, fields_json, functools.partial(self._given, body))
        while following is not None:
            yield following
            following = next(logged, None)

    def _given(self, body: bytes) -> dict[str, list[Any]]:
        """A create's changes: each field of its body but the parent, as [old, new]."""
        parent_column = self.kind.parent_id_column
        return {k: [None, v] for k, v in marshal.loads(body).items() if k != parent_column}

    def _row_outcomes(self) -> Iterator[tuple[Row, str, Entry | None]]:
        journal = self.journal
        for row in self.source.rows():
            problems, _, _ = self._check(row)
            if problems:
                error = "; ".join(f"{p.column}: {p.message}" if p.column else p.message for p in problems)
                yield row, "invalid", Entry(row.number, "invalid", error=error)
                continue
            entry = journal.entry(row.number) if journal else None
            if entry is None and self._planned(row.number):
                entry = Entry(row.number, "created")
            if entry is None or entry.status == UNSENT:
                yield row, "not sent", None
                continue
            if entry.status == "sending":  # sent when the run stopped: running it again finds out
                yield row, "no answer", entry
                continue
            status = DRY_STATUSES.get(entry.status, entry.status) if self.options.dry_run else entry.status
            yield row, status, entry

    # -- passes 1-3 ----------------------------------------------------------------------------

    def _check_columns(self) -> None:
        known = csvformat.known_columns(self.options.kind)
        unknown = [column for column in self.source.header if column not in known]
        written = getattr(self.source, "written", lambda column: column)
        for column in unknown[:MAX_LISTED_COLUMNS]:
            self._problem(0, 1, written(column), csvformat.unknown_column_message(self.options.kind, column))
        if len(unknown) > MAX_LISTED_COLUMNS:
            self._problem(0, 1, "", f"... and {len(unknown) - MAX_LISTED_COLUMNS} more unknown columns")
        if "name" not in self.source.header:
            self._problem(0, 1, "name", "missing column: every row needs a name")
        kind = self.kind
        if kind.parent and not self.options.parent_id and not (
                kind.parent_id_column in self.source.header or kind.parent_name_column in self.source.header):
            flag = "--client" if kind.parent == "client" else "--branch"
            self._problem(0, 1, kind.parent_id_column or "",
                          f"no {kind.parent_id_column} or {kind.parent_name_column} column: add one, or give {flag}")
        if self.summary.problems:
            self.summary.invalid = 0
            raise ValidationStopped(self.summary)

    def _parent_ref(self, row: Row) -> str | None:
        """'id:<x>' / 'name:<x>' for the row's parent, or None (no parent, or not given)."""
        kind = self.kind
        if not kind.parent:
            return None
        if self.options.parent_id:
            return "id:" + self.options.parent_id
        return self._parent_ref_of(row.cells.get(kind.parent_id_column or "", ""),
                                   row.cells.get(kind.parent_name_column or "", ""))

    @staticmethod
    def _parent_ref_of(id_cell: str, name_cell: str) -> str | None:
        pid = csvformat.strip_neutraliser(id_cell).strip()
        if pid:
            return "id:" + pid
        pname = csvformat.strip_neutraliser(name_cell).strip()
        if pname:
            return "name:" + natural_key(pname)
        return None

    def _resolve_parents(self) -> None:
        """Pass 1: look every distinct parent up and start reading what it holds (pass 2), many parents
        at once and at most `concurrency` requests in flight: a parent's look-up and the first page of
        its records go out together."""
        self._plan_pool = ThreadPoolExecutor(max_workers=max(1, self.options.concurrency),
                                             thread_name_prefix="wfctl-plan")
        self._reads: dict[str | None, Future[list[dict[str, Any]]]] = {}
        try:
            self._look_up_parents()
        except BaseException:
            self._plan_pool.shutdown(wait=False, cancel_futures=True)
            raise

    def _look_up_parents(self) -> None:
        if not self.kind.parent:
            self._read_existing([None], 1)
            return
        refs: set[str] = set()
        if self.options.parent_id:
            refs.add("id:" + self.options.parent_id)
        else:
            for row in self.source.rows():
                ref = self._parent_ref(row)
                if ref:
                    refs.add(ref)
        from wfctl.api.errors import NotFound

        ids = sorted(ref.split(":", 1)[1] for ref in refs if ref.startswith("id:"))
        names = sorted(ref for ref in refs if ref.startswith("name:"))
        parents = len(ids) + (1 if names else 0)
        pool = self._plan_pool
        lookups = {value: pool.submit(self.kind.get_parent, self.api, value) for value in ids}
        self._read_existing(ids, parents)
        by_name: dict[str, list[str]] = {}
        if names:
            for parent in self.api.iter_records(self.kind.parent, None, concurrency=self._share(parents)):
                by_name.setdefault(natural_key(parent.get("name")), []).append(str(parent["id"]))
        for value in ids:
            ref = "id:" + value
            try:
                lookups[value].result()
                self._parents[ref] = value
            except NotFound:
                self._parents[ref] = None
                self._parent_errors[ref] = f"no {self.kind.parent} with id {value!r}"
        for ref in names:
            found = by_name.get(ref.split(":", 1)[1], [])
            if len(found) == 1:
                self._parents[ref] = found[0]
            else:
                self._parents[ref] = None
                value = ref.split(":", 1)[1]
                self._parent_errors[ref] = (
                    f"no {self.kind.parent} is named {value!r}" if not found else
                    f"{len(found)} {self.kind.parent}s are named {value!r}; use {self.kind.parent_id_column}")
        self._read_existing(sorted({p for p in self._parents.values() if p}), parents)

    def _read_existing(self, parent_ids: list[str] | list[None], parents: int) -> None:
        """Start reading each parent's records (not read yet) in the plan's pool; a parent's pages go
        several at a time when few parents share the bound."""
        share = self._share(parents)
        for parent_id in parent_ids:
            if parent_id not in self._reads:
                self._reads[parent_id] = self._plan_pool.submit(self._existing_of, parent_id, share)

    def _existing_of(self, parent_id: str | None, concurrency: int) -> list[dict[str, Any]]:
        return list(self.api.iter_records(self.kind.name, parent_id, concurrency=concurrency))

    def _share(self, parents: int) -> int:
        """Requests in flight for one parent's pages, so that all parents together keep to `concurrency`."""
        return max(1, self.options.concurrency // max(1, min(parents, self.options.concurrency)))

    def _load_existing(self) -> None:
        """Pass 2: the records of every resolved parent, read in pass 1 (natural key -> summary)."""
        parents: list[str | None] = [None]
        if self.kind.parent:
            parents = [*sorted({p for p in self._parents.values() if p})]
        try:  # a parent that is not there has no read to wait for: its rows say so
            for parent_id in parents:
                for record in self._reads[parent_id].result():
                    self._existing[(parent_id, natural_key(record.get("name")))] = record
                    if self._matches_ids:
                        self._by_id[str(record.get("id"))] = (parent_id, record)
        finally:
            self._plan_pool.shutdown(wait=False, cancel_futures=True)

    def _validate_rows(self) -> None:
        # Duplicate names in the file, in little memory: each valid row's name digest (8 bytes a row)
        # and a fixed 1 MiB bitmap of them; a bit that is already set makes its digest a candidate (a
        # duplicate, or one of ~1% false alarms at 100,000 rows), which the digests then decide.
        seen = bytearray(BITMAP_BYTES)
        candidates: set[int] = set()
        digests = array("Q", [0])  # row number -> name digest; 0: an invalid row (rows count from 1)
        creates = self._creates = bytearray(1)
        self._spool = tempfile.TemporaryFile(prefix="wfctl-rows-")  # noqa: SIM115 - read by run()
        spooled: list[bytes] = []  # written a few hundred rows at a time
        header = self.source.header
        existing = self._existing
        fast = self._row_check()
        dry_run = self.options.dry_run
        parent_column = self.kind.parent_id_column
        templates: dict[tuple[str, ...], str] = {}
        has_parent = bool(self.kind.parent)
        one_parent = not has_parent or bool(self.options.parent_id)  # the same for every row
        every_parent = self._parent_of([]) if one_parent else None
        has_id = self._matches_ids
        for number, line, cells, extra in self.source.records():  # numbered 1, 2, 3, ...: one entry each
            body = None
            parent = every_parent if one_parent else self._parent_of(cells)
            if fast is not None and not extra and (parent is not None or not has_parent):
                body = fast.check(cells, parent)
            fields_json = ""  # a plan's create: the JSON text of its changes
            if body is None:
                row = Row(number, line, dict(zip(header, cells, strict=True)), extra)
                problems, parent, body = self._check(row)
                if problems:
                    self._invalid(row, problems)
                    digests.append(0)
                    creates.append(0)
                    continue
                key = self._name_digest(row, parent)
                name = natural_key(body.get("name"))
            else:  # the name is the cell's, neutraliser and spaces taken off: the key is the same
                name = natural_key(body["name"])
                key = _digest(f"{parent}\x00{name}")
                if dry_run:
                    fields = tuple(body)
                    template = templates.get(fields)
                    if template is None:
                        template = templates[fields] = plan.fields_template(f for f in fields if f != parent_column)
                    fields_json = template % tuple(fast.values_json)  # type: ignore[union-attr]
            record_id = csvformat.strip_neutraliser(self._cell(cells, "id")).strip() if has_id else ""
            if record_id:
                problem = self._match_id(number, record_id, parent)
                if problem:
                    self._invalid(Row(number, line, dict(zip(header, cells, strict=False)), extra),
                                  [Problem(number, line, "id", problem)])
                    digests.append(0)
                    creates.append(0)
                    continue
            # The checked body, so the send pass does not decode and validate every row again; a plan's
            # before it, apart, what its create is written from.
            if dry_run:
                head = marshal.dumps((number, parent, str(body.get("name", "")), fields_json))
                rest = marshal.dumps(body)
                spooled.append(_SIZES.pack(len(head), len(rest)) + head + rest)
            else:
                record = marshal.dumps((number, parent, body))
                spooled.append(len(record).to_bytes(4, "little") + record)
            if len(spooled) >= 256:
                self._spool.write(b"".join(spooled))
                spooled.clear()
            creates.append(not record_id and (parent, name) not in existing)
            digests.append(key)
            bit = key % (BITMAP_BYTES * 8)
            if seen[bit >> 3] & (1 << (bit & 7)):
                candidates.add(key)
            else:
                seen[bit >> 3] |= 1 << (bit & 7)
        self._spool.write(b"".join(spooled))
        self.summary.rows = len(digests) - 1
        del seen
        if candidates:
            self._check_duplicates(candidates, digests)

    @property
    def _matches_ids(self) -> bool:
        """Whether rows that carry an id are matched by it (the file has an id column, and no --ignore-ids)."""
        return "id" in self._positions and not self.options.ignore_ids

    def _match_id(self, number: int, record_id: str, parent: str | None) -> str:
        """Match a row that carries an id to its record: '' when it is one of the parent's records not
        named by an earlier row, else the row's error."""
        found = self._by_id.get(record_id)
        if found is None or (self.kind.parent and found[0] != parent):
            where = f" of {self.kind.parent} {parent}" if self.kind.parent and parent else ""
            copy = f" (to copy records into another {self.kind.parent}, use --ignore-ids)" \
                if self.kind.parent else ""
            return f"no {self.kind.name} with id {record_id!r}{where}{copy}"
        earlier = self._row_of_id.setdefault(record_id, number)
        if earlier != number:
            return f"id {record_id!r} is already row {earlier}"
        if self.options.on_existing == "fail":
            return f"{found[1].get('name')!r} already exists (--on-existing fail)"
        self._id_rows[number] = record_id
        return ""

    def _row_check(self) -> RowCheck | None:
        """The fast check of this file's rows, or None where every row needs `_check` (on-existing fail
        asks about each row's name and its journal; a parent that is not there makes every row invalid)."""
        kind = self.kind
        if self.options.on_existing == "fail":
            return None
        if self.options.parent_id and self._parents.get("id:" + self.options.parent_id) is None:
            return None
        parent_column = kind.parent_id_column if kind.parent_in_body else None
        return RowCheck(self.options.kind, self.source.header, self._skip_columns, parent_column,
                        with_json=self.options.dry_run)

    def _parent_of(self, cells: list[str]) -> str | None:
        """The id of the row's parent (None: the kind has none, or it is not known: `_check` says why)."""
        if not self.kind.parent:
            return None
        if self.options.parent_id:
            return self._parents.get("id:" + self.options.parent_id)
        ref = self._parent_ref_of(self._cell(cells, self.kind.parent_id_column),
                                  self._cell(cells, self.kind.parent_name_column))
        return self._parents.get(ref) if ref else None

    def _cell(self, cells: list[str], column: str | None) -> str:
        i = self._positions.get(column or "")
        return "" if i is None else cells[i]

    def _check_duplicates(self, candidates: set[int], digests: array[int]) -> None:
        first: dict[int, int] = {}
        later: dict[int, int] = {}  # row -> the earlier row of its name
        for number, key in enumerate(digests):
            if key and key in candidates:
                if key in first:
                    later[number] = first[key]
                else:
                    first[key] = number
        if not later:
            return  # false alarms of the bitmap only: no second pass over the file
        for row in self.source.rows():
            if row.number in later:
                name = csvformat.strip_neutraliser(row.cells.get("name", "")).strip()
                message = (f"{name!r} is already row {later[row.number]} "
                           f"(names are unique per {self.kind.parent or 'agency'})")
                self._duplicates[row.number] = message
                self._invalid(row, [Problem(row.number, row.line, "name", message)])

    def _name_digest(self, row: Row, parent: str | None) -> int:
        name = csvformat.strip_neutraliser(row.cells.get("name", ""))
        return _digest(f"{parent}\x00{natural_key(name)}")

    def _check(self, row: Row) -> tuple[list[Problem], str | None, dict[str, Any]]:
        """(problems, parent id, JSON body) of one row: decoding, field rules, parent, on-existing=fail."""
        problems: list[Problem] = []
        if row.extra:
            problems.append(Problem(row.number, row.line, "", f"{row.extra} more cell(s) than the header has columns"))
        data: dict[str, Any] = {}
        skip = self._skip_columns
        packed = _DECODED_COLUMNS
        for column, text in row.cells.items():
            if column in skip:
                continue
            if column not in packed and not text.startswith("'"):
                data[column] = text  # a plain text cell is itself (decode_cell would return it)
                continue
            try:
                value = csvformat.decode_cell(column, text)
            except csvformat.CellError as exc:
                problems.extend(Problem(row.number, row.line, column, message) for message in exc.problems)
                continue
            if value is not None:
                data[column] = value
        parent_id = None
        if self.kind.parent:
            ref = self._parent_ref(row)
            column = self.kind.parent_id_column or ""
            if ref is None:
                problems.append(Problem(row.number, row.line, column,
                                        f"empty: which {self.kind.parent} does this row belong to?"))
            elif self._parents.get(ref) is None:
                if ref.startswith("name:"):
                    column = self.kind.parent_name_column or column
                problems.append(Problem(row.number, row.line, column,
                                        self._parent_errors.get(ref, f"unknown {self.kind.parent}")))
            else:
                parent_id = self._parents[ref]
            if self.kind.parent_in_body:
                data[self.kind.parent_id_column or ""] = parent_id or "?"
        body = create_body(self.options.kind, data)  # the common row, without pydantic (same answer)
        if body is None:
            body = self._model_check(row, data, problems)
        if (not problems and self.options.on_existing == "fail"
                and (parent_id, natural_key(body.get("name"))) in self._existing
                and not (self.journal and (self.journal.done(row.number) or self.journal.was_sending(row.number)))):
            problems.append(Problem(row.number, row.line, "name",
                                    f"{body.get('name')!r} already exists (--on-existing fail)"))
        if not problems and row.number in self._duplicates:
            problems.append(Problem(row.number, row.line, "name", self._duplicates[row.number]))
        if problems:  # the columns as the file names them (`Rates`, not `rates`)
            written = getattr(self.source, "written", None)
            if written is not None:
                for problem in problems:
                    if problem.column:
                        problem.column = written(problem.column)
        return problems, parent_id, body

    def _model_check(self, row: Row, data: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
        """The write model's body of `data`, or {} with its problems added, worded per column."""
        from pydantic import ValidationError

        from wfctl.api.models import (
            WRITE_MODELS,  # pydantic: only for a row the fast check defers
            field_errors,
        )

        try:
            return WRITE_MODELS[(self.options.kind, "create")].model_validate(data).body()
        except ValidationError as exc:
            for location, messages in field_errors(exc).items():
                column = location.split("[", 1)[0].split(".", 1)[0]
                detail = location[len(column):].lstrip(".")
                for message in messages:
                    problems.append(Problem(row.number, row.line, column,
                                            f"{detail}: {message}" if detail else message))
        return {}

    def _invalid(self, row: Row, problems: list[Problem]) -> None:
        if row.number not in self._invalid_rows:
            self._invalid_rows.add(row.number)
            self.summary.invalid += 1
            self.summary.counts["invalid"] += 1
        for problem in problems:
            if len(self.summary.problems) < MAX_LISTED_PROBLEMS:
                self.summary.problems.append(problem)

    def _problem(self, row: int, line: int, column: str, message: str) -> None:
        self.summary.problems.append(Problem(row, line, column, message))

    # -- pass 4 --------------------------------------------------------------------------------

    def _send_all(self) -> None:
        """Producer (this thread: plan each row) and `concurrency` workers on a bounded queue."""
        import queue

        journal = self.journal
        assert journal is not None
        limit = max(1, self.options.concurrency)
        tasks: queue.Queue[tuple[int, str | None, dict[str, Any], dict[str, Any] | None] | None] = \
            queue.Queue(maxsize=limit * 4)
        stop = self._stop

        def work() -> None:
            while (task := tasks.get()) is not None:
                if not stop.is_set():
                    self._send_row(*task)

        workers = [threading.Thread(target=work, name=f"wfctl-import-{i}", daemon=True) for i in range(limit)]
        for worker in workers:
            worker.start()
        dry_run = self.options.dry_run
        creates = self._creates
        try:
            if dry_run:
                self._plan_creates()
            for number, parent_id, body in self._checked_rows() if self._others() else ():
                if stop.is_set():
                    break
                if number in self._invalid_rows or journal.done(number) or (dry_run and creates[number]):
                    continue
                by_id = self._id_rows.get(number)
                existing = (self._by_id[by_id][1] if by_id is not None
                            else self._existing.get((parent_id, natural_key(body.get("name")))))
                if (existing is not None and by_id is None and journal.was_sending(number)
                        and not self._sent_update(number)):
                    existing = None  # created by the run that was stopped: ours, or not made; the create says
                if existing is not None and self.options.on_existing != "update":
                    self._finish(number, "skipped", str(existing.get("id", "")), name=str(existing.get("name", "")))
                    continue
                tasks.put((number, parent_id, body, existing))
        except BaseException:
            stop.set()  # Ctrl-C: the rows in flight finish and are journaled; the queued ones are dropped
            raise
        finally:
            interrupted: KeyboardInterrupt | None = None
            markers = 0
            while True:  # a Ctrl-C while the workers finish: drop the queued rows, let those in flight end
                try:
                    while markers < limit:
                        if stop.is_set():
                            _drain_put(tasks)
                        else:
                            tasks.put(None)
                        markers += 1
                    for worker in workers:
                        worker.join()
                    break
                except KeyboardInterrupt as exc:
                    interrupted = exc
                    stop.set()
            if interrupted is not None:
                raise interrupted

    def _plan_creates(self) -> None:
        """A plan's creates: counted, never journaled (their fields are read back from the spool)."""
        creates, invalid, progress = self._creates, self._invalid_rows, self._progress
        planned = 0
        for number in range(1, len(creates)):
            if creates[number] and number not in invalid:
                planned += 1
                progress("created")
        with self._lock:
            self.summary.counts["created"] += planned

    def _planned(self, row: int) -> bool:
        """Whether a plan creates `row` (it has no journal entry)."""
        return (self.options.dry_run and row < len(self._creates) and self._creates[row] == 1
                and row not in self._invalid_rows)

    def _others(self) -> bool:
        """Whether the send pass has rows to look at: a run's every row, a plan's those that exist."""
        if not self.options.dry_run:
            return True
        creates, invalid = self._creates, self._invalid_rows
        return any(not creates[number] and number not in invalid for number in range(1, len(creates)))

    def _checked_rows(self) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
        """(row, parent id, body) of every row that passed the checks, from the spool (marshal: several
        times faster than JSON both ways, and the spool never outlives the process that wrote it)."""
        if self.options.dry_run:
            for (number, parent, _, _), body in self._spooled():
                yield number, parent, marshal.loads(body)
            return
        read = self._rewound()
        while size := read(4):
            yield marshal.loads(read(int.from_bytes(size, "little")))

    def _spooled(self) -> Iterator[tuple[tuple[int, str | None, str, str], bytes]]:
        """A plan's checked rows: each one's (row, parent id, name, JSON text of its changes), and its body
        still marshalled (a plan's create reads it only for text output)."""
        read = self._rewound()
        while sizes := read(_SIZES.size):
            head, rest = _SIZES.unpack(sizes)
            yield marshal.loads(read(head)), read(rest)

    def _rewound(self) -> Callable[[int], bytes]:
        """The spool's read, from its start."""
        spool = self._spool
        assert spool is not None
        spool.flush()
        spool.seek(0)
        return spool.read

    def _send_row(self, row: int, parent_id: str | None, body: dict[str, Any],
                  existing: dict[str, Any] | None) -> None:
        from wfctl.api.errors import ApiError
        from wfctl.api.redact import redact_text

        sent_before = self.journal is not None and self.journal.was_sending(row)  # by a run this one resumes
        try:
            if existing is not None:
                self._update(row, body, existing)
            else:
                self._create(row, parent_id, body)
        except _Abandon as stop:
            if not stop.sent and not sent_before and self.journal is not None:
                with contextlib.suppress(JournalError):  # its intent was written, but it never left
                    self.journal.record(row, UNSENT)
        except JournalError as exc:
            self._halt(Stopped("journal", str(exc)))
        except ApiError as exc:
            self._record_failure(row, body, exc.one_line())
        except Exception as exc:  # a worker must record every row, whatever went wrong
            self._record_failure(row, body, redact_text(f"{exc.__class__.__name__}: {exc}"))

    def _record_failure(self, row: int, body: dict[str, Any], error: str) -> None:
        try:
            self._finish(row, "failed", "", error, name=str(body.get("name", "")))
        except JournalError as exc:
            self._halt(Stopped("journal", str(exc)))

    def _create(self, row: int, parent_id: str | None, body: dict[str, Any]) -> None:
        from wfctl.api.errors import Conflict

        name = str(body.get("name", ""))
        given = {k: [None, v] for k, v in body.items() if k != self.kind.parent_id_column}
        resent = self.journal is not None and self.journal.was_sending(row)
        self._intend(row, create=(name, parent_id, body))
        key = self._idempotency_key(row, parent_id)
        attempt = 0
        while True:  # _sent says when to give up (it raises)
            attempt += 1
            self._backoff.wait()
            try:
                applied = resent or attempt > 1  # an earlier attempt with this key may have been applied
                record, made = self._sent(lambda applied=applied: self.api.create_outcome(  # type: ignore[misc]
                    self.options.kind, parent_id, body, idempotency_key=key, sender=self._sender,
                    maybe_applied=applied, find=lambda: self._find_same(parent_id, body)))
                if made:
                    self._known(parent_id, record)
                    self._finish(row, "created", str(record.get("id", "")), name=name, changes=given, left=record)
                else:  # it exists, and nothing says this run made it: undo leaves it
                    self._finish(row, "skipped", str(record.get("id", "")), name=name)
                return
            except Conflict:
                found = self._named(parent_id, body.get("name"))
                if found is None:
                    raise
                if self.options.on_existing == "update":
                    self._update(row, body, self._full(found))
                else:
                    self._finish(row, "skipped", str(found.get("id", "")), name=name)
                return
            except _Retry:
                continue

    def _named(self, parent_id: str | None, name: Any) -> dict[str, Any] | None:
        """The record of that name under the parent (G12 key), from the run's name map. A name the map
        does not hold (someone made it since the map was read) reads the parent's records once more,
        unless a read that started after this question was asked is done already: conflicts that come
        together share one read, instead of a full list each."""
        key = (parent_id, natural_key(name))
        found = self._existing.get(key)
        if found is not None:
            return found
        asked = time.monotonic()
        with self._names_lock:
            if self._names_read.get(parent_id, -1.0) < asked:
                started = time.monotonic()
                for record in self.api.iter_records(self.options.kind, parent_id):
                    self._existing.setdefault((parent_id, natural_key(record.get("name"))), record)
                self._names_read[parent_id] = started
        return self._existing.get(key)

    def _find_same(self, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
        """The whole record named as `body` that holds every field of it, or None (G20 look-up)."""
        found = self._named(parent_id, body.get("name"))
        if found is None:
            return None
        full = self._full(found)
        return full if same_record(body, full) else None

    def _known(self, parent_id: str | None, record: dict[str, Any]) -> None:
        """Keep the name map current with a record this run made."""
        self._existing[(parent_id, natural_key(record.get("name")))] = record

    def _update(self, row: int, body: dict[str, Any], existing: dict[str, Any]) -> None:
        record_id = str(existing.get("id", ""))
        current = self._full(existing)
        name = str(current.get("name", body.get("name", "")))
        if "name" in body and row not in self._id_rows and natural_key(body["name"]) == natural_key(name):
            # found by its name (G12), which is not a rename: the service's spelling stays
            body = {k: v for k, v in body.items() if k != "name"}
        from wfctl.api.records import update_body

        changes = {k: [old, new] for k, (old, new) in changed_fields(current, update_body(
            self.options.kind, current, body)).items()}
        sent = self._sent_update(row)  # by the run this one resumes: applied when nothing differs now
        if not changes and sent:
            self._finish(row, "updated", record_id, name=name, changes=sent)
            return
        if not changes:
            self._finish(row, "unchanged", record_id, name=name)
            return
        if self.options.dry_run:
            self._finish(row, "updated", record_id, name=name, changes=changes)
            return
        self._intend(row, changes, record_id=record_id)  # the old values first: a run killed now still knows them
        while True:  # _sent says when to give up (it raises)
            self._backoff.wait()
            try:
                self._sent(lambda: self.api.update_record(self.options.kind, record_id, body, current=current,
                                                          sender=self._sender))
                self._finish(row, "updated", record_id, name=name, changes=changes)
                return
            except _Retry:  # PUT is idempotent: sending it again is safe
                continue

    def _sent(self, send: Callable[[], Any]) -> Any:
        """Run one request, and say what to do when it fails: raise _Retry to send it again, or the
        error to record the row as failed. 429/503 pause every worker together (up to MAX_ATTEMPTS). A
        network failure is retried: said once ("service unreachable, retrying"); when no row has got
        through for UNREACHABLE_SECONDS the run stops; a row whose own answers keep being lost that
        long while others get through is recorded as failed."""
        from wfctl.api.errors import ApiError, NetworkError

        local = self._local_attempts()
        if self._stop.is_set():
            raise _Abandon(sent=getattr(local, "n", 0) > 0)
        patience = _unreachable_seconds()
        attempt = getattr(local, "n", 0) + 1
        try:
            result = send()
        except NetworkError as exc:
            now = time.monotonic()
            with self._lock:
                first = self._unreachable_since is None
                if first:
                    self._unreachable_since = now
                since = self._unreachable_since or now
            if first:
                self._note(f"service unreachable ({exc.one_line()}), retrying")
            if now - since > patience:
                self._halt(Stopped("unreachable", f"the service is unreachable ({exc.one_line()})"))
                raise _Abandon(sent=True) from None
            row_since = getattr(local, "since", None) or now
            if now - row_since > patience:
                local.n, local.since = 0, None
                raise
            self._backoff.trigger(min(5.0, 0.5 * attempt))
            local.n, local.since = attempt, row_since
            raise _Retry() from None
        except ApiError as exc:
            if not _transient(exc) or attempt >= MAX_ATTEMPTS:
                local.n, local.since = 0, None
                raise
            if exc.status in (429, 503):
                self._backoff.trigger(_pause_for(exc, attempt))  # not applied: resend after the pause
            local.n = attempt
            raise _Retry() from None
        with self._lock:
            self._unreachable_since = None
        local.n, local.since = 0, None
        return result

    def _local_attempts(self) -> Any:
        """This worker's count of attempts at its current row, and when its answers started to be lost."""
        local = getattr(self, "_attempts", None)
        if local is None:
            local = self._attempts = threading.local()
        return local

    def _halt(self, stopped: Stopped) -> None:
        with self._lock:
            if self._stopped is None:
                self._stopped = stopped
        self._stop.set()

    def _intend(self, row: int, changes: dict[str, list[Any]] | None = None, *, record_id: str = "",
                create: tuple[str, str | None, dict[str, Any]] | None = None) -> None:
        assert self.journal is not None
        self.journal.intend(row, changes, record_id=record_id, create=create)

    def _sent_update(self, row: int) -> dict[str, list[Any]]:
        """The changes of an update this row was being sent as when an earlier run stopped, else {}."""
        journal = self.journal
        if journal is None or not journal.was_sending(row):
            return {}
        entry = journal.entry(row)
        return entry.changes if entry is not None else {}

    def _full(self, summary: dict[str, Any]) -> dict[str, Any]:
        if self.kind.list_is_full:
            return summary
        self._backoff.wait()
        return self.api.get_record(self.options.kind, str(summary["id"]))

    def _idempotency_key(self, row: int, parent_id: str | None) -> str:
        assert self.journal is not None
        return idempotency_key(self.journal.header, self.options.kind, parent_id, row)

    def _finish(self, row: int, status: str, record_id: str = "", error: str = "", *, name: str = "",
                changes: dict[str, list[Any]] | None = None, left: dict[str, Any] | None = None) -> None:
        assert self.journal is not None
        self.journal.record(row, status, record_id, error, name, changes, left)
        with self._lock:
            self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._progress(status)


#: A row whose intent was written but that was never sent (the run stopped first).
UNSENT = "unsent"


class _Retry(Exception):
    """Send the same request again (after the shared pause)."""


class _Abandon(Exception):
    """The run is stopping. `sent`: an attempt at the row went out (the resume finds out what it did);
    otherwise the row was not sent at all by this run."""

    def __init__(self, *, sent: bool) -> None:
        super().__init__("the run is stopping")
        self.sent = sent


def _unreachable_seconds() -> float:
    try:
        return float(os.environ.get("WFCTL_UNREACHABLE_SECONDS") or UNREACHABLE_SECONDS)
    except ValueError:
        return UNREACHABLE_SECONDS


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _drain_put(tasks: Any) -> None:
    """Put the end marker even when the queue is full of rows that will not be sent."""
    import queue

    while True:
        try:
            tasks.put_nowait(None)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                tasks.get_nowait()


def _pause_for(exc: Any, attempt: int) -> float:
    """The service's Retry-After when it gave one, else capped exponential back-off."""
    wanted = getattr(exc, "retry_after", None)
    if isinstance(wanted, int | float) and wanted >= 0:
        return min(30.0, float(wanted))
    return min(30.0, 0.25 * 2 ** attempt)


def _transient(exc: Any) -> bool:
    return exc.status is None or exc.status in (429, 502, 503, 504)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
