"""The scope of a run that compares a file with the service (`import --prune`, `diff`): which records the
file is the truth for, declared on the command line, never inferred from the file's rows (issue 32).

    scope = resolve_scope(api, "site", clients=["Pennine Foods Ltd"])   # client Pennine Foods Ltd
    scope = resolve_scope(api, "site", branch="Leeds")                   # every client of branch Leeds
    scope = resolve_scope(api, "site", all_clients=True)                 # every client
    scope = resolve_scope(api, "client", branch="Leeds")                 # branch Leeds
    scope = resolve_scope(api, "client", all_clients=True)               # every client (every branch)
    scope = resolve_scope(api, "branch")                                 # the agency

References are read as `--client`/`--branch` read them (wfctl.api.records.refs: an id, the beginning of one, a
name). A branch's clients are filtered by their `branchId` on this side as well as by the service's
filter: a deployment that ignores it (G9) never puts another branch's clients in the scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wfctl.api.records.recordrules import natural_key
from wfctl.api.records.resources import resource
from wfctl.files.errors import BulkError


@dataclass(frozen=True)
class Scope:
    """The records of `kind` a run answers for: those of the parents `parent_ids` (None: the kind has no
    parent, every record is in scope); `label` names it in messages (`client Pennine Foods Ltd`,
    `branch Leeds`, `every client`, `the agency`); `parent_names` the parents' names, as `parent_ids`."""

    kind: str
    parent_ids: tuple[str, ...] | None
    label: str
    parent_names: tuple[str, ...] = ()

    def holds(self, parent_id: str | None) -> bool:
        """Whether the records of `parent_id` are in scope."""
        return self.parent_ids is None or parent_id in self.parent_ids

    def named(self, names: dict[str, str]) -> Scope:
        """This scope with the parents' names it did not know yet (`names`: id -> name, as the import's
        own parent look-ups found them), its label made again."""
        if self.parent_ids is None or all(self.parent_names):
            return self
        filled = tuple(name or names.get(parent_id) or parent_id
                       for parent_id, name in zip(self.parent_ids, self.parent_names, strict=True))
        return Scope(self.kind, self.parent_ids, _clients_label(filled), filled)

    def name_of(self, parent_id: str | None) -> str:
        """The parent's name as shown (`Pennine Foods Ltd`), or its id when it is not known."""
        if parent_id is None or self.parent_ids is None:
            return self.label
        names = dict(zip(self.parent_ids, self.parent_names, strict=False))
        return names.get(parent_id) or parent_id


def resolve_scope(api: Any, kind: str, *, clients: Sequence[str] = (), branch: str | None = None,
                  all_clients: bool = False) -> Scope:
    """The scope the options declare for records of `kind` ("site", "client", "branch"): sites by
    `clients` (repeatable), `branch` (every client of it) or `all_clients`; clients by `branch` or
    `all_clients` (every branch's); branches: the agency. BulkError (exit 2) for options that declare no
    scope or two; the reference errors of wfctl.api.records.refs (no such record: exit 4; ambiguous: 2)."""
    from wfctl.api.records.refs import is_whole_id, require, resolve

    spec = resource(kind)
    given = [name for name, value in (("--client", bool(clients)), ("--branch", bool(branch)),
                                      ("--all", all_clients)) if value]
    if spec.parent is None:
        if given:
            raise BulkError(f"{spec.plural} belong to the agency: {given[0]} does not apply to them")
        return Scope(kind, None, "the agency")
    every = f"--all-{resource(spec.parent).plural}"
    if len(given) != 1:
        options = "--client, --branch or --all-clients" if kind == "site" else f"--branch or {every}"
        raise BulkError(f"give one of {options} to say which {spec.plural} the file is the truth for"
                        if not given else f"give only one of {', '.join(given).replace('--all', every)}")
    if kind == "client" and clients:
        raise BulkError("clients belong to a branch: give --branch or --all-branches")
    if all_clients:
        parents = _sorted(api.iter_records(spec.parent))
        return Scope(kind, tuple(p[0] for p in parents), f"every {kind}", tuple(p[1] for p in parents))
    if branch:
        branch_id = resolve(api, "branch", branch)
        branch_name = str(require(api, "branch", branch_id, branch).get("name", branch))
        if kind == "client":
            return Scope(kind, (branch_id,), f"branch {branch_name}", (branch_name,))
        # the branch's clients, checked here too: a service that ignores the filter (G9) lists every client
        parents = _sorted(c for c in api.iter_records("client", branch_id) if str(c.get("branchId")) == branch_id)
        return Scope(kind, tuple(p[0] for p in parents), f"every client of branch {branch_name}",
                     tuple(p[1] for p in parents))
    found: dict[str, str] = {}
    for ref in clients:
        client_id = resolve(api, "client", ref)
        # a whole id is checked, and its name read, by the import's own look-up of its parents, which runs
        # beside the reads of their records (Scope.named): one request fewer before planning
        found.setdefault(client_id, "" if is_whole_id(ref) else
                         str(require(api, "client", client_id, ref).get("name", ref)))
    return Scope(kind, tuple(found), _clients_label(tuple(found.values())), tuple(found.values()))


def _clients_label(names: tuple[str, ...]) -> str:
    """`client Pennine Foods Ltd`, `clients Pennine Foods Ltd, Dale Farm` (a name not known yet: empty)."""
    return ("client " if len(names) == 1 else "clients ") + ", ".join(names)


def _sorted(records: Any) -> list[tuple[str, str]]:
    """(id, name) of `records`, in their names' natural order (then by id)."""
    pairs = [(str(r["id"]), str(r.get("name", ""))) for r in records if r.get("id") is not None]
    return sorted(pairs, key=lambda p: (natural_key(p[1]), p[0]))
