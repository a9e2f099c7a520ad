"""What differs between branches, clients and sites in a bulk run: the parent and how it is named."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Kind:
    name: str  # "branch" | "client" | "site"
    plural: str
    parent: str | None  # "branch" for clients, "client" for sites
    parent_id_column: str | None
    parent_name_column: str | None
    parent_in_body: bool  # a client's branchId is part of its create body
    list_is_full: bool  # list items carry every writable field (no get needed to compare)

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


KINDS = {
    "branch": Kind("branch", "branches", None, None, None, False, True),
    "client": Kind("client", "clients", "branch", "branchId", "branch", True, False),
    "site": Kind("site", "sites", "client", "clientId", "client", False, False),
}
