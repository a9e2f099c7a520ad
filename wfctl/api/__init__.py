"""The HTTP layer and Python SDK for the Workforce Agency Management Service.

    from wfctl.api import Client
    with Client(base_url, auth=token_source) as client:   # or Client.from_environment(),
        for site in client.iter_sites(client_id):         # or wfctl.profiles.client("staging")
            print(site["name"])

Never imports typer or rich, nor anything of the CLI. Heavy imports (httpx) happen when `Client` (or another
name of `_LAZY`) is first touched. docs/sdk.md is the guide.
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
    from wfctl.api.net.retry import RetryPolicy
    from wfctl.api.records.resources import UnknownKind
    from wfctl.api.records.writes import CreateOutcome
    from wfctl.api.session.auth import StaticTokenAuth, TokenAuth
    from wfctl.api.session.keyringstore import KeyringStore
    from wfctl.api.session.store import FileStore
    from wfctl.api.session.tokenpair import TokenPair
    from wfctl.api.session.tokens import CallableSource, TokenSource

#: The SDK's public names: what `from wfctl.api import *` gives. Everything else under wfctl.api is the
#: SDK's own workings (a bulk run's internals among them), free to change.
__all__ = [
    "ApiError",
    "CaBundleError",
    "CallableSource",
    "CertificateError",
    "Client",
    "Conflict",
    "CreateOutcome",
    "CredentialStoreError",
    "FileStore",
    "Forbidden",
    "ForeignOrigin",
    "InsecureTransport",
    "InvalidId",
    "KeyringStore",
    "NetworkError",
    "NotFound",
    "NotLoggedIn",
    "NotSupported",
    "Page",
    "PaginationError",
    "RetryPolicy",
    "ServerError",
    "StaticTokenAuth",
    "TokenAuth",
    "TokenPair",
    "TokenSource",
    "UnknownKind",
    "ValidationFailed",
]

#: where each name that loads httpx (or more) lives: imported when first asked for
_LAZY = {
    "Client": "client", "NotSupported": "client", "Page": "client",
    "StaticTokenAuth": "session.auth", "TokenAuth": "session.auth",
    "FileStore": "session.store", "KeyringStore": "session.keyringstore",
    "TokenPair": "session.tokenpair", "TokenSource": "session.tokens", "CallableSource": "session.tokens",
    "RetryPolicy": "net.retry", "UnknownKind": "records.resources", "CreateOutcome": "records.writes",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f"wfctl.api.{module}"), name)
