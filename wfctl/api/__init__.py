"""The HTTP layer and Python SDK for the Workforce Agency Management Service.

    from wfctl.api import Client
    with Client(base_url, auth=auth) as client:    # or wfctl.factory.client_from_profile()
        for site in client.iter_sites(client_id):
            print(site["name"])

Never imports typer or rich. Heavy imports (httpx) happen when `Client` is first touched.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if "httpx" not in sys.modules:
    # httpx's package __init__ imports its own command-line tool (click, rich, pygments: ~40 ms) when
    # those happen to be installed; a None entry makes that optional import fail, as it does when they
    # are absent (httpx.main then says to install httpx[cli]). Every module here that imports httpx is
    # below this package, so this runs first.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

from wfctl.api.errors import (
    ApiError,
    CaBundleError,
    CertificateError,
    Conflict,
    CredentialStoreError,
    Forbidden,
    ForeignOrigin,
    InsecureTransport,
    InvalidId,
    NetworkError,
    NotFound,
    NotLoggedIn,
    PaginationError,
    ServerError,
    ValidationFailed,
)

if TYPE_CHECKING:
    from wfctl.api.client import Client, NotSupported, Page

__all__ = [
    "ApiError",
    "CaBundleError",
    "CertificateError",
    "Client",
    "Conflict",
    "CredentialStoreError",
    "Forbidden",
    "ForeignOrigin",
    "InsecureTransport",
    "InvalidId",
    "NetworkError",
    "NotFound",
    "NotLoggedIn",
    "NotSupported",
    "Page",
    "PaginationError",
    "ServerError",
    "ValidationFailed",
]


def __getattr__(name: str) -> Any:
    if name in ("Client", "NotSupported", "Page"):
        from wfctl.api import client

        return getattr(client, name)
    raise AttributeError(name)
