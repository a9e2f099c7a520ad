"""`import --prune` (issue 32 §2): the records of the declared scope that no row of the file keeps are
deleted, as actions of the one executor (engine.py) after the file's rows, journalled, resumable and
taken back by `imports undo` (it re-creates them, with new ids).

A prune is a planning change: `plan_prune` turns an import's plan (its `absent()` records) into the
deletes, or refuses:

- a parent in scope that holds records while the file has no row for it (or a file with no rows):
  `would delete all 25 sites of client Pennine Foods Ltd; the file has none of them`;
- a record that still holds records of its own (a client with sites, a branch with clients) is not
  deleted: the plan says so (`held`), and the service would refuse it anyway (G14);
- `limit_error`: more deletes than --max-deletes, or a larger share of the scope's records than
  --max-delete-share, at every size; --allow-deletes N goes past them when the plan deletes exactly N.

Each delete's whole record is read by planning (a list item lacks rates, departments, banned workers):
the plan shows it, the journal keeps it for undo, the send pass sends only the DELETEs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.records.ordered import ordered_map
from wfctl.api.records.resources import RESOURCES, counted, resource
from wfctl.exit_codes import ExitCode
from wfctl.files.errors import BulkError
from wfctl.files.reader import Row
from wfctl.plans.importplan import ImportPlan
from wfctl.plans.importtypes import UNSENT, Options
from wfctl.plans.scope import Scope
from wfctl.runs.engine import Abandon, RunContext
from wfctl.runs.journal import DELETE, SENDING, ActionKey, Entry, Journal, JournalError

#: A delete the service no longer had (deleted by someone else since the plan): its status and note.
GONE = "gone"
ALREADY_GONE = "already gone"


@dataclass
class Held:
    """A record no row keeps that is not deleted: it still holds `children` records of `child` kind."""

    parent_id: str | None
    record: dict[str, Any]
    child: str
    children: int


@dataclass
class PrunePlan:
    """The deletes of a prune, in the plan's order (parent, then name), each with its whole record as
    read and its journal key; `held`: the records kept because they still hold records; `in_scope`: how
    many records the scope holds."""

    scope: Scope
    kind: str
    deletes: list[tuple[ActionKey, str | None, dict[str, Any]]] = field(default_factory=list)  # (key, parent, record)
    held: list[Held] = field(default_factory=list)
    in_scope: int = 0
    #: (key, id, parent, name, the fields it held) of each delete gone since
    settled: list[tuple[ActionKey, str, str | None, str, dict[str, list[Any]]]] = field(default_factory=list)
    #: a copy's: the records not deleted because the other profile still holds the record each was copied
    #: from, found by its id there though its listing left it out (record, what was found)
    at_source: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    #: --skip-misplaced: the records listed in scope whose own parent is another, left out (never deleted)
    misplaced: list[dict[str, Any]] = field(default_factory=list)
    #: a resumed prune: the deletes the run it resumes journalled whose records are gone now (done, or
    #: deleted by someone else): with `count`, the number the person confirmed (`total`)
    earlier: int = 0

    @property
    def count(self) -> int:
        return len(self.deletes)

    @property
    def total(self) -> int:
        """Every delete of the prune: this run's and those of the run it resumes (`--allow-deletes` names it)."""
        return self.count + self.earlier

    @property
    def share(self) -> float:
        """The prune's share of the scope as it was before its first delete."""
        whole = self.in_scope + self.earlier
        return self.total / whole if whole else 0.0

    def counted(self) -> str:
        return counted(self.kind, self.total)


def plan_prune(plan: ImportPlan, api: Any, options: Options, journal: Journal | None) -> PrunePlan:
    """The deletes of `plan` (its `absent()` records), each whole record read, at most `concurrency`
    requests at once. Raises BulkError: no scope, --skip-invalid, or a parent in scope the file has no
    row for while it holds records."""
    scope = options.scope
    if scope is None:
        raise BulkError(no_scope_message(options.kind))
    if options.skip_invalid:
        raise BulkError("--prune refuses --skip-invalid: an invalid row would make its record look absent "
                        "and be deleted; fix the invalid rows instead")
    spec = resource(options.kind)
    prune = PrunePlan(scope, options.kind)
    prune.misplaced = [record for _, record in plan.inventory.misplaced]
    held_rows: dict[str | None, int] = {}
    for planned in plan.rows():
        held_rows[planned.parent_id] = held_rows.get(planned.parent_id, 0) + 1
    in_scope: dict[str | None, int] = {}
    for parent, _ in plan.inventory.records:
        if scope.holds(parent):
            in_scope[parent] = in_scope.get(parent, 0) + 1
    prune.in_scope = sum(in_scope.values())
    for parent, count in sorted(in_scope.items(), key=lambda item: _order(scope, item[0])):
        if count and not held_rows.get(parent):
            where = f" of {plan.inventory.parent_names.get(parent or '', scope.name_of(parent))}" \
                if spec.parent else " of the agency"
            raise BulkError(_all_of(spec, count, where, options, rows=sum(held_rows.values())))
    absent = list(plan.absent())
    done = _journalled_deletes(journal)
    child = _child_kind(options.kind)

    def read(task: tuple[str, dict[str, Any]]) -> Any:  # a record's children (how many), or its whole record
        what, record = task
        return _children(api, str(child), str(record["id"])) if what == "children" else _whole(api, spec, record)

    reads = ("children", "whole") if child else ("whole",)
    answers = ordered_map(read, [(what, record) for _, record in absent for what in reads], options.concurrency,
                          name="wfctl-prune")
    misplaced: list[dict[str, Any]] = []
    for parent, record in absent:
        count = next(answers) if child else 0
        whole = next(answers)
        if _elsewhere(spec, whole, parent):  # the record itself names another parent: never a delete here
            misplaced.append(whole)
            continue
        if count and child:
            prune.held.append(Held(parent, record, child, count))
            continue
        record_id = str(record["id"])
        done.pop(record_id, None)
        prune.deletes.append((ActionKey(options.kind, record_id, DELETE), parent, whole))
    if misplaced:
        from wfctl.api.records.listcheck import Listing, check_whole

        check_whole(Listing(misplaced=misplaced), options.kind, set(), scope.label,  # ListingUntrue: exit 1
                    skip_misplaced=options.skip_misplaced)
        prune.misplaced.extend(misplaced)
    _check_at_source(prune, options)
    prune.earlier = len(done)  # journalled by the run this resumes, its record gone now: not planned again
    # a delete an earlier run sent whose answer was lost, and that is gone now: it went through
    prune.settled = [(key, record_id, parent, name, held) for record_id, (key, parent, name, held) in done.items()
                     if journal is not None and journal.was_sending(key)]
    return prune


def limit_error(prune: PrunePlan, options: Options) -> BulkError | None:
    """The refusal of a prune past its limits (exit TOO_MANY_DELETES), or None: more deletes than
    --max-deletes or a larger share of the scope than --max-delete-share, unless --allow-deletes names
    exactly the number the plan deletes; an --allow-deletes of another number refuses too. A resumed prune
    is judged by every delete it has (`PrunePlan.total`): those the run it resumes did count, as confirmed."""
    count = prune.total
    allowed = options.allow_deletes
    if not prune.count and allowed is None:  # nothing left to delete (a resumed prune that did them all)
        return None
    scope = f"{prune.in_scope + prune.earlier} in {prune.scope.label}"
    if allowed is not None:
        if allowed == count:
            return None
        done = f", {prune.earlier} of them done by the run it resumes" if prune.earlier else ""
        return BulkError(f"--allow-deletes {allowed} does not match the plan, which deletes {count} "
                         f"(of {scope}{done}); nothing was sent: review the list above, then give --allow-deletes {count}",
                         ExitCode.TOO_MANY_DELETES)
    over = []
    if count > options.max_deletes:
        over.append(f"--max-deletes {options.max_deletes}")
    if count and prune.share > options.max_delete_share:
        over.append(f"--max-delete-share {options.max_delete_share:.0%}")
    if not over:
        return None
    return BulkError(f"would delete {prune.counted()} of {scope} ({prune.share:.0%}), over {' and '.join(over)}; "
                     f"nothing was sent: review the list above, then give --allow-deletes {count} to go ahead",
                     ExitCode.TOO_MANY_DELETES)


def no_scope_message(kind: str) -> str:
    options = "--client, --branch or --all-clients" if kind == "site" else \
        "--branch or --all-branches" if kind == "client" else ""
    return f"--prune needs a declared scope: give {options}" if options else "--prune needs a declared scope"


@dataclass
class Delete:
    """A prune's delete, as an action of the executor: its journal key is the record's delete."""

    writer: Any  # the run's RowWriter (sending.py): its Client, journal, counts and progress
    key: ActionKey
    parent_id: str | None
    record: dict[str, Any]

    def apply(self, run: RunContext) -> None:
        delete(run, self)


def delete_entries(prune: PrunePlan) -> list[Entry]:
    """The plan's deletes as the plan view shows them (views/planview.py): each record's name, id, parent and the
    fields it holds (`[old, null]`)."""
    return [Entry(key, "deleted", str(record.get("id", "")), "", str(record.get("name", "")),
                  held_fields(prune.kind, record), parent=parent or "", action=DELETE)
            for key, parent, record in prune.deletes]


def report_rows(prune: PrunePlan, journal: Journal | None, *, dry_run: bool
                ) -> Iterator[tuple[Row, str, str, str, str]]:
    """The report's rows of the deletes, after the file's rows: the record's id, name and parent in
    their columns, its status (`deleted`, `gone`, `failed`, `not sent`; a plan's `delete`)."""
    spec = resource(prune.kind)
    for key, parent, record in prune.deletes:
        cells = {"id": str(record.get("id", "")), "name": str(record.get("name", ""))}
        if spec.parent_field:
            cells[spec.parent_field] = parent or ""
        entry = journal.entry(key) if journal is not None and not dry_run else None
        if dry_run:
            status, error = "delete", ""
        elif entry is None or entry.status == UNSENT:
            status, error = "not sent", ""
        elif entry.status == SENDING:
            status, error = "no answer", ""
        else:
            status, error = entry.status, entry.error
        yield Row(0, 0, cells), status, cells["id"], error, ""


def delete_actions(writer: Any, prune: PrunePlan, journal: Journal) -> list[Delete]:
    """The deletes not done by an earlier run; a delete an earlier run sent and that is gone now is
    recorded as deleted."""
    for key, record_id, parent, name, held in prune.settled:  # with the fields its intent held: undo needs them
        writer.record_outcome(key, "deleted", record_id, name=name, changes=held, deleted=parent or "")
    return [Delete(writer, key, parent, record) for key, parent, record in prune.deletes if not journal.done(key)]


def delete(run: RunContext, action: Delete) -> None:
    """Delete one record: its intent (with every field it held) journalled first, then the DELETE."""
    from wfctl.api.errors import ApiError, NotFound

    writer = action.writer
    journal: Journal = writer.journal
    kind = writer.kind
    record, key = action.record, action.key
    record_id, name = str(record.get("id", "")), str(record.get("name", ""))
    held = held_fields(kind.name, record)
    sent_before = journal.was_sending(key)
    parent = action.parent_id or ""
    try:
        journal.intend(key, held, record_id=record_id, delete=(name, action.parent_id))
        run.send(lambda attempt: writer.api.delete_record(kind.name, record_id, sender=run.sender))
    except Abandon as stop:
        if not stop.sent and not sent_before:
            with _suppress_journal():
                journal.record(key, UNSENT, record_id, name=name, deleted=parent)
        return
    except JournalError as exc:
        run.stop_for(exc)
        return
    except NotFound:  # ours when an earlier attempt went out; else someone deleted it since the plan
        if sent_before:
            writer.record_outcome(key, "deleted", record_id, name=name, changes=held, deleted=parent)
        else:
            writer.record_outcome(key, GONE, record_id, ALREADY_GONE, name=name, deleted=parent)
        return
    except ApiError as exc:
        writer.record_outcome(key, "failed", record_id, exc.one_line(), name=name, deleted=parent)
        return
    writer.record_outcome(key, "deleted", record_id, name=name, changes=held, deleted=parent)


def held_fields(kind: str, record: dict[str, Any]) -> dict[str, list[Any]]:
    """The writable fields a record held, as changes of a delete (`[old, None]`): what undo re-creates."""
    return {name: [record[name], None] for name in resource(kind).writable if record.get(name) is not None}


# -- private ---------------------------------------------------------------------------------------

def _all_of(spec: Any, count: int, where: str, options: Options, *, rows: int) -> str:
    """The refusal of a prune that would delete every record of a parent: a file with no rows at all (a
    header only: the wrong file, or an export that failed) says so; `wfctl <kind> delete`, one record at a
    time, is named only for as few records as --max-deletes lets a prune delete."""
    import os

    records = counted(spec.name, count) if count != 1 else f"1 {spec.name}"
    way = f" (to delete them, use `wfctl {spec.plural} delete`)" if count <= options.max_deletes else ""
    if not rows:
        name = os.path.basename(options.file_path) or "the file"
        return (f"{name} has no rows: a prune of it would delete all {records}{where}; nothing was sent"
                + (way or " (is it the file you meant? a prune deletes only what a file leaves out)"))
    return f"would delete all {records}{where}; the file has none of them: nothing was sent{way}"


def _order(scope: Scope, parent: str | None) -> tuple[int, str]:
    ids = scope.parent_ids or ()
    return (ids.index(parent), "") if parent in ids else (len(ids), parent or "")


def _journalled_deletes(journal: Journal | None
                        ) -> dict[str, tuple[ActionKey, str | None, str, dict[str, list[Any]]]]:
    """record id -> (key, parent, name, the fields it held) of the deletes an earlier run of this import
    journalled."""
    found: dict[str, tuple[ActionKey, str | None, str, dict[str, list[Any]]]] = {}
    if journal is None or (not journal.resumed and next(journal.rows(), None) is None):
        return found
    for entry in journal.iter_entries():
        if isinstance(entry.key, ActionKey) and entry.action == DELETE and entry.status in (
                SENDING, UNSENT, "failed", "deleted", GONE):
            found[entry.key.record] = (entry.key, entry.parent or None, entry.name, entry.changes)
    return found


def _child_kind(kind: str) -> str | None:
    """The kind whose records a `kind` record holds (clients: sites; branches: clients), or None."""
    for name, spec in RESOURCES.items():
        if spec.parent == kind:
            return name
    return None


def _children(api: Any, child: str, parent_id: str) -> int:
    """How many `child` records the record `parent_id` holds (0 or more; one short page read)."""
    if resource(child).nested:  # a client's sites: the envelope's count
        for page in api.list_records(child, parent_id, page_size=1):
            return max(int(page.total_record_count or 0), len(page.data))
        return 0
    # a branch's clients: counted as listed (filtered on this side too: G9 counts may be every client's)
    return sum(1 for _ in api.iter_records(child, parent_id))


def _whole(api: Any, spec: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The whole record of a list item (a list item of sites lacks rates, departments, banned workers)."""
    if spec.list_is_full:
        return record
    from wfctl.api.errors import NotFound

    try:
        return dict(api.get_record(spec.name, str(record["id"])))
    except NotFound:  # deleted since the inventory was read: the delete will say it is gone
        return record


def _check_at_source(prune: PrunePlan, options: Options) -> None:
    """A copy's prune: each delete whose record an earlier copy made (its source id journalled) is looked up
    in the other profile by that id, one request per delete and only while the plan keeps to its delete
    limit (past it, the limit refuses anyway); one found there is kept (`at_source`), not deleted. A record
    no copy made cannot be looked up so (docs/imports.md)."""
    check = options.source_check
    bound = max(options.max_deletes, options.allow_deletes or 0)
    if check is None or not prune.deletes or prune.count > bound:
        return
    found = list(ordered_map(lambda item: check(str(item[2].get("id", ""))), prune.deletes, options.concurrency,
                             name="wfctl-source"))
    prune.at_source = [(record, said) for (_, _, record), said in zip(prune.deletes, found, strict=True) if said]
    prune.deletes = [item for item, said in zip(prune.deletes, found, strict=True) if not said]


def _elsewhere(spec: Any, whole: dict[str, Any], parent: str | None) -> bool:
    """Whether a record read by id names, in its own parent field, a parent other than the one it was
    listed under (a listing that lies; a list item without the field is proven here)."""
    if not spec.parent_field or parent is None:
        return False
    value = whole.get(spec.parent_field)
    return value not in (None, "") and str(value) != str(parent)


def _suppress_journal() -> Any:
    import contextlib

    return contextlib.suppress(JournalError)
