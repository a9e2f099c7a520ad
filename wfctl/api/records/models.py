"""Write models: the bodies wfctl sends, checked locally with the service's field rules (G11).

Shared by the commands and the bulk importer (which validates every CSV row with them, so they are
plain pydantic models with declarative constraints and a few small validators).

Rules: strings are trimmed; `name` is required on create (1-200 characters); other strings at most 200
characters (addresses 500); a non-empty `email` must be an address; `hourlyRate` >= 0 with at most 2
decimals; skills unique within a site; `bannedWorkers` entries non-empty and unique; unknown fields are
rejected; `null` is rejected (a PUT with null is a 400 too). Both the service's camelCase names and the
Python names are accepted; `body(model)` gives the JSON body with the service's names, only the fields
that were set.

`field_errors(exc)` turns a pydantic ValidationError into {"rates[1].hourlyRate": ["..."]}.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)
from pydantic.alias_generators import to_camel

from wfctl.api.records.recordrules import EMAIL as _EMAIL

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _email(value: str) -> str:
    """An e-mail address of at most 200 characters; one that is both too long and not an address is told both
    (a length constraint would stop at the first)."""
    problems = []
    if len(value) > 200:
        problems.append("is longer than 200 characters")
    if value and not _EMAIL.match(value):
        problems.append(f"{_shortened(value)!r} is not an e-mail address")
    if problems:
        raise ValueError("; ".join(problems))
    return value


def _shortened(value: str, most: int = 60) -> str:
    return value if len(value) <= most else value[:most - 1] + "…"


def _hourly_rate(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise ValueError("must be a number")
    try:
        # An int as it is: str() of one over 4300 digits raises.
        number = Decimal(value) if isinstance(value, int) else Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a number")
    if number < 0:
        raise ValueError(f"{value} is negative; a rate must be 0 or more")
    # Bounded before normalize() and int(): 1e999999999 would overflow or never finish, and
    # 1e-999999999 would underflow to 0. 10^15 and more cannot be held to the cent by a float.
    if number and number.adjusted() >= 15:
        raise ValueError("must be less than 10^15")
    if number and number.adjusted() < -2:
        raise ValueError(f"{value} has more than 2 decimals")
    exponent = number.normalize().as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        raise ValueError(f"{value} has more than 2 decimals")
    if isinstance(value, int):
        return value
    return int(number) if number == number.to_integral_value() and "." not in str(value) else float(number)


def _date(value: str) -> str:
    from datetime import date

    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)") from None
    if len(value) != 10:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)")
    return value


def _unique(what: str) -> Any:
    def check(items: list[Any]) -> list[Any]:
        seen: set[str] = set()
        for item in items:
            key = item.skill if isinstance(item, Rate) else item
            if key in seen:
                raise ValueError(f"{what} {key!r} is given twice")
            seen.add(key)
        return items

    return check


Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Address = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)]
Email = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_email)]
HourlyRate = Annotated[int | float, BeforeValidator(_hourly_rate)]
WorkerId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Date = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_date)]


class WriteModel(BaseModel):
    """Base: camelCase on the wire, Python names accepted, unknown fields rejected, strings trimmed."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid",
                              str_strip_whitespace=True, validate_default=False)

    @field_validator("*", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        # Optional in Python (a field may be left out), never null on the wire: a PUT with null is a 400.
        if value is None:
            raise ValueError("must not be null (leave the field out, or use \"\" to clear a text field)")
        return value

    def body(self) -> dict[str, Any]:
        """The JSON body: the service's field names, only the fields that were set."""
        return self.model_dump(exclude_unset=True, by_alias=True)


class Rate(WriteModel):
    skill: Name
    hourly_rate: HourlyRate


class Department(WriteModel):
    name: Name
    contact_person: Text | None = None
    email: Email | None = None


class BranchWrite(WriteModel):
    """PUT /api/branches/{id} (and the base of BranchCreate)."""

    name: Name | None = None
    address: Address | None = None
    phone: Text | None = None
    email: Email | None = None


class BranchCreate(BranchWrite):
    """POST /api/branches: name is required."""

    name: Name


class ClientUpdate(WriteModel):
    """PUT /api/clients/{id}: branchId is not part of the body."""

    name: Name | None = None
    email: Email | None = None
    phone: Text | None = None
    billing_address: Address | None = None


class ClientCreate(ClientUpdate):
    """POST /api/clients."""

    name: Name
    branch_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class SiteUpdate(WriteModel):
    """PUT /api/sites/{id}: any of these."""

    name: Name | None = None
    address: Address | None = None
    phone: Text | None = None
    email: Email | None = None
    assessment_required: bool | None = None
    departments: list[Department] | None = None
    rates: Annotated[list[Rate], AfterValidator(_unique("skill"))] | None = None
    banned_workers: Annotated[list[WorkerId], AfterValidator(_unique("banned worker"))] | None = None


class SiteCreate(SiteUpdate):
    """POST /api/clients/{clientId}/sites: name is required."""

    name: Name


class AgencyUpdate(WriteModel):
    """PUT /api/agency/ (sandbox extension, admin only)."""

    name: Name | None = None
    email: Email | None = None
    phone: Text | None = None
    work_week_start: str | None = None
    calendar_year_start: Date | None = None
    holiday_year_start: Date | None = None
    holiday_cap_hours: Annotated[float, Field(ge=0)] | None = None

    @field_validator("work_week_start")
    @classmethod
    def _weekday(cls, value: str) -> str:
        for day in _WEEKDAYS:
            if value.strip().lower() == day.lower():
                return day
        raise ValueError(f"{value!r} is not a weekday (Monday ... Sunday)")


class MissingWriteModel(KeyError):
    """No write model for a (kind, action): a kind its definition names but whose models were not added."""

    def __str__(self) -> str:
        return str(self.args[0])


class _WriteModels(dict[tuple[str, str], type[WriteModel]]):
    """A dict whose look-up of a pair it lacks says which, and of a kind no definition names, UnknownKind."""

    def __missing__(self, key: tuple[str, str]) -> type[WriteModel]:
        from wfctl.api.records.resources import resource

        kind, action = key
        if kind != "agency":
            resource(kind)  # UnknownKind for a kind no definition names
        raise MissingWriteModel(f"no write model for a {kind} {action}: a kind's write models belong in "
                                "wfctl.api.records.models.WRITE_MODELS beside its definition")


#: The write model of each (kind, action); a pair it lacks raises MissingWriteModel (UnknownKind for a kind
#: no definition names).
WRITE_MODELS: dict[tuple[str, str], type[WriteModel]] = _WriteModels({
    ("branch", "create"): BranchCreate,
    ("branch", "update"): BranchWrite,
    ("client", "create"): ClientCreate,
    ("client", "update"): ClientUpdate,
    ("site", "create"): SiteCreate,
    ("site", "update"): SiteUpdate,
    ("agency", "update"): AgencyUpdate,
})


def field_errors(exc: ValidationError) -> dict[str, list[str]]:
    """{"rates[1].hourlyRate": ["1.005 has more than 2 decimals"], ...} with the service's names."""
    errors: dict[str, list[str]] = {}
    for error in exc.errors(include_url=False):
        errors.setdefault(_location(error["loc"]), []).append(_message(error))
    return errors


def _location(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = to_camel(part) if "_" in str(part) else str(part)
            text += f".{name}" if text else name
    return text or "body"


def _message(error: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "value_error":
        return str(ctx.get("error") or error["msg"]).removeprefix("Value error, ")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a field of this record"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return "must not be empty"
    if kind == "string_too_long":
        return f"is longer than {ctx.get('max_length')} characters"
    if kind == "greater_than_equal":
        return "must be 0 or more" if ctx.get("ge") == 0 else str(error["msg"])
    return str(error["msg"])
