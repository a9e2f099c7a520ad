"""The environment `wfctl exec` gives its program (wfctl.drivers.execrun runs it): the profile's service URL, a
valid access token and its expiry, and the token helper that renews it (wfctl.api.session.tokenhelper)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.config import Settings
    from wfctl.drivers.execrun import Masker


@contextlib.contextmanager
def child_environment(settings: Settings, client: Client, masker: Masker | None) -> Iterator[dict[str, str]]:
    """The program's variables, while the token helper serves the client's token source."""
    from wfctl.api.client import ACCESS_TOKEN_ENV, BASE_URL_ENV, CA_BUNDLE_ENV, TIMEOUT_ENV
    from wfctl.api.errors import NotLoggedIn
    from wfctl.api.session.auth import KeepsPair
    from wfctl.api.session.tokenhelper import HELPER_ENV, serving
    from wfctl.drivers.execrun import EXPIRES_ENV

    if sys.platform == "win32":  # the helper is a Unix socket, the masking select()s on pipes
        from wfctl.clierror import CliError

        raise CliError("wfctl exec is not supported on Windows yet; run `wfctl auth token` for a token")
    source = client.tokens
    if source is None:
        raise NotLoggedIn(f"not logged in (profile {settings.profile!r})")
    if isinstance(source, KeepsPair):
        pair = source.pair()  # refreshed first when it is about to expire
        token, expires_at = pair.access_token, pair.expires_at
    else:
        token, expires_at = client.access_token(), 0.0
    told = masker.add if masker is not None else (lambda token: None)
    told(token)
    env = {BASE_URL_ENV: client.base_url, ACCESS_TOKEN_ENV: token}
    if expires_at:
        env[EXPIRES_ENV] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires_at))
    if settings.ca_bundle:
        env[CA_BUNDLE_ENV] = str(settings.ca_bundle)
    if settings.timeout:
        env[TIMEOUT_ENV] = str(settings.timeout)
    with serving(source, on_token=told) as path:
        env[HELPER_ENV] = path
        yield env
