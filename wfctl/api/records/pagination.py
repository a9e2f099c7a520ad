"""The pagination envelope, and where the next page is (G7, G8).

`nextPage` may be an absolute URL (the sandbox), a relative URL, a page number, a numeric string,
an object holding `pageNumber`, null, or missing (then `pageNumber < pageCount` decides). A URL on
another origin is never followed: ForeignOrigin, and no token leaves.
"""

from __future__ import annotations

from typing import Any

import httpx

from wfctl.api.errors import ForeignOrigin, PaginationError
from wfctl.api.net.origin import origin_of, same_origin
from wfctl.api.records.page import Page


def to_page(body: Any, *, next_url: str | None) -> Page:
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise PaginationError("the service's list answer is not a pagination envelope (no data array)")
    data = body["data"]
    for row in data:
        if type(row) is not dict:  # never dropped in silence: the listing would look complete
            kind = _JSON_KINDS.get(type(row), "value")
            raise PaginationError(f"the service's list answer holds a record that is not an object ({kind})")
    return Page(
        data=data,
        page_number=_int(body.get("pageNumber"), 1),
        page_size=_int(body.get("pageSize"), len(data)),
        page_count=_int(body.get("pageCount"), 0),
        total_record_count=_int(body.get("totalRecordCount"), len(data)),
        next_url=next_url,
        raw=body,
    )


def next_request(body: Any, current: httpx.URL | str, base_url: str) -> httpx.URL | None:
    """Absolute URL of the next page, or None on the last page. `current` is the URL of this page,
    query included (pass the httpx.URL the request was made with: it is not parsed again)."""
    if not isinstance(body, dict):
        return None
    data = body.get("data")
    if isinstance(data, list) and not data:
        return None  # an empty page ends the list whatever the links say
    if not isinstance(current, httpx.URL):
        current = httpx.URL(current)
    page_number = _int(body.get("pageNumber"), None)
    if "nextPage" not in body:
        page_count = _int(body.get("pageCount"), None)
        if page_number is None or page_count is None or page_number >= page_count:
            return None
        return _with_page(current, page_number + 1)
    ref = body["nextPage"]
    if ref is None or ref == "" or ref is False:
        return None
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return _with_page(current, ref)
    if isinstance(ref, float) and ref.is_integer():
        return _with_page(current, int(ref))
    if isinstance(ref, dict):
        number = _int(ref.get("pageNumber"), None)
        if number is None:
            url = ref.get("url") or ref.get("href")
            if isinstance(url, str):
                return _resolve(current, url, base_url)
            raise PaginationError("the service's nextPage object has no pageNumber")
        return _with_page(current, number)
    if isinstance(ref, str):
        text = ref.strip()
        if text.isascii() and text.isdigit():
            return _with_page(current, int(text))
        return _resolve(current, text, base_url)
    raise PaginationError(f"cannot follow the service's nextPage of type {type(ref).__name__}")


def _resolve(current: httpx.URL, ref: str, base_url: str) -> httpx.URL:
    try:  # an absolute link is its own target (what join gives, for a page's worth less parsing)
        target = httpx.URL(ref) if ref[:8].lower().startswith(("http://", "https://")) else current.join(ref)
    except httpx.InvalidURL:
        raise PaginationError("the service's nextPage is not a valid URL") from None
    if not same_origin(target, base_url):
        raise ForeignOrigin(f"the service's nextPage points at {origin_of(target)}, another origin; "
                            "not followed, no token sent there")
    if target.path.rstrip("/") != current.path.rstrip("/"):
        # A word ("more", "true") joins to a sibling path: its 404 would read as "not found" (exit 4).
        shown = ref if len(ref) <= 60 else ref[:57] + "..."
        raise PaginationError(f"the service's nextPage {shown!r} is not a link to a page of this list; "
                              "not followed")
    return target


def _with_page(current: httpx.URL, number: int) -> httpx.URL:
    return current.copy_set_param("pageNumber", str(number))


_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false",
               type(None): "null"}


def _int(value: Any, default: Any) -> Any:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return default
