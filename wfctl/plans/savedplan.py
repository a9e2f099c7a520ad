"""A reviewed plan saved and run exactly as reviewed (issue 32 §2): `import FILE --dry-run --plan-out
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wfctl.api.records.ordered import ordered_map
from wfctl.api.records.resources import resource
from wfctl.files.errors import BulkError, FileError
from wfctl.files.files import atomic_text_file
from wfctl.plans.importtypes import Options
from wfctl.plans.prune import Delete, PrunePlan
from wfctl.plans.scope import Scope
from wfctl.runs.journal import Journal
from wfctl.runs.journalentry import DELETE, ActionKey, Key
from wfctl.runs.sending import RowAction, RowWriter

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
