"""Passes 1-2 of a bulk import: every parent its rows name looked up (`client` names, `clientId`s), and
the records under each one read into the plan's `Inventory` (importplan.py), many parents at once and at
most `concurrency` requests in flight: a parent's look-up and the first page of its records go out
together.

    read_inventory(api, source, options, inventory, by_id=...)   # fills `inventory`, sets its `read`
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from wfctl.api.records.recordrules import natural_key
from wfctl.files import csvformat
from wfctl.files.reader import CsvInput
from wfctl.plans.importplan import Inventory
from wfctl.plans.importtypes import Options
from wfctl.plans.kinds import KINDS


def read_inventory(api: Any, source: CsvInput, options: Options, inventory: Inventory, *, by_id: bool) -> None:
    """Passes 1-2 into `inventory`; `by_id`: rows that carry an id are matched by it (the records read are
    kept by id too)."""
    reading = _Reading(api, source, options, inventory, by_id)
    reading.resolve_parents()
    reading.load_existing()


def parent_ref_of(id_cell: str, name_cell: str) -> str | None:
    """'id:<x>' / 'name:<key>' of a row's parent cells, or None (neither is given)."""
    pid = csvformat.strip_neutraliser(id_cell).strip()
    if pid:
        return "id:" + pid
    pname = csvformat.strip_neutraliser(name_cell).strip()
    if pname:
        return "name:" + natural_key(pname)
    return None


class _Reading:
    def __init__(self, api: Any, source: CsvInput, options: Options, inventory: Inventory, by_id: bool) -> None:
        self.api = api
        self.source = source
        self.options = options
        self.kind = KINDS[options.kind]
        self.inventory = inventory
        self._matches_ids = by_id
        self._positions = {name: i for i, name in enumerate(source.header)}  # column -> cell position
        import threading

        self._misplaced_lock = threading.Lock()  # parents are read in the plan's pool

    def _cell(self, cells: list[str], column: str | None) -> str:
        i = self._positions.get(column or "")
        return "" if i is None else cells[i]

    def resolve_parents(self) -> None:
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
        scope = self.options.scope
        in_scope = list(scope.parent_ids or ()) if scope is not None else []
        if scope is not None:  # every parent in scope, the file's rows for it or not
            self.inventory.parent_names.update((parent_id, name) for parent_id, name in
                                               zip(scope.parent_ids or (), scope.parent_names, strict=False) if name)
        refs: set[str] = set()
        given = self.options.parent_id
        if given:
            refs.add("id:" + given)
        # a scope's parent given by its whole id was not read yet (wfctl.plans.scope): looked up here, beside
        # the reads of its records
        unnamed = [parent_id for parent_id in in_scope if parent_id not in self.inventory.parent_names]
        refs.update("id:" + parent_id for parent_id in unnamed)
        written: dict[str, str] = {}
        if not given or self._checks_file_parents:  # --client: the file's own clients are only checked
            id_column, name_column = self.kind.parent_id_column, self.kind.parent_name_column
            for _, _, cells, _ in self.source.records():
                ref = parent_ref_of(self._cell(cells, id_column), self._cell(cells, name_column))
                if ref:
                    refs.add(ref)
                    if ref.startswith("name:"):  # echoed as the file writes it, not as it is compared
                        written.setdefault(ref, csvformat.strip_neutraliser(self._cell(cells, name_column)).strip())
        from wfctl.api.errors import NotFound

        ids = sorted(ref.split(":", 1)[1] for ref in refs if ref.startswith("id:"))
        names = sorted(ref for ref in refs if ref.startswith("name:"))
        parents = max(len(in_scope), 1 if given else len(ids) + (1 if names else 0))
        pool = self._plan_pool
        lookups = {value: pool.submit(self.kind.get_parent, self.api, value) for value in ids
                   if value not in self.inventory.parent_names}  # a scope's parent, already read
        self._read_existing(in_scope, parents)
        self._read_existing([given] if given else ids, parents)
        by_name: dict[str, list[str]] = {}
        if names:
            for parent in self.api.iter_records(self.kind.parent, None, concurrency=self._share(parents)):
                by_name.setdefault(natural_key(parent.get("name")), []).append(str(parent["id"]))
                self.inventory.parent_names[str(parent["id"])] = str(parent.get("name", ""))
        for value in ids:
            ref = "id:" + value
            if value not in lookups:
                self.inventory.parents[ref] = value
                continue
            try:
                self.inventory.parent_names[value] = str(lookups[value].result().get("name", ""))
                self.inventory.parents[ref] = value
            except NotFound:
                self.inventory.parents[ref] = None
                self.inventory.parent_errors[ref] = f"no {self.kind.parent} with id {value!r}"
        for ref in names:
            found = by_name.get(ref.split(":", 1)[1], [])
            if len(found) == 1:
                self.inventory.parents[ref] = found[0]
            else:
                self.inventory.parents[ref] = None
                value = written.get(ref) or ref.split(":", 1)[1]
                self.inventory.parent_errors[ref] = (
                    self._no_parent_named(value, [self.inventory.parent_names[ids[0]] for ids in by_name.values()])
                    if not found else
                    f"{len(found)} {self.kind.parent}s are named {value!r}; use {self.kind.parent_id_column}")
        if unnamed:
            self._name_scope(unnamed)
        if given:
            self.inventory.foreign = {ref for ref in refs if self.inventory.parents.get(ref) != given}
        else:
            self._read_existing(sorted({p for p in self.inventory.parents.values() if p}), parents)

    def _no_parent_named(self, value: str, names: list[str]) -> str:
        """`no client is named 'Pennine Food Ltd'; did you mean 'Pennine Foods Ltd'?` (the nearest, if one is)."""
        from wfctl.api.records.refs import nearest_name

        near = nearest_name(value, names)
        return f"no {self.kind.parent} is named {value!r}" + (f"; did you mean {near!r}?" if near else "")

    def _name_scope(self, unnamed: list[str]) -> None:
        """The scope's parents given by whole ids, now read: their names in its label, or NoSuchRecord
        (exit 4) for one the service does not have, as a look-up before planning would have said."""
        from wfctl.api.records.refs import NoSuchRecord

        scope = self.options.scope
        assert scope is not None and self.kind.parent is not None
        for parent_id in unnamed:
            if self.inventory.parents.get("id:" + parent_id) is None:
                raise NoSuchRecord(self.kind.parent, parent_id)
        self.options.scope = scope.named(self.inventory.parent_names)

    @property
    def _checks_file_parents(self) -> bool:
        """Whether rows' own parent cells are checked against --client/--branch: a row naming another
        parent stops the run, unless --ignore-ids says the file is a copy from elsewhere."""
        kind = self.kind
        header = self.source.header
        return (bool(self.options.parent_id) and not self.options.ignore_ids
                and (kind.parent_id_column in header or kind.parent_name_column in header))

    def _read_existing(self, parent_ids: list[str] | list[None], parents: int) -> None:
        """Start reading each parent's records (not read yet) in the plan's pool; a parent's pages go
        several at a time when few parents share the bound."""
        share = self._share(parents)
        for parent_id in parent_ids:
            if parent_id not in self._reads:
                self._reads[parent_id] = self._plan_pool.submit(self._existing_of, parent_id, share)

    def _existing_of(self, parent_id: str | None, concurrency: int) -> list[dict[str, Any]]:
        scope = self.options.scope
        if scope is None or not scope.holds(parent_id):
            return list(self.api.iter_records(self.kind.name, parent_id, concurrency=concurrency))
        # a read that decides what is absent (--prune, diff): proven whole, no other parent's record in it
        from wfctl.api.records.listcheck import read_whole

        where = f"{self.kind.parent} {scope.name_of(parent_id)}" if parent_id else ""
        listing = read_whole(self.api, self.kind.name, parent_id, concurrency=concurrency, where=where,
                             skip_misplaced=self.options.skip_misplaced)
        with self._misplaced_lock:
            self.inventory.misplaced.extend((parent_id, record) for record in listing.misplaced)
        return listing.records

    def _share(self, parents: int) -> int:
        """Requests in flight for one parent's pages, so that all parents together keep to `concurrency`."""
        return max(1, self.options.concurrency // max(1, min(parents, self.options.concurrency)))

    def load_existing(self) -> None:
        """Pass 2: the records of every resolved parent, read in pass 1 (natural key -> summary)."""
        parents: list[str | None] = [None]
        if self.kind.parent:
            given = self.options.parent_id
            parents = [*sorted({p for p in self.inventory.parents.values() if p and (p == given or not given)}
                               | set(self.options.scope.parent_ids or () if self.options.scope else ()))]
        from wfctl.api.errors import ListingUntrue

        try:  # a parent that is not there has no read to wait for: its rows say so
            for parent_id in parents:
                try:
                    records = self._reads[parent_id].result()
                except ListingUntrue as exc:  # named now that the parents' look-ups are in
                    name = self.inventory.parent_names.get(parent_id or "")
                    title = exc.title.replace(f" {parent_id} ", f" {name} ", 1) if name and parent_id else exc.title
                    if self.options.prune and "belong to another" in title:
                        title += " (--skip-misplaced leaves them out and deletes only what is proven)"
                    raise ListingUntrue(title) from None
                for record in records:
                    self.inventory.add(parent_id, record, by_id=self._matches_ids)
            self.inventory.read = True
        finally:
            self._plan_pool.shutdown(wait=False, cancel_futures=True)
