"""What differs between branches, clients and sites in a bulk run: each kind's definition
(wfctl.api.resources) and the client calls that read its records and its parents."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wfctl.api.resources import RESOURCES, Resource


@dataclass(frozen=True)
class Kind:
    resource: Resource

    # -- the definition's facts --------------------------------------------------------------------
    @property
    def name(self) -> str:  # "branch" | "client" | "site"
        return self.resource.name

    @property
    def plural(self) -> str:
        return self.resource.plural

    @property
    def parent(self) -> str | None:  # "branch" for clients, "client" for sites
        return self.resource.parent

    @property
    def parent_id_column(self) -> str | None:
        return self.resource.parent_id_column

    @property
    def parent_name_column(self) -> str | None:
        return self.resource.parent_name_column

    @property
    def parent_in_body(self) -> bool:  # a client's branchId is part of its create body
        return self.resource.parent_in_body

    @property
    def list_is_full(self) -> bool:  # list items carry every writable field (no get needed to compare)
        return self.resource.list_is_full

    # -- client calls ----------------------------------------------------------------------------
    def iter_existing(self, api: Any, parent_id: str | None) -> Iterator[dict[str, Any]]:
        if self.name == "site":
            return api.iter_sites(parent_id)
        if self.name == "client":
            return api.iter_clients(branch_id=parent_id)
        return api.iter_branches()

    def iter_parents(self, api: Any) -> Iterator[dict[str, Any]]:
        if self.parent == "client":
            return api.iter_clients()
        return api.iter_branches()

    def get(self, api: Any, record_id: str) -> dict[str, Any]:
        return dict(api.get_record(self.name, record_id))

    def get_parent(self, api: Any, parent_id: str) -> dict[str, Any]:
        if self.parent == "client":
            return api.get_client(parent_id)
        return api.get_branch(parent_id)


class _Kinds(Mapping[str, Kind]):
    """Each kind by name, read from its definition when asked."""

    def __getitem__(self, name: str) -> Kind:
        return Kind(RESOURCES[name])

    def __iter__(self) -> Iterator[str]:
        return iter(RESOURCES)

    def __len__(self) -> int:
        return len(RESOURCES)


KINDS: Mapping[str, Kind] = _Kinds()
