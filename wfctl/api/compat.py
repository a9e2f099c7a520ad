"""Every use the SDK makes of another library's private names, in one place (issue 22 §5), each behind a
feature check with a plain way on when the name is not there; `tests/layers/test_typer_compat.py`
checks each on the installed versions. (The CLI's typer/click names: `wfctl.cmdline.typercompat`.)

- `quiet_httpx_cli()`: httpx's package imports its own command-line tool (click, rich,
  pygments) when they are installed; a None entry for `httpx._main` makes that optional import fail, as it
  does when they are absent. Without it, start-up is only slower.
- `keyring_backend_loaded()`: keyring's chosen backend if keyring has chosen one already (a private
  attribute of `keyring.core`), without making it choose (which may talk to D-Bus); None otherwise.
- `pool_backend(transport)` / `set_pool_backend(transport, backend)`: the network backend under an
  `httpx.HTTPTransport`'s connection pool (httpcore's private `_network_backend`), where the request
  deadline wraps every socket read; None / False where the layout differs (the deadline is then checked
  between reads only).
"""

from __future__ import annotations

import sys
from typing import Any


def quiet_httpx_cli() -> None:
    """Before httpx is first imported: keep httpx from loading its command-line tool."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def keyring_backend_loaded() -> Any:
    """keyring's backend if it has chosen one, else None (never makes it choose)."""
    core = sys.modules.get("keyring.core")
    return getattr(core, "_keyring_backend", None) if core is not None else None


def pool_backend(transport: Any) -> Any:
    """The network backend of `transport`'s connection pool, or None."""
    return getattr(getattr(transport, "_pool", None), "_network_backend", None)


def set_pool_backend(transport: Any, backend: Any) -> bool:
    """Put `backend` under `transport`'s connection pool; False where the pool has no backend slot."""
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        return False
    pool._network_backend = backend
    return True
