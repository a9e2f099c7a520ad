"""Client: one authenticated, retrying HTTP session to the service, with a method per endpoint.

INTERFACE CONTRACT (other modules code against exactly these names; bodies are filled in by the
HTTP-layer work). Records are plain dicts exactly as the service sends them (camelCase keys):
cheap to stream, and what `-o json` prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


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


class Client:
    """Talks to one service origin.

    Construction does no I/O. `auth` is an `httpx.Auth` (see wfctl.api.auth) or None for
    the identity endpoints. Every method raises a subclass of wfctl.api.errors.ApiError on failure.
    Thread-safe: bulk import shares one Client between worker threads.
    """

    def __init__(self, base_url: str, **options: Any) -> None:
        raise NotImplementedError

    @classmethod
    def from_profile(cls, profile: str | None = None) -> Client:
        """A Client using the CLI's config and stored login for `profile` (default profile if None)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- generic -----------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Send one request (path relative to base_url, or a same-origin absolute URL) and return
        the decoded JSON body (None for an empty body). Non-2xx raises ApiError."""
        raise NotImplementedError

    def pages(
        self,
        path: str,
        params: dict[str, Any] | None = None,
        *,
        page: int | None = None,
        page_size: int | None = None,
        all_pages: bool = True,
    ) -> Iterator[Page]:
        """Yield pages starting at `page` (default 1), following nextPage in every G8 form;
        stops after one page when all_pages is False. A loop or a foreign origin raises."""
        raise NotImplementedError

    # -- agency ------------------------------------------------------------------
    def get_agency(self) -> dict[str, Any]:
        raise NotImplementedError

    def update_agency(self, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    # -- branches ----------------------------------------------------------------
    def list_branches(self, *, page: int | None = None, page_size: int | None = None,
                      all_pages: bool = False) -> Iterator[Page]:
        raise NotImplementedError

    def iter_branches(self, *, page_size: int | None = 100) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def get_branch(self, branch_id: str) -> dict[str, Any]:
        raise NotImplementedError

    def create_branch(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def update_branch(self, branch_id: str, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def delete_branch(self, branch_id: str) -> dict[str, Any]:
        raise NotImplementedError

    # -- clients -----------------------------------------------------------------
    def list_clients(self, *, branch_id: str | None = None, page: int | None = None,
                     page_size: int | None = None, all_pages: bool = False) -> Iterator[Page]:
        """Pages of clients; with branch_id the rows are also filtered here (G9)."""
        raise NotImplementedError

    def iter_clients(self, *, branch_id: str | None = None, page_size: int | None = 100) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def get_client(self, client_id: str) -> dict[str, Any]:
        raise NotImplementedError

    def create_client(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def update_client(self, client_id: str, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def delete_client(self, client_id: str) -> dict[str, Any]:
        raise NotImplementedError

    # -- sites -------------------------------------------------------------------
    def list_sites(self, client_id: str, *, page: int | None = None, page_size: int | None = None,
                   all_pages: bool = False) -> Iterator[Page]:
        raise NotImplementedError

    def iter_sites(self, client_id: str, *, page_size: int | None = 100) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def get_site(self, site_id: str) -> dict[str, Any]:
        raise NotImplementedError

    def create_site(self, client_id: str, body: dict[str, Any], *,
                    idempotency_key: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def update_site(self, site_id: str, body: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def delete_site(self, site_id: str) -> dict[str, Any]:
        raise NotImplementedError
