"""Quirks: the sandbox playing a deployment that does what the contract merely tolerates.

Each quirk is one entry of the tolerance column of the contract (part 1): a real deployment may do
this, and wfctl must still keep its promises there. `wfctl sandbox serve --quirk NAME` (repeatable)
turns them on, so a user can rehearse a script against an odd deployment, and wfctl's matrix tests run
every entry point against each of them. Every quirk is off by default: the default sandbox is the
contract's decision column exactly.

    quirks = parse_quirks(["put-clears", "next-page=int"])
    app = create_app(db_path, quirks=quirks)

The handlers play most quirks; the two that change an answer after the handler ran (a dropped create
answer, another error body form) are middlewares (middleware.py), added only when on. This module
imports nothing heavy: `wfctl sandbox serve --help` lists the quirks from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

NEXT_PAGE_FORMS = ("url", "int", "string", "relative", "object", "missing")
ERROR_FORMS = ("problem", "message", "error", "list", "text", "html", "empty")

QUIRKS: dict[str, tuple[str, str]] = {
    # the name as --quirk spells it: (the gap of contract part 1, what the sandbox does)
    "put-clears": ("G13", "a PUT replaces the record: writable fields left out of the body are cleared "
                          "(name is still required)"),
    "ignore-branch-filter": ("G9", "GET /api/clients ignores branchId: every client, unfiltered counts"),
    "drop-create-answer": ("G20", "a POST create is applied, then the connection is dropped without an answer "
                                  "(an Idempotency-Key replay is answered)"),
    "ignore-idempotency-key": ("G20", "the Idempotency-Key header is ignored: every POST is applied"),
    "next-page=" + "|".join(NEXT_PAGE_FORMS): (
        "G8", "nextPage/previousPage as an absolute URL (the default), a page number, a numeric string, a "
              "relative URL, an object {pageNumber}, or missing (pageNumber < pageCount decides)"),
    "no-expires-in": ("G2", "login and refresh answers carry no expiresIn"),
    "errors=" + "|".join(ERROR_FORMS): (
        "G10", 'error bodies as problem details (the default), {"message": ...}, {"error": ...}, '
               '{"errors": [...]}, plain text, an HTML page, or empty; status and headers kept'),
    "login-field=NAME": ("G1", "the login body names the user NAME (e.g. email) instead of username"),
    "create-200": ("G15", "a create answers 200 instead of 201"),
    "no-unique-names": ("G12", "no uniqueness rule: two records of the same name may exist"),
    "no-agency-update": ("G6", "PUT /api/agency/ is not offered (405)"),
    "no-logout": ("G22", "POST /identity/logout is not offered (404): a logout cannot revoke the tokens"),
    "empty-get": ("G15", "a GET of one branch, client or site answers 200 with an empty body"),
    "empty-create-answer": ("G15", "a create is applied and answered 201 with an empty body (no record, no id)"),
    "text-create-answer": ("G15", "a create is applied and answered 201 with a body that is not JSON "
                                  "(text/plain `Created`)"),
    "churn-pages": ("G7", "a listing's first request for page 2 or later deletes the list's first record and "
                          "creates one like it at the end: the count is unchanged, later records move back one "
                          "place (once per listing, see listquirks.py)"),
    "ignore-page-number": ("G7", "every list request answers page 1's rows (pageNumber and cursor ignored), "
                                 "under the page number asked for, with a link to the next"),
    "foreign-sites": ("G7", "a client's site list also holds the sites of every other client of its branch (each "
                            "item's clientId its own), counted in totalRecordCount"),
    "short-listing": ("G7", "a list's pages leave out every sixth record (positions 6, 12, ...) while "
                            "totalRecordCount counts them all"),
    "young-missing": ("G7", "a list leaves out its two newest records, in its pages and its counts (an index "
                            "that lags behind); a GET by id finds them"),
    "lean-site-items": ("G7", "a site list's items carry no clientId (with foreign-sites: no item says which "
                              "client it is of); a GET by id gives it"),
}


@dataclass(frozen=True)
class Quirks:
    """Which tolerances the sandbox plays; the default instance plays none."""

    put_clears: bool = False
    ignore_branch_filter: bool = False
    drop_create_answer: bool = False
    ignore_idempotency_key: bool = False
    next_page: str = "url"
    no_expires_in: bool = False
    errors: str = "problem"
    login_field: str = "username"
    create_200: bool = False
    no_unique_names: bool = False
    no_agency_update: bool = False
    no_logout: bool = False
    empty_get: bool = False
    empty_create_answer: bool = False
    text_create_answer: bool = False
    churn_pages: bool = False
    ignore_page_number: bool = False
    foreign_sites: bool = False
    short_listing: bool = False
    young_missing: bool = False
    lean_site_items: bool = False

    def names(self) -> list[str]:
        """The quirks that are on, as `--quirk` spells them (empty for the default sandbox)."""
        default = Quirks()
        out = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name):
                continue
            name = f.name.replace("_", "-")
            out.append(name if value is True else f"{name}={value}")
        return out


def parse_quirks(specs: Iterable[str] | Quirks | None) -> Quirks:
    """`["put-clears", "next-page=int"]` -> Quirks. ValueError names the bad one and the choices."""
    if specs is None:
        return Quirks()
    if isinstance(specs, Quirks):
        return specs
    chosen: dict[str, Any] = {}
    for spec in specs:
        name, has_value, value = (part.strip() for part in spec.partition("="))
        name = name.lower()
        if name in _FLAGS:
            if has_value:
                raise ValueError(f"quirk {name} takes no value")
            chosen[name.replace("-", "_")] = True
        elif name in _CHOICES:
            choices = _CHOICES[name]
            if not value or (choices and value not in choices):
                raise ValueError(f"quirk {name} takes a value: {name}={'|'.join(choices) or '<field name>'}")
            chosen[name.replace("-", "_")] = value
        else:
            raise ValueError(f"unknown quirk {spec!r}; known: {', '.join(QUIRKS)}")
    return Quirks(**chosen)


# ---- private helpers --------------------------------------------------------------------------

_FLAGS = {name for name in QUIRKS if "=" not in name}
_CHOICES: dict[str, tuple[str, ...]] = {"next-page": NEXT_PAGE_FORMS, "errors": ERROR_FORMS, "login-field": ()}
