"""One definition of each resource the service holds: branches, clients and sites.

Every layer reads its facts from here: the client's paths, the update rules (wfctl.api.records.recordrules), the
CSV format and the bulk runs (wfctl.files, wfctl.plans, wfctl.runs), the commands and the output. Adding a writable field to a
kind means its write model (wfctl.api.records.models) and its definition below, nothing else; presentation
(table columns, which columns give way, option names) stays with the commands and the output.

A kind is wired completely or not at all: every layer finds a kind here (`resource(kind)`), and a kind
that is not here is `UnknownKind` (naming the known ones) wherever it is given, never another kind's
default. The relations between kinds are facts of the definition too: a kind's parent, whether its
collection is nested under the parent's record (`nested`: a client's sites) or filtered by the parent's
id (a branch's clients), whether list items are whole records (`list_is_full`).

Standard library only: the CLI's fast paths (completion, help) import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

#: Fields the service returns but never accepts in a body: a record from `get_*` can be passed back,
#: and an input file may carry them (accepted and ignored).
READ_ONLY: frozenset[str] = frozenset({"id", "createdOn", "updatedOn", "modifiedOn", "documents"})


def _seg(value: str) -> str:
    """An id as one path segment: ids are opaque (G16), so quote anything that could change the path."""
    text = str(value)
    if not text or text in (".", ".."):
        from wfctl.api.errors import InvalidId

        raise InvalidId(f"invalid id {text!r}: an id is one path segment")
    return quote(text, safe="")


class UnknownKind(KeyError, ValueError):
    """A kind no definition names: a KeyError (as a look-up in RESOURCES) and a ValueError (as an argument)."""

    def __init__(self, kind: object) -> None:
        self.kind = kind
        super().__init__(f"unknown kind {kind!r}; expected one of {', '.join(RESOURCES)}")

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Resource:
    name: str  # "branch" | "client" | "site"
    plural: str  # "branches": the path segment, the command group, the plural in messages
    writable: tuple[str, ...]  # the fields an update body may carry, in the service's PUT order
    columns: tuple[str, ...]  # the CSV columns (import and export), the parent's id column first
    parent: str | None = None  # the parent's kind: "branch" for clients, "client" for sites
    parent_field: str | None = None  # the field naming the parent: branchId, clientId
    parent_in_body: bool = False  # a client's branchId is part of its create body; a site's clientId the path
    nested: bool = False  # the collection lives under its parent's record (/api/clients/<id>/sites), else at
    #                       the top, listed by the parent with a filter on `parent_field` (?branchId=, G9)
    list_fields: frozenset[str] = frozenset()  # fields holding a list (rates, departments, bannedWorkers)
    bool_fields: frozenset[str] = frozenset()  # fields holding a boolean
    not_in_list_items: frozenset[str] = frozenset()  # fields only the full record has, not a list item
    list_is_full: bool = False  # list items carry every writable field (no get needed to compare)
    read_only: tuple[str, ...] = ("id", "createdOn", "updatedOn", "modifiedOn")  # what the service adds

    def __post_init__(self) -> None:
        if (self.parent is None) != (self.parent_field is None):
            raise ValueError(f"{self.name}: give both the parent and its field, or neither")
        if (self.nested or self.parent_in_body) and not self.parent:
            raise ValueError(f"{self.name}: nested and parent_in_body need a parent")
        expected = {*self.writable, *([self.parent_field] if self.parent_field else [])}
        if set(self.columns) != expected or len(self.columns) != len(expected):
            raise ValueError(f"{self.name}: the CSV columns must be the parent's id column and every writable "
                             f"field once; {sorted(self.columns)} != {sorted(expected)}")

    @property
    def parent_id_column(self) -> str | None:
        """The import column giving the parent's id (the parent field)."""
        return self.parent_field

    @property
    def parent_name_column(self) -> str | None:
        """The import column naming the parent instead of giving its id: the parent's kind."""
        return self.parent

    @property
    def body_fields(self) -> tuple[str, ...]:
        """The fields of a create body, in the write model's order (the parent last where it is one)."""
        return (*self.writable, self.parent_field) if self.parent_in_body and self.parent_field else self.writable

    @property
    def record_fields(self) -> tuple[str, ...]:
        """Every field a record of this kind may carry, in the service's spelling: what `--fields` names."""
        parent = (self.parent_field,) if self.parent_field else ()
        return (*self.read_only[:1], *parent, *self.writable, *self.read_only[1:])

    def collection_path(self, parent_id: str | None = None) -> str:
        """Where records are created and listed: a nested kind's under its parent's record (a site under
        its client, G2), the others at the top."""
        if self.nested:
            return f"{resource(str(self.parent)).record_path(str(parent_id or ''))}/{self.plural}"
        return f"/api/{self.plural}"

    def record_path(self, record_id: str) -> str:
        return f"/api/{self.plural}/{_seg(record_id)}"


BRANCH = Resource(
    "branch", "branches",
    writable=("name", "address", "phone", "email"),
    columns=("name", "address", "phone", "email"),
    list_is_full=True,
)
CLIENT = Resource(
    "client", "clients",
    writable=("name", "email", "phone", "billingAddress"),
    columns=("branchId", "name", "email", "phone", "billingAddress"),
    parent="branch", parent_field="branchId", parent_in_body=True,
    not_in_list_items=frozenset({"billingAddress"}),
)
SITE = Resource(
    "site", "sites",
    writable=("name", "address", "phone", "email", "assessmentRequired", "departments", "rates", "bannedWorkers"),
    columns=("clientId", "name", "address", "phone", "email", "assessmentRequired", "rates", "departments",
             "bannedWorkers"),
    parent="client", parent_field="clientId", nested=True,
    list_fields=frozenset({"rates", "departments", "bannedWorkers"}),
    bool_fields=frozenset({"assessmentRequired"}),
    not_in_list_items=frozenset({"rates", "departments", "bannedWorkers", "documents"}),
    read_only=("id", "createdOn", "updatedOn", "modifiedOn", "documents"),
)

class _Definitions(dict[str, Resource]):
    """A dict whose look-up of a kind it does not hold raises UnknownKind (naming the known ones)."""

    def __missing__(self, kind: str) -> Resource:
        raise UnknownKind(kind)


#: Each kind's definition, by name. `RESOURCES[kind]` of any other kind raises UnknownKind.
RESOURCES: dict[str, Resource] = _Definitions({r.name: r for r in (BRANCH, CLIENT, SITE)})


def resource(kind: str) -> Resource:
    """The definition of `kind`; UnknownKind (a KeyError and a ValueError) names the known kinds for any other."""
    if kind not in RESOURCES:
        raise UnknownKind(kind)
    return RESOURCES[kind]


#: The fields of the agency (the tenant: one record, no collection), in the service's spelling.
AGENCY_FIELDS: tuple[str, ...] = ("name", "email", "phone", "workWeekStart", "calendarYearStart", "holidayYearStart",
                                  "holidayCapHours")


def record_fields(kind: str) -> tuple[str, ...]:
    """Every field a record of `kind` (a resource, or "agency") may carry: what `--fields` may name."""
    return AGENCY_FIELDS if kind == "agency" else resource(kind).record_fields


def list_fields() -> frozenset[str]:
    """Every field that holds a list, of any kind."""
    return frozenset().union(*(r.list_fields for r in RESOURCES.values()))


def bool_fields() -> frozenset[str]:
    """Every field that holds a boolean, of any kind."""
    return frozenset().union(*(r.bool_fields for r in RESOURCES.values()))


def counted(kind: str | None, count: int) -> str:
    """'1 client', '63 clients', '0 records': a count of records of `kind` in words."""
    noun = kind or "record"
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {RESOURCES[noun].plural if noun in RESOURCES else 'agencies' if noun == 'agency' else noun + 's'}"
