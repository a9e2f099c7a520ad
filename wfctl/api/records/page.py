"""One page of a list answer, and the key that says two page requests are the same page.

Its own module so that the client and the page readers (pagination, pagereader) both import it and not
each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx


@dataclass
class Page:
    """One page of a list answer (the pagination envelope)."""

    data: list[dict[str, Any]]
    page_number: int
    page_size: int
    page_count: int
    total_record_count: int
    next_url: str | None = None  # absolute, same-origin URL of the next page, already resolved (G8)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    #: Rows the service listed here whose own parent field names another parent (a listing that lies,
    #: wfctl.api.records.listcheck): never in `data`, kept so that a reader that feeds a delete can say so.
    misplaced: list[dict[str, Any]] = field(default_factory=list, repr=False)


def request_key(url: httpx.URL) -> str:
    """The URL with its query parameters in a fixed order: two pages with the same key are the same page."""
    items = sorted(url.params.multi_items())
    address = str(url).split("?", 1)[0].split("#", 1)[0]
    return address + "?" + "&".join(f"{k}={v}" for k, v in items)
