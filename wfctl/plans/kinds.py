"""What differs between branches, clients and sites in a bulk run: each kind's definition
(wfctl.api.records.resources) and the client calls that read its records and its parents."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wfctl.api.records.resources import RESOURCES, Resource, resource


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
    def parent_option(self) -> str | None:  # the command-line option giving the parent: --client, --branch
        return f"--{self.parent}" if self.parent else None

    @property
    def list_is_full(self) -> bool:  # list items carry every writable field (no get needed to compare)
        return self.resource.list_is_full

    # -- client calls ----------------------------------------------------------------------------
    def iter_existing(self, api: Any, parent_id: str | None) -> Iterator[dict[str, Any]]:
        return api.iter_records(self.name, parent_id)

    def iter_parents(self, api: Any) -> Iterator[dict[str, Any]]:
        """Every record of the parent's kind (a kind without a parent has none to give: ValueError)."""
        if self.parent is None:
            raise ValueError(f"{self.plural} have no parent")
        return api.iter_records(self.parent)

    def get(self, api: Any, record_id: str) -> dict[str, Any]:
        return dict(api.get_record(self.name, record_id))

    def get_parent(self, api: Any, parent_id: str) -> dict[str, Any]:
        if self.parent is None:
            raise ValueError(f"{self.plural} have no parent")
        return dict(api.get_record(self.parent, parent_id))


class _Kinds(Mapping[str, Kind]):
    """Each kind by name, read from its definition when asked; UnknownKind for any other."""

    def __getitem__(self, name: str) -> Kind:
        return Kind(resource(name))

    def __iter__(self) -> Iterator[str]:
        return iter(RESOURCES)

    def __len__(self) -> int:
        return len(RESOURCES)


KINDS: Mapping[str, Kind] = _Kinds()
