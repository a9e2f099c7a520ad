"""What differs between branches, clients and sites in a bulk run: the parent, the client calls."""

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

    def get_parent(self, api: Any, parent_id: str) -> dict[str, Any]:
        if self.parent == "client":
            return api.get_client(parent_id)
        return api.get_branch(parent_id)

    def get(self, api: Any, record_id: str) -> dict[str, Any]:
        return getattr(api, f"get_{self.name}")(record_id)

    def create(self, api: Any, parent_id: str | None, body: dict[str, Any], key: str,
               sender: Any = None) -> dict[str, Any]:
        if sender is not None:
            return sender.request("POST", sender.path_of(self.name, parent_id), body, key)
        if self.name == "site":
            return api.create_site(parent_id, body, idempotency_key=key)
        return getattr(api, f"create_{self.name}")(body, idempotency_key=key)

    def update(self, api: Any, record_id: str, body: dict[str, Any], sender: Any = None) -> dict[str, Any]:
        if self.parent_in_body and self.parent_id_column:
            body = {k: v for k, v in body.items() if k != self.parent_id_column}
        if sender is not None:
            return sender.request("PUT", sender.path_of(self.name, None, record_id), body)
        return getattr(api, f"update_{self.name}")(record_id, body)


KINDS = {
    "branch": Kind("branch", "branches", None, None, None, False, True),
    "client": Kind("client", "clients", "branch", "branchId", "branch", True, False),
    "site": Kind("site", "sites", "client", "clientId", "client", False, False),
}


def natural_key(name: Any) -> str:
    """Names are unique case-insensitively (G12)."""
    return " ".join(str(name or "").split()).casefold()


def same_record(body: dict[str, Any], record: dict[str, Any]) -> bool:
    """Whether `record` (from the service) already holds every field of `body`."""
    return all(_norm(key, value) == _norm(key, record.get(key)) for key, value in body.items())


def _norm(key: str, value: Any) -> Any:
    from decimal import Decimal

    if value is None:
        return [] if key in ("rates", "departments", "bannedWorkers") else ("" if key != "assessmentRequired" else False)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, list):
        return [_norm(key, v) for v in value]
    if isinstance(value, dict):
        return {k: _norm(k, v) for k, v in value.items() if v not in (None, "")}
    return value
