"""A bulk import run: validate every row, resolve parents, plan by natural key, send concurrently.

Passes over the (streamed) file, so memory does not grow with its size beyond a few bytes a row:

1. parent references (`client` names, `clientId`s) are collected and resolved;
2. existing records of those parents are listed (natural key -> summary);
3. every row is decoded and validated with the write models; problems are listed with row and column
   and, unless `skip_invalid`, stop the run before anything is sent;
4. rows are sent by a pool of threads sharing one Client, at most `concurrency` at a time; each outcome
   goes to the journal; 429/503 pause every worker together;
5. the report re-reads the file and the journal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from wfctl.bulk import csvformat
from wfctl.bulk.journal import Journal
from wfctl.bulk.kinds import KINDS, Kind, natural_key, same_record
from wfctl.bulk.reader import CsvInput, Row

MAX_LISTED_PROBLEMS = 50
MAX_ATTEMPTS = 6
BITMAP_BYTES = 1 << 20
STATUSES = ("created", "updated", "unchanged", "skipped", "failed", "invalid")
DRY_STATUSES = {"created": "create", "updated": "update"}


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
    journal_path: str | None = None
    target: str = ""  # the service origin (names the journal)


@dataclass
class Summary:
    rows: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    problems: list[Problem] = field(default_factory=list)
    invalid: int = 0
    resumed: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    journal_path: str | None = None

    @property
    def failed(self) -> int:
        return self.counts["failed"] + self.counts["invalid"]


class ValidationStopped(Exception):
    """Some rows are invalid: nothing was sent."""

    def __init__(self, summary: Summary) -> None:
        super().__init__(f"{summary.invalid} of {summary.rows} rows are invalid")
        self.summary = summary


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
                 on_total: Callable[[int], None] | None = None) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind: Kind = KINDS[options.kind]
        self.summary = Summary(dry_run=options.dry_run)
        self._progress = progress or (lambda status: None)
        self._on_total = on_total or (lambda total: None)
        self._parents: dict[str, str | None] = {}  # reference -> id (None: unresolved, message below)
        self._parent_errors: dict[str, str] = {}
        self._existing: dict[tuple[str | None, str], dict[str, Any]] = {}
        self._invalid_rows: set[int] = set()
        self._duplicates: dict[int, str] = {}  # row -> message, for the second and later of a name
        self._skip_columns = csvformat.READ_ONLY_COLUMNS | {self.kind.parent_id_column, self.kind.parent_name_column}
        from wfctl.api.models import WRITE_MODELS

        self._model = WRITE_MODELS[(options.kind, "create")]
        self._backoff = Backoff()
        self._lock = threading.Lock()
        self.journal: Journal | None = None
        self._spool: Any = None
        lean_writer = getattr(api, "lean_writer", None)  # test doubles of the Client have none
        self._sender = lean_writer() if lean_writer is not None else None

    # -- the run -------------------------------------------------------------------------------

    def validate(self) -> Summary:
        """Passes 1-3. Raises ValidationStopped when rows are invalid and skip_invalid is off."""
        started = time.monotonic()
        self._check_columns()
        self._resolve_parents()
        self._load_existing()
        self._validate_rows()
        self.summary.seconds = time.monotonic() - started
        if self.summary.invalid and not self.options.skip_invalid:
            raise ValidationStopped(self.summary)
        return self.summary

    def run(self) -> Summary:
        """Pass 4: send (or, on a dry run, plan) every valid row not done by an earlier run."""
        started = time.monotonic()
        opts = self.options
        header = {"file": self.source.sha256, "kind": opts.kind, "target": opts.target,
                  "parent": opts.parent_id or "", "onExisting": opts.on_existing}
        if opts.dry_run:
            import tempfile

            fd, path = tempfile.mkstemp(prefix="wfctl-plan-", suffix=".journal")
            import os

            os.close(fd)
            self.journal = Journal(path, header, self.summary.rows, resume=False)
        else:
            from wfctl.bulk.journal import default_path

            path = opts.journal_path or default_path(opts.kind, self.source.sha256, opts.target)
            self.journal = Journal(path, header, self.summary.rows)
            self.summary.journal_path = path
        self.summary.resumed = self.journal.resumed
        for row in range(1, self.summary.rows + 1):
            if self.journal.done[row]:
                with self._lock:
                    status = (self.journal.outcome(row) or ("created",))[0]
                    self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._on_total(self.summary.rows)
        complete = False
        try:
            self._send_all()
            complete = self.summary.counts["failed"] == 0 and self.summary.invalid == 0
        finally:
            self.journal.finish(complete and not opts.dry_run)
            if self._spool is not None:
                self._spool.close()
                self._spool = None
            self.summary.seconds = time.monotonic() - started
        return self.summary

    def outcomes(self) -> Iterator[tuple[Row, str, str, str]]:
        """Every input row with (status, id, error), in file order, for the report."""
        for row in self.source.rows():
            problems, _, _ = self._check(row)
            if problems:
                yield row, "invalid", "", "; ".join(f"{p.column}: {p.message}" if p.column else p.message
                                                    for p in problems)
                continue
            outcome = self.journal.outcome(row.number) if self.journal else None
            if outcome is None:
                yield row, "not sent", "", ""
            else:
                status = outcome[0]
                if self.options.dry_run:
                    status = DRY_STATUSES.get(status, status)
                yield row, status, outcome[1], outcome[2]
        if self.journal:
            self.journal.close_reader()

    # -- passes 1-3 ----------------------------------------------------------------------------

    def _check_columns(self) -> None:
        known = csvformat.known_columns(self.options.kind)
        for column in self.source.header:
            if column not in known:
                self._problem(0, 1, column, "unknown column; the columns are "
                              + ", ".join(csvformat.columns_for(self.options.kind)))
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
        pid = csvformat.strip_neutraliser(row.cells.get(kind.parent_id_column or "", "")).strip()
        if pid:
            return "id:" + pid
        pname = csvformat.strip_neutraliser(row.cells.get(kind.parent_name_column or "", "")).strip()
        if pname:
            return "name:" + natural_key(pname)
        return None

    def _resolve_parents(self) -> None:
        if not self.kind.parent:
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

        by_name: dict[str, list[str]] = {}
        if any(ref.startswith("name:") for ref in refs):
            for parent in self.kind.iter_parents(self.api):
                by_name.setdefault(natural_key(parent.get("name")), []).append(str(parent["id"]))
        for ref in sorted(refs):
            what, value = ref.split(":", 1)
            if what == "id":
                try:
                    self.kind.get_parent(self.api, value)
                    self._parents[ref] = value
                except NotFound:
                    self._parents[ref] = None
                    self._parent_errors[ref] = f"no {self.kind.parent} with id {value!r}"
            else:
                ids = by_name.get(value, [])
                if len(ids) == 1:
                    self._parents[ref] = ids[0]
                else:
                    self._parents[ref] = None
                    self._parent_errors[ref] = (
                        f"no {self.kind.parent} is named {value!r}" if not ids else
                        f"{len(ids)} {self.kind.parent}s are named {value!r}; use {self.kind.parent_id_column}")

    def _load_existing(self) -> None:
        parents: list[str | None] = [None]
        if self.kind.parent:
            parents = [p for p in sorted({p for p in self._parents.values() if p})]
        for parent_id in parents:
            for record in self.kind.iter_existing(self.api, parent_id):
                self._existing[(parent_id, natural_key(record.get("name")))] = record

    def _validate_rows(self) -> None:
        # Duplicate names in the file, in constant memory: a fixed 1 MiB bitmap of name digests; a bit
        # that is already set makes its digest a candidate (a duplicate, or one of ~1% false alarms at
        # 100,000 rows), and a cheap second pass over the candidates' rows decides.
        seen = bytearray(BITMAP_BYTES)
        candidates: set[int] = set()
        rows = 0
        self._spool = tempfile.TemporaryFile(prefix="wfctl-rows-")  # noqa: SIM115 - read by run()
        spool = self._spool
        for row in self.source.rows():
            rows += 1
            problems, parent, body = self._check(row)
            if problems:
                self._invalid(row, problems)
                continue
            # The checked body, so the send pass does not decode and validate every row again.
            spool.write(f"{row.number}\t{parent or ''}\t{json.dumps(body, ensure_ascii=False)}\n".encode())
            key = self._name_digest(row, parent)
            bit = key % (BITMAP_BYTES * 8)
            if seen[bit >> 3] & (1 << (bit & 7)):
                candidates.add(key)
            else:
                seen[bit >> 3] |= 1 << (bit & 7)
        self.summary.rows = rows
        del seen
        if candidates:
            self._check_duplicates(candidates)

    def _check_duplicates(self, candidates: set[int]) -> None:
        first: dict[int, int] = {}
        for row in self.source.rows():
            if row.number in self._invalid_rows:
                continue
            parent = self._parents.get(self._parent_ref(row) or "") if self.kind.parent else None
            key = self._name_digest(row, parent)
            if key not in candidates:
                continue
            if key in first:
                name = csvformat.strip_neutraliser(row.cells.get("name", "")).strip()
                message = (f"{name!r} is already row {first[key]} "
                           f"(names are unique per {self.kind.parent or 'agency'})")
                self._duplicates[row.number] = message
                self._invalid(row, [Problem(row.number, row.line, "name", message)])
            else:
                first[key] = row.number

    def _name_digest(self, row: Row, parent: str | None) -> int:
        name = csvformat.strip_neutraliser(row.cells.get("name", ""))
        return _digest(f"{parent}\x00{natural_key(name)}")

    def _check(self, row: Row) -> tuple[list[Problem], str | None, dict[str, Any]]:
        """(problems, parent id, JSON body) of one row: decoding, field rules, parent, on-existing=fail."""
        from pydantic import ValidationError

        from wfctl.api.models import field_errors

        problems: list[Problem] = []
        if row.extra:
            problems.append(Problem(row.number, row.line, "", f"{row.extra} more cell(s) than the header has columns"))
        data: dict[str, Any] = {}
        skip = self._skip_columns
        for column, text in row.cells.items():
            if column in skip:
                continue
            try:
                value = csvformat.decode_cell(column, text)
            except csvformat.CellError as exc:
                problems.append(Problem(row.number, row.line, column, str(exc)))
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
        body: dict[str, Any] = {}
        try:
            body = self._model.model_validate(data).body()
        except ValidationError as exc:
            for location, messages in field_errors(exc).items():
                column = location.split("[", 1)[0].split(".", 1)[0]
                detail = location[len(column):].lstrip(".")
                for message in messages:
                    problems.append(Problem(row.number, row.line, column,
                                            f"{detail}: {message}" if detail else message))
        if (not problems and self.options.on_existing == "fail"
                and (parent_id, natural_key(body.get("name"))) in self._existing):
            problems.append(Problem(row.number, row.line, "name",
                                    f"{body.get('name')!r} already exists (--on-existing fail)"))
        if not problems and row.number in self._duplicates:
            problems.append(Problem(row.number, row.line, "name", self._duplicates[row.number]))
        return problems, parent_id, body

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
        """Producer (this thread: read, check, plan each row) and `concurrency` workers on a bounded queue."""
        import queue

        assert self.journal is not None
        limit = max(1, self.options.concurrency)
        tasks: queue.Queue[tuple[int, str | None, dict[str, Any], dict[str, Any] | None] | None] = \
            queue.Queue(maxsize=limit * 4)
        stop = threading.Event()

        def work() -> None:
            while (task := tasks.get()) is not None:
                if not stop.is_set():
                    self._send_row(*task)

        workers = [threading.Thread(target=work, name=f"wfctl-import-{i}", daemon=True) for i in range(limit)]
        for worker in workers:
            worker.start()
        try:
            for number, parent_id, body in self._checked_rows():
                if number in self._invalid_rows or self.journal.done[number]:
                    continue
                existing = self._existing.get((parent_id, natural_key(body.get("name"))))
                if existing is not None and self.options.on_existing != "update":
                    self._finish(number, "skipped", str(existing.get("id", "")))
                    continue
                tasks.put((number, parent_id, body, existing))
        except BaseException:
            stop.set()  # Ctrl-C: the rows in flight finish and are journaled; the queued ones are dropped
            raise
        finally:
            for _ in workers:
                if stop.is_set():
                    _drain_put(tasks)
                else:
                    tasks.put(None)
            for worker in workers:
                worker.join()

    def _checked_rows(self) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
        """(row, parent id, body) of every row that passed the checks, from the spool."""
        spool = self._spool
        assert spool is not None
        spool.flush()
        spool.seek(0)
        for line in spool:
            number, parent, body = line.decode().split("\t", 2)
            yield int(number), parent or None, json.loads(body)

    def _send_row(self, row: int, parent_id: str | None, body: dict[str, Any],
                  existing: dict[str, Any] | None) -> None:
        from wfctl.api.errors import ApiError

        try:
            if existing is not None:
                status, record_id = self._update(parent_id, body, existing)
            else:
                status, record_id = self._create(row, parent_id, body)
            self._finish(row, status, record_id)
        except ApiError as exc:
            self._finish(row, "failed", "", exc.one_line())
        except Exception as exc:  # a worker must record every row, whatever went wrong
            self._finish(row, "failed", "", f"{exc.__class__.__name__}: {exc}")

    def _create(self, row: int, parent_id: str | None, body: dict[str, Any]) -> tuple[str, str]:
        from wfctl.api.errors import ApiError, Conflict

        if self.options.dry_run:
            return "created", ""
        key = self._idempotency_key(row, parent_id)
        attempt = 0
        while True:
            attempt += 1
            self._backoff.wait()
            try:
                record = self.kind.create(self.api, parent_id, body, key, self._sender)
                return "created", str(record.get("id", ""))
            except Conflict:
                found = self._find(parent_id, body.get("name"))
                if found is None:
                    raise
                if same_record(body, self._full(found)):
                    return "created", str(found.get("id", ""))  # ours, whose answer was lost
                if self.options.on_existing == "update":
                    return self._update(parent_id, body, found)
                return "skipped", str(found.get("id", ""))
            except ApiError as exc:
                if not _transient(exc) or attempt >= MAX_ATTEMPTS:
                    raise
                if exc.status in (429, 503):
                    # Not applied: every worker pauses for the service's Retry-After, then this one resends.
                    self._backoff.trigger(_pause_for(exc, attempt))
                    continue
                # The answer may have been lost after the service applied it: look before re-sending.
                found = self._find(parent_id, body.get("name"))
                if found is not None:
                    return "created", str(found.get("id", ""))

    def _update(self, parent_id: str | None, body: dict[str, Any],
                existing: dict[str, Any]) -> tuple[str, str]:
        record_id = str(existing.get("id", ""))
        current = self._full(existing)
        if same_record(body, current):
            return "unchanged", record_id
        if self.options.dry_run:
            return "updated", record_id
        from wfctl.api.errors import ApiError

        attempt = 0
        while True:
            attempt += 1
            self._backoff.wait()
            try:
                self.kind.update(self.api, record_id, body, self._sender)
                return "updated", record_id
            except ApiError as exc:  # PUT is idempotent: sending it again is safe
                if not _transient(exc) or attempt >= MAX_ATTEMPTS:
                    raise
                if exc.status in (429, 503):
                    self._backoff.trigger(_pause_for(exc, attempt))

    def _full(self, summary: dict[str, Any]) -> dict[str, Any]:
        if self.kind.list_is_full:
            return summary
        self._backoff.wait()
        return self.kind.get(self.api, str(summary["id"]))

    def _find(self, parent_id: str | None, name: Any) -> dict[str, Any] | None:
        """Look a record up by its natural key, on the service (not the plan's snapshot)."""
        wanted = natural_key(name)
        self._backoff.wait()
        for record in self.kind.iter_existing(self.api, parent_id):
            if natural_key(record.get("name")) == wanted:
                return record
        return None

    def _idempotency_key(self, row: int, parent_id: str | None) -> str:
        seed = f"{self.source.sha256}:{self.options.kind}:{parent_id or ''}:{row}"
        return "wfctl-import-" + hashlib.sha256(seed.encode()).hexdigest()[:40]

    def _finish(self, row: int, status: str, record_id: str = "", error: str = "") -> None:
        assert self.journal is not None
        self.journal.record(row, status, record_id, error)
        with self._lock:
            self.summary.counts[status] = self.summary.counts.get(status, 0) + 1
        self._progress(status)


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
