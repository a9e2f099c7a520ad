"""An import's plan made ready to run, two ways: prepared for this run (`prepare`), or saved to a file
after review and run exactly as reviewed (`write_plan`, `load_plan`, `changed_since`, `actions`).

An import's plan made ready to run (issue 31 §2): each valid row's action as the plan decides it
(importplan.py), each update's whole record read once (concurrently, on the one executor: 3,000 sites took
12-16 s one after another) and its outcome computed (what it changes, or that it is left as it is); the
spreadsheet check (damage.py) reviews those changes, and a real run then executes exactly these actions,
read back from a spool (memory stays flat), without validating a row or reading a record again. A dry run
prepares the same way, the rows that exist only (its creates are in the plan's spool already), and shows
their outcomes (`Prepared.outcomes`) as its plan.

    prepared = prepare(plan, api, journal, options, rows=n, pause=pause)  # raises Stopped (Ctrl-C: nothing sent)
    prepared.findings                                # what the spreadsheet check found in its changes
    RowWriter(...).send_all(plan, prepared, run)     # exactly these actions (sending.py)

A reviewed plan saved and run exactly as reviewed (issue 32 §2): `import FILE --dry-run --plan-out
plan.json` writes it, `import FILE --plan plan.json` runs it.

The saved plan is JSON: `{"wfctlPlan": 1, "kind", "target", "file" (the input's SHA-256), "path",
"parent", "scope": {"label", "parentIds"} | null, "onExisting", "rows", "inScope", "creates": [{"row",
"parent", "name", "body"}], "updates": [{"row", "id", "name", "parent", "byId", "body", "changes",
"state"}], "deletes": [{"id", "name", "parent", "state"}]}`: each update's and delete's `state`
is its whole record as read when the plan was made (a delete's journal key is its record's delete; a plan
of an earlier version also held a `"key"`, a number, which is not read).

Running it takes the same FILE (its SHA-256 must match: the run's journal, lock and resume are those of
that file's import) but plans nothing: it reads again only the records the plan targets (each update's
and delete's record; for each create, a record of its name under its parent) and refuses, naming them,
any that changed since (`changed_since`); otherwise it runs exactly those actions on the one executor.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from wfctl.api.net.retry import Pause
from wfctl.api.records.ordered import ordered_map
from wfctl.api.records.resources import resource
from wfctl.files.errors import BulkError, FileError
from wfctl.files.files import atomic_text_file
from wfctl.files.spool import Spool
from wfctl.plans.importplan import ImportPlan, PlannedRow, Prepared, update_of, whole_record
from wfctl.plans.importtypes import Options
from wfctl.plans.kinds import KINDS
from wfctl.plans.prune import Delete, PrunePlan
from wfctl.plans.scope import Scope
from wfctl.runs.engine import Executor, RunContext
from wfctl.runs.journal import Journal
from wfctl.runs.journalentry import DELETE, ActionKey, Key
from wfctl.runs.sending import RowAction, RowWriter


@dataclass
class ReadAction:
    """A row of the plan, as an action of the executor: an update reads its record and says what it
    changes, a create or a row left as it is is spooled as it is (so that one worker keeps file order).
    Its key is the row's number; nothing is journalled (nothing is sent)."""

    preparing: _Preparing
    key: int
    planned: PlannedRow
    update: bool  # an update of `planned.existing` (on_existing update), else a create or a skip

    def apply(self, run: RunContext) -> None:
        if self.update:
            self.preparing.read(self.planned)
        else:
            self.preparing.add(self.planned, "created" if self.planned.existing is None else "skipped")


class _Preparing:
    """One planning pass: the spool it writes, the review it tells, under one lock (the executor's workers
    read the records): what it reads a record with is given, `api` after `pause`."""

    def __init__(self, api: Any, kind: str, pause: Pause, spool: Spool, progress: Callable[[str], None]) -> None:
        self.api = api
        self.kind = KINDS[kind]
        self.pause = pause
        self.spool = spool
        from wfctl.files.damage import Review  # loaded only when a run plans first

        self.progress = progress
        self.review = Review()
        self.lock = threading.Lock()

    def add(self, planned: PlannedRow, status: str) -> None:
        """A row whose action needs no read: a create, a row left as it is."""
        existing = planned.existing
        outcome = ((status, "", "", str(planned.body.get("name", "")), None) if existing is None else
                   (status, str(existing.get("id", "")), "", str(existing.get("name", "")), None))
        with self.lock:
            self.spool.add_prepared(planned.row, planned.parent_id, planned.body, existing, None, outcome)
            if status == "created":
                self.review.create(planned.row, str(planned.body.get("name", "")), planned.parent_id)
        self.progress(status)

    def read(self, planned: PlannedRow) -> None:
        """An update: its record read, what it changes reviewed."""
        from wfctl.api.errors import ApiError, Interrupted
        from wfctl.api.net.redact import redact_text

        row, parent_id, body, existing = planned.row, planned.parent_id, planned.body, planned.existing
        assert existing is not None
        error = ""
        try:
            current: dict[str, Any] | None = whole_record(self.api, self.kind, self.pause, existing)
        except Interrupted:
            raise  # the run is stopping
        except ApiError as exc:  # not read now: a run reads it when it sends the row; a plan says why
            current, error = None, exc.one_line()
        except Exception as exc:
            current, error = None, redact_text(f"{exc.__class__.__name__}: {exc}")
        changes: dict[str, list[Any]] = {}
        if current is not None:
            name, _, changes = update_of(self.kind.name, body, current, by_id=planned.by_id)
            status = "updated" if changes else "unchanged"
            outcome = (status, str(existing.get("id", "")), "", name, changes or None)
        else:
            name, status = "", "failed"
            outcome = (status, "", error, str(body.get("name", "")), None)
        with self.lock:
            self.spool.add_prepared(row, parent_id, body, existing, current, outcome)
            if changes:
                self.review.update(row, name, changes)
        self.progress(status)


def prepare(plan: ImportPlan, api: Any, journal: Journal, options: Options, *, rows: int, pause: Pause,
            note: Callable[[str], None] | None = None, progress: Callable[[str], None] | None = None,
            on_total: Callable[[int, int], None] | None = None, creates: bool = True) -> Prepared:
    """`plan`'s actions as a real run executes them, each update's record read once (concurrently), the
    rows `journal` says are done left out; with their spreadsheet findings. `rows`: the file's, for the
    progress line; `creates` False (a dry run): the rows that exist only, and no pass at all when every
    row is a create. Raises Stopped (Ctrl-C: nothing was sent), TemporaryFull."""
    spool = Spool(planned=False)
    try:
        preparing = _Preparing(api, options.kind, pause, spool, progress or (lambda status: None))
        update = options.on_existing == "update"
        (on_total or (lambda total, done: None))(rows, 0)

        def actions() -> Iterator[ReadAction]:
            if not creates and not plan.has_others():
                return
            for planned in plan.rows():
                if not creates and planned.existing is None:
                    continue
                if not journal.done(planned.row):
                    yield ReadAction(preparing, planned.row, planned, update and planned.existing is not None)

        run = RunContext(api, journal, pause=pause, note=note)
        Executor(run, options.concurrency, name="wfctl-plan").run(actions())  # raises Stopped
        spool.written()
    except BaseException:
        spool.close()
        raise
    preparing.review.cut({row: cut for row, cut in plan.cut_creates.items() if not journal.done(row)})
    return Prepared(spool, plan.id_rows, preparing.review.findings(plan.inventory.existing))


VERSION = 1


def write_plan(path: str, importer: Any, pruning: PrunePlan | None) -> dict[str, Any]:
    """Write the dry run's plan (`importer`, after `run()`) to `path`, each update's whole record read
    now; returns it."""
    options: Options = importer.options
    plan = importer.plan()
    api = importer.api
    kind = options.kind
    creates, updates = [], []
    outcomes = {entry.row: entry for entry in importer.journal.iter_entries()}
    for planned in plan.rows():
        if planned.existing is None:
            creates.append({"row": planned.row, "parent": planned.parent_id, "name": planned.body.get("name"),
                            "body": planned.body})
        elif (entry := outcomes.get(planned.row)) is not None and entry.status == "updated":
            updates.append({"row": planned.row, "id": entry.id, "name": entry.name, "parent": planned.parent_id,
                            "byId": planned.by_id, "body": planned.body, "changes": entry.changes})
    states = ordered_map(lambda update: api.get_record(kind, update["id"]), updates, options.concurrency,
                         name="wfctl-plan")
    for update, state in zip(updates, states, strict=True):
        update["state"] = state
    scope = options.scope
    saved = {"wfctlPlan": VERSION, "kind": kind, "target": options.target, "file": importer.source.sha256,
             "path": options.file_path, "parent": options.parent_id, "onExisting": options.on_existing,
             "scope": {"label": scope.label, "parentIds": list(scope.parent_ids) if scope.parent_ids else None,
                       "parentNames": list(scope.parent_names)} if scope is not None else None,
             "rows": importer.summary.rows, "inScope": pruning.in_scope if pruning else 0,
             "creates": creates, "updates": updates,
             "deletes": [{"id": str(record.get("id")), "name": record.get("name"), "parent": parent,
                          "state": record} for _, parent, record in (pruning.deletes if pruning else [])]}
    with atomic_text_file(path, bom=False) as f:
        json.dump(saved, f, ensure_ascii=False, indent=1)
        f.write("\n")
    return saved


@dataclass
class SavedPlan:
    data: dict[str, Any]

    @property
    def counts(self) -> tuple[int, int, int]:
        return len(self.data["creates"]), len(self.data["updates"]), len(self.data["deletes"])

    def pruning(self) -> PrunePlan:
        """The plan's deletes, as a prune plans them (to show them and ask)."""
        scope = self.data.get("scope") or {}
        ids = scope.get("parentIds")
        prune = PrunePlan(Scope(self.data["kind"], tuple(ids) if ids is not None else None, scope.get("label", ""),
                                tuple(scope.get("parentNames") or ())), self.data["kind"])
        prune.deletes = [(_delete_key(self.data["kind"], d), d.get("parent"), d["state"]) for d in self.data["deletes"]]
        prune.in_scope = int(self.data.get("inScope") or 0)
        return prune


def load_plan(path: str, options: Options, sha256: str) -> SavedPlan:
    """The plan saved in `path`, checked against this run: the same kind, service, input file and parent.
    Raises FileError (unreadable), BulkError (another import's plan)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise FileError(f"cannot read the plan {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(data, dict) or data.get("wfctlPlan") != VERSION:
        raise BulkError(f"{path} is not a plan written by --plan-out")
    for key, mine, what in (("kind", options.kind, "records"), ("target", options.target, "service"),
                            ("file", sha256, "input file (it changed since the plan: make the plan again)"),
                            ("parent", options.parent_id, "--client/--branch")):
        if (data.get(key) or None) != (mine or None):
            raise BulkError(f"{path} is the plan of another {what}; nothing was sent")
    return SavedPlan(data)


def changed_since(api: Any, saved: SavedPlan, concurrency: int,
                  ours: Callable[[Key], bool] = lambda key: False) -> list[str]:
    """Each record the plan targets that is not as the plan read it, said (`site 'Dock 4' (<id>): phone
    changed`); reads only those records (and each create's name under its parent). `ours(key)`: an action
    (a row, a delete) a stopped run of this plan did (or sent), which it resumes: not checked (its change
    is the plan's own)."""
    from wfctl.api.errors import NotFound

    kind = saved.data["kind"]
    spec = resource(kind)
    fields = [*spec.writable, *([spec.parent_field] if spec.parent_field else [])]

    def check(item: dict[str, Any]) -> str | None:
        where = f"{kind} {item.get('name')!r} ({item.get('id')})"
        try:
            now = api.get_record(kind, item["id"])
        except NotFound:
            return f"{where}: deleted since the plan"
        differ = [name for name in fields if item["state"].get(name) != now.get(name)]
        return f"{where}: {', '.join(differ)} changed since the plan" if differ else None

    def free(item: dict[str, Any]) -> str | None:
        found = api.find_by_name(kind, item.get("parent"), item.get("name"))
        return None if found is None else \
            f"{kind} {item.get('name')!r}: made since the plan ({found.get('id')}); the plan creates it"

    asked = [*((check, item) for item in saved.data["updates"] if not ours(int(item["row"]))),
             *((check, item) for item in saved.data["deletes"] if not ours(_delete_key(kind, item))),
             *((free, item) for item in saved.data["creates"] if not ours(int(item["row"])))]
    said = ordered_map(lambda ask: ask[0](ask[1]), asked, concurrency, name="wfctl-plan")
    return [text for text in said if text]


def actions(saved: SavedPlan, writer: RowWriter, journal: Journal) -> list[Any]:
    """The plan's actions, as reviewed, those an earlier run of it did left out: each create and update
    (a file row's), then each delete."""
    made: list[Any] = []
    for item in sorted([*saved.data["creates"], *saved.data["updates"]], key=lambda item: int(item["row"])):
        row = int(item["row"])
        if journal.done(row):
            continue
        state = item.get("state")  # an update's record as the plan read it (and as it is now: checked)
        made.append(RowAction(writer, row, item.get("parent"), item["body"], state, state, bool(item.get("byId"))))
    kind = saved.data["kind"]
    made.extend(Delete(writer, _delete_key(kind, d), d.get("parent"), d["state"]) for d in saved.data["deletes"]
                if not journal.done(_delete_key(kind, d)))
    return made


def _delete_key(kind: str, delete: dict[str, Any]) -> ActionKey:
    """A saved delete's journal key: the record's delete (a plan of an earlier version also held a number,
    its row after the file's)."""
    return ActionKey(kind, str(delete["id"]), DELETE)
