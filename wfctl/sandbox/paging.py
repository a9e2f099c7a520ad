"""The sandbox's lists (G7, G8): one page of rows by number or by a signed cursor the server seeks with,
and the page's envelope and links in the form the quirks ask."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from wfctl.sandbox.handling import Service
from wfctl.sandbox.problems import ApiProblem

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
#: The largest pageNumber or pageSize taken (a 32-bit integer; a larger pageSize is served as MAX_PAGE_SIZE).
MAX_PAGE_PARAM = 2**31 - 1
#: A followed nextPage seeks past the end of a page at most this many pages back (see _Paging).
SEEK_SPAN_PAGES = 32


def page(api: Service, request: Request, table: str, cols: str, where: str, args: list[Any],
         extra_query: str = "") -> tuple[list[tuple[Any, ...]], _Paging]:
    """One page of a list (G7), ordered by (created_on, id); `cols` starts with id and ends with created_on.

    `pageNumber` alone is a direct jump (OFFSET). With a `cursor` (written by `_Paging`) the server
    seeks instead: a forward cursor says "page p ends at this sort key", so page n > p is the rows past
    that key, skipping the n-p-1 whole pages between (at most SEEK_SPAN_PAGES - 1 when the links are
    followed); a backward cursor says "page q starts at this key", and serves page q-1 as the rows
    before it. A cursor that cannot serve the pageNumber asked for leaves it a direct jump."""
    page, size, raw_cursor, page_given = page_params(request)
    path = f"{request.url.path}?pageSize={size}{extra_query}"
    seek = None if raw_cursor is None else _read_cursor(api.store.cursor_key, path, raw_cursor)
    if seek is not None and not page_given:
        page = seek.page + 1 if seek.forward else seek.page - 1
    if api.quirks.young_missing:  # quirk young-missing: the list's two newest records, not listed nor counted
        where = (f"{where} AND id NOT IN (SELECT id FROM {table} WHERE {where} "
                 f"ORDER BY created_on DESC, id DESC LIMIT 2)")
        args = [*args, *args]
    if api.quirks.short_listing:  # quirk short-listing: every page by its offset, every sixth record left out
        seek = None
        rows, paging = _jump(api, request, path, table, cols, where, args, page, size)
        first = (page - 1) * size
        return [row for i, row in enumerate(rows) if (first + i) % 6 != 5], paging
    if api.churn is not None:
        api.churn.before_page(api.store, path, page, table, where, args)
    if api.quirks.ignore_page_number:  # every page answers page 1's rows, under the number asked for
        rows = api.db.execute(f"SELECT {cols} FROM {table} WHERE {where} ORDER BY created_on, id LIMIT ?",
                               (*args, size + 1)).fetchall()
        return rows[:size], _Paging(api, request, path, api.store.count(table, where, args), page, size,
                                    rows[:size], len(rows) > size)
    db = api.db
    total = api.store.count(table, where, args)
    select = f"SELECT {cols} FROM {table} WHERE {where}"
    if seek is not None and seek.forward and page > seek.page:
        rows = db.execute(f"{select} AND (created_on, id) > (?, ?) ORDER BY created_on, id LIMIT ? OFFSET ?",
                          (*args, seek.created_on, seek.id, size + 1, _offset(page - seek.page, size))).fetchall()
        more = len(rows) > size
        return rows[:size], _Paging(api, request, path, total, page, size, rows[:size], more, seek, raw_cursor)
    if seek is not None and not seek.forward and page == seek.page - 1 > 1:
        rows = db.execute(f"{select} AND (created_on, id) < (?, ?) ORDER BY created_on DESC, id DESC LIMIT ?",
                          (*args, seek.created_on, seek.id, size + 1)).fetchall()
        if len(rows) > size:  # rows before this page: it is not the start of the list
            rows = rows[size - 1::-1]
            after = db.execute(f"SELECT 1 FROM {table} WHERE {where} AND (created_on, id) > (?, ?) LIMIT 1",
                               (*args, rows[-1][-1], rows[-1][0])).fetchone()
            return rows, _Paging(api, request, path, total, page, size, rows, after is not None)
        page = 1  # back at the start of the list: page 1, as a jump serves it
    return _jump(api, request, path, table, cols, where, args, page, size)


def _jump(api: Service, request: Request, path: str, table: str, cols: str, where: str, args: list[Any],
          page: int, size: int) -> tuple[list[tuple[Any, ...]], _Paging]:
    """Page `page` by its offset (a direct jump)."""
    total = api.store.count(table, where, args)
    rows = api.db.execute(f"SELECT {cols} FROM {table} WHERE {where} ORDER BY created_on, id LIMIT ? OFFSET ?",
                          (*args, size + 1, _offset(page, size))).fetchall()
    more = len(rows) > size
    return rows[:size], _Paging(api, request, path, total, page, size, rows[:size], more)


def page_params(request: Request) -> tuple[int, int, str | None, bool]:
    """pageNumber, pageSize (at most MAX_PAGE_SIZE), the raw cursor, and whether pageNumber was given."""
    query = request.query_params
    errors: dict[str, list[str]] = {}
    page = _positive_int(query.get("pageNumber"), 1, "pageNumber", errors)
    size = _positive_int(query.get("pageSize"), DEFAULT_PAGE_SIZE, "pageSize", errors)
    if errors:
        raise ApiProblem(400, "invalid paging parameters", errors=errors)
    return page, min(size, MAX_PAGE_SIZE), query.get("cursor"), "pageNumber" in query


@dataclass(frozen=True)
class _Seek:
    """What a cursor holds: forward, "page `page` ends at this sort key"; backward, "page `page` starts
    at this sort key"."""

    page: int
    created_on: str
    id: str
    forward: bool


def _cursor_mac(key: bytes, path: str, payload: bytes) -> bytes:
    # Bound to the list and page size (`path` holds both), so a cursor of another list is refused too.
    return hmac.new(key, path.encode() + b"\n" + payload, hashlib.sha256).digest()[:16]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _write_cursor(key: bytes, path: str, seek: _Seek) -> str:
    """base64url of a small JSON [page, createdOn, id, "n"|"p"], a dot, and its signature."""
    payload = json.dumps([seek.page, seek.created_on, seek.id, "n" if seek.forward else "p"],
                         separators=(",", ":")).encode()
    return f"{_b64(payload)}.{_b64(_cursor_mac(key, path, payload))}"


_CURSOR_FORM = re.compile(r"[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{1,100}")


def _read_cursor(key: bytes, path: str, raw: str) -> _Seek:
    """The seek a cursor names; a malformed, forged or foreign one (another list or page size) is a 400."""
    bad = ApiProblem(400, "invalid paging parameters",
                     errors={"cursor": ["is not a cursor of this list and page size: follow the nextPage link "
                                        "as given, or use pageNumber"]})
    if not _CURSOR_FORM.fullmatch(raw.strip()):
        raise bad
    body, _, mac = raw.strip().partition(".")
    try:
        payload, signature = _unb64(body), _unb64(mac)
    except (ValueError, binascii.Error):
        raise bad from None
    if not hmac.compare_digest(signature, _cursor_mac(key, path, payload)):
        raise bad
    try:
        page, created_on, record_id, direction = json.loads(payload)
    except (ValueError, TypeError):
        raise bad from None
    if not (isinstance(page, int) and page >= 1 and isinstance(created_on, str) and isinstance(record_id, str)
            and direction in ("n", "p")):
        raise bad
    return _Seek(page, created_on, record_id, direction == "n")


class _Paging:
    """The envelope of one page (G7) and its links (G8; quirk next-page=FORM).

    The URL forms (absolute, the default, and relative) name the page by number and carry a cursor the
    server seeks with. nextPage's cursor is the end of a recent page: the one this page was reached
    from, kept while it is fewer than SEEK_SPAN_PAGES pages back, else this page's last row. So a
    list's links differ only in pageNumber for SEEK_SPAN_PAGES pages at a time: a reader that fetches
    pages ahead by number (wfctl's does) still can, and a link followed on page 200 costs what page 1
    costs. previousPage's cursor is this page's first row. The other forms can only name a number."""

    def __init__(self, api: Service, request: Request, path: str, total: int, page: int, size: int,
                 rows: list[tuple[Any, ...]], more: bool, anchor: _Seek | None = None,
                 anchor_cursor: str | None = None) -> None:
        self.api, self.request, self.path = api, request, path
        self.total, self.page, self.size, self.rows, self.more = total, page, size, rows, more
        self.anchor, self.anchor_cursor = anchor, anchor_cursor

    def envelope(self, data: list[dict[str, Any]]) -> dict[str, Any]:
        form = self.api.quirks.next_page
        envelope: dict[str, Any] = {"data": data, "pageNumber": self.page, "pageSize": self.size}
        if form != "missing":
            envelope["nextPage"] = self._link(self.page + 1, self._next_cursor(), form) if self.more else None
            envelope["previousPage"] = (self._link(self.page - 1, self._previous_cursor(), form)
                                        if self.page > 1 else None)
        envelope["pageCount"] = -(-self.total // self.size)
        envelope["totalRecordCount"] = self.total
        return envelope

    def _next_cursor(self) -> str | None:
        if self.anchor is not None and self.anchor_cursor is not None and self.page + 1 - self.anchor.page \
                <= SEEK_SPAN_PAGES:
            return self.anchor_cursor.strip()
        if not self.rows:
            return None
        last = self.rows[-1]
        return _write_cursor(self.api.store.cursor_key, self.path, _Seek(self.page, last[-1], last[0], True))

    def _previous_cursor(self) -> str | None:
        if not self.rows or self.page <= 2:
            return None  # page 1 (or a page past the end): a jump is as cheap, or there is no row to seek from
        first = self.rows[0]
        return _write_cursor(self.api.store.cursor_key, self.path, _Seek(self.page, first[-1], first[0], False))

    def _link(self, page: int, cursor: str | None, form: str) -> Any:
        if form == "int":
            return page
        if form == "string":
            return str(page)
        if form == "object":
            return {"pageNumber": page}
        link = f"{self.path}&pageNumber={page}" + ("" if cursor is None else f"&cursor={cursor}")
        if form == "relative":
            return link
        from wfctl.sandbox.origin import link_origin

        return f"{link_origin(self.request.scope)}{link}"  # relative when the Host header names another server


def _positive_int(raw: str | None, default: int, name: str, errors: dict[str, list[str]]) -> int:
    """G7: plain ASCII digits, 1 to MAX_PAGE_PARAM. Not `int()`'s wider idea of an integer (` 1`, `+1`, `1_0`,
    `١`), nor a number of 20 digits."""
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()):
        errors[name] = ["must be an integer (digits 0-9 only)"]
        return default
    if len(raw) > len(str(MAX_PAGE_PARAM)) or not 1 <= int(raw) <= MAX_PAGE_PARAM:
        errors[name] = [f"must be from 1 to {MAX_PAGE_PARAM}"]
        return default
    return int(raw)


def _offset(page: int, size: int) -> int:
    # A page far past the end is simply empty; keep the OFFSET inside SQLite's 64-bit range.
    return min((page - 1) * size, 2**62)
