"""The HTTP layer and Python SDK for the Workforce Agency Management Service.

    from wfctl.api import Client
    with Client(base_url, auth=auth) as client:    # or wfctl.factory.client_from_profile()
        for site in client.iter_sites(client_id):
            print(site["name"])

Never imports typer or rich. Heavy imports (httpx) happen when `Client` is first touched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wfctl.api.compat import quiet_httpx_cli

# Every module here that imports httpx is below this package, so this runs first (see wfctl.api.compat).
quiet_httpx_cli()

from wfctl.api.errors import (  # noqa: E402 - after quiet_httpx_cli, before anything imports httpx
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
