"""wfctl auth token."""

from __future__ import annotations

import typer

from wfctl.commands.auth import app
from wfctl.commands.options import Output, app_context, fmt


@app.command("token")
def token(ctx: typer.Context, output: Output = None) -> None:
    """Print a valid access token, refreshing it first if needed.

    For other tools that call the service directly. The token is printed on stdout and nowhere
    else; with -o json an object with the token and its expiry.

    Examples:
      $ wfctl auth token
      $ curl -H "Authorization: Bearer $(wfctl auth token)" <base-url>/api/agency/
      $ wfctl auth token -o json
    """
    import time

    app_ctx = app_context(ctx)
    fmt_name = app_ctx.output_format(fmt(output))
    with app_ctx.client as client:
        pair = client.token_pair()
    if fmt_name in ("json", "jsonl"):
        expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(pair.expires_at)) if pair.expires_at else None
        app_ctx.output(fmt(output)).value({"accessToken": pair.access_token, "expiresAt": expires})
    else:
        app_ctx.io.write(pair.access_token + "\n")
