"""Request bodies checked by hand against the field rules of G11 and G13.

Hand-written rather than pydantic models: it is several times cheaper per request, and it produces
exactly the RFC 9457 `errors` map (JSON field name -> messages) that the contract promises.

Rules: strings are trimmed; `name` is required on create (1-200 characters); other strings at most
200 characters (addresses 500); a non-empty e-mail must be an address; `hourlyRate` >= 0 with at most
2 decimals; skills unique within a site; `bannedWorkers` entries non-empty and unique; `null` and
unknown fields are rejected (400).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from wfctl.sandbox.problems import ApiProblem, invalid

# Whitespace as JSON Schema patterns (ECMA-262 `\s`) define it, for trimming and for the e-mail rule, so
# that what openapi.json calls valid is valid here too (Python's `\s` also matches U+001C-U+001F).
WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
              "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_NOT_AT_OR_SPACE = f"[^@{WHITESPACE}]+"
EMAIL_RE = re.compile(f"^{_NOT_AT_OR_SPACE}@{_NOT_AT_OR_SPACE}\\.{_NOT_AT_OR_SPACE}$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
NAME_MAX = 200
TEXT_MAX = 200
ADDRESS_MAX = 500


class FieldError(Exception):
    """One or more messages about one field (or, for nested values, about several sub-fields)."""

    def __init__(self, messages: dict[str, list[str]] | str) -> None:
        super().__init__(str(messages))
        self.messages = messages


Checker = Callable[[Any], Any]


def parse_json_body(raw: bytes, content_type: str | None) -> Any:
    """The decoded JSON body, or a problem: 415 for a body that is not `application/json` in UTF-8 (another
    media type, none, a charset other than UTF-8, a body in UTF-16/32: RFC 8259 JSON is UTF-8), 400 for one
    that is not JSON or holds a key twice in one object (which value would count is not the sender's to
    guess)."""
    if not raw.strip():
        raise ApiProblem(400, "a JSON body is required")
    _require_json_type(content_type)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = "\x00"
    if "\x00" in text:  # JSON never holds a raw NUL: UTF-16 or UTF-32 text, whatever it says it is
        raise ApiProblem(415, "the body must be JSON in UTF-8")
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as exc:
        raise ApiProblem(400, f"the body is not valid JSON: {exc}") from None


def validate(body: Any, fields: Mapping[str, Checker], *, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """Check a JSON object against `fields`; return the cleaned values of the fields that were sent."""
    if not isinstance(body, dict):
        raise ApiProblem(400, "the body must be a JSON object")
    errors: dict[str, list[str]] = {}
    cleaned: dict[str, Any] = {}
    for key, value in body.items():
        check = fields.get(key)
        if check is None:
            errors.setdefault(key, []).append("unknown field")
            continue
        if value is None:
            errors.setdefault(key, []).append("must not be null")
            continue
        try:
            cleaned[key] = check(value)
        except FieldError as exc:
            _merge(errors, key, exc.messages)
    for key in required:
        if key not in body:
            errors.setdefault(key, []).append("is required")
    if errors:
        raise invalid(errors)
    return cleaned


# ---- checkers ---------------------------------------------------------------------------------


def text(max_len: int, *, min_len: int = 0) -> Checker:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise FieldError("must be a string")
        _require_unicode(value)
        value = value.strip(WHITESPACE)
        if len(value) < min_len:
            raise FieldError("must not be empty")
        if len(value) > max_len:
            raise FieldError(f"must be at most {max_len} characters")
        return value

    return check


def secret(value: Any) -> str:
    """A password or token: a non-empty string, taken as is (not trimmed)."""
    if not isinstance(value, str):
        raise FieldError("must be a string")
    _require_unicode(value)
    if not value:
        raise FieldError("must not be empty")
    if len(value) > 1000:
        raise FieldError("must be at most 1000 characters")
    return value


def token(value: Any) -> str:
    """A token: a secret of up to 64 KiB characters (a JWT-shaped one may be several KB, tokenforms.py)."""
    if isinstance(value, str) and len(value) > 1000:
        if len(value) > 65536:
            raise FieldError("must be at most 65536 characters")
        _require_unicode(value)
        return value
    return secret(value)


def email(value: Any) -> str:
    value = text(TEXT_MAX)(value)
    if value and not EMAIL_RE.fullmatch(value):
        raise FieldError("must be an e-mail address")
    return value


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise FieldError("must be true or false")
    return value


def weekday(value: Any) -> str:
    value = text(TEXT_MAX)(value)
    if value not in WEEKDAYS:
        raise FieldError(f"must be one of {', '.join(WEEKDAYS)}")
    return value


def date(value: Any) -> str:
    value = text(TEXT_MAX)(value)
    try:
        if not DATE_RE.match(value):
            raise ValueError
        dt.date.fromisoformat(value)
    except ValueError:
        raise FieldError("must be a date, YYYY-MM-DD") from None
    return value


def non_negative_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError("must be a number")
    try:
        number = float(value)
    except OverflowError:
        raise FieldError("is too large") from None
    if not math.isfinite(number):
        raise FieldError("must be a finite number")
    if number < 0:
        raise FieldError("must be 0 or more")
    return number


def money(value: Any) -> int | float:
    non_negative_number(value)
    try:
        exponent = Decimal(repr(value)).as_tuple().exponent
    except InvalidOperation:
        raise FieldError("must be a number") from None
    if not isinstance(exponent, int) or exponent < -2:
        raise FieldError("must have at most 2 decimal places")
    return value


def departments(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise FieldError("must be an array")
    fields = {"name": text(NAME_MAX, min_len=1), "contactPerson": text(TEXT_MAX), "email": email}
    out: list[dict[str, str]] = []
    errors: dict[str, list[str]] = {}
    for i, item in enumerate(value):
        try:
            dept = validate(item, fields, required=("name",))
        except ApiProblem as exc:
            _merge(errors, f"[{i}]", exc.errors or {"": [exc.detail]})
            continue
        out.append({"name": dept["name"], "contactPerson": dept.get("contactPerson", ""),
                    "email": dept.get("email", "")})
    if errors:
        raise FieldError(errors)
    return out


def rates(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise FieldError("must be an array")
    fields = {"skill": text(TEXT_MAX, min_len=1), "hourlyRate": money}
    out: list[dict[str, Any]] = []
    errors: dict[str, list[str]] = {}
    seen: set[str] = set()
    for i, item in enumerate(value):
        try:
            rate = validate(item, fields, required=("skill", "hourlyRate"))
        except ApiProblem as exc:
            _merge(errors, f"[{i}]", exc.errors or {"": [exc.detail]})
            continue
        key = rate["skill"].casefold()
        if key in seen:
            errors.setdefault(f"[{i}].skill", []).append(f"duplicate skill {rate['skill']!r}")
        seen.add(key)
        out.append({"skill": rate["skill"], "hourlyRate": rate["hourlyRate"]})
    if errors:
        raise FieldError(errors)
    return out


def banned_workers(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise FieldError("must be an array")
    check = text(TEXT_MAX, min_len=1)
    out: list[str] = []
    errors: dict[str, list[str]] = {}
    for i, item in enumerate(value):
        try:
            worker = check(item)
        except FieldError as exc:
            _merge(errors, f"[{i}]", exc.messages)
            continue
        if worker in out:
            errors.setdefault(f"[{i}]", []).append(f"duplicate worker {worker!r}")
            continue
        out.append(worker)
    if errors:
        raise FieldError(errors)
    return out


# ---- the bodies of the contract ---------------------------------------------------------------

NAME = text(NAME_MAX, min_len=1)
TEXT = text(TEXT_MAX)
ADDRESS = text(ADDRESS_MAX)
REF = text(TEXT_MAX, min_len=1)

LOGIN = {"username": text(TEXT_MAX, min_len=1), "password": secret}
REFRESH = {"accessToken": token, "refreshToken": token}
LOGOUT = {"refreshToken": token}
AGENCY = {"name": NAME, "email": email, "phone": TEXT, "workWeekStart": weekday, "calendarYearStart": date,
          "holidayYearStart": date, "holidayCapHours": non_negative_number}
BRANCH = {"name": NAME, "address": ADDRESS, "phone": TEXT, "email": email}
CLIENT_CREATE = {"name": NAME, "branchId": REF, "email": email, "phone": TEXT, "billingAddress": ADDRESS}
CLIENT_UPDATE = {"name": NAME, "email": email, "phone": TEXT, "billingAddress": ADDRESS}
SITE = {"name": NAME, "address": ADDRESS, "phone": TEXT, "email": email, "assessmentRequired": boolean,
        "departments": departments, "rates": rates, "bannedWorkers": banned_workers}


# ---- helpers ----------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _require_json_type(content_type: str | None) -> None:
    media, _, params = (content_type or "").partition(";")
    if media.strip().lower() != "application/json":
        shown = f"Content-Type {media.strip()!r}" if media.strip() else "no Content-Type"
        raise ApiProblem(415, f"the body must be application/json (the request has {shown})")
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise ApiProblem(415, f"the body must be JSON in UTF-8 (the request says charset={value.strip()})")


def _require_unicode(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FieldError("must be valid Unicode text") from None
    if "\x00" in value:  # no text column of PostgreSQL can hold it: refused alike on every backend
        raise FieldError("must not contain the NUL character (U+0000)")


def _merge(errors: dict[str, list[str]], key: str, messages: dict[str, list[str]] | str) -> None:
    if isinstance(messages, str):
        errors.setdefault(key, []).append(messages)
        return
    for sub, msgs in messages.items():
        if not sub:
            name = key
        elif sub.startswith("["):
            name = f"{key}{sub}"
        else:
            name = f"{key}.{sub}"
        errors.setdefault(name, []).extend(msgs)
