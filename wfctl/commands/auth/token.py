"""wfctl auth token."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("token")
@takes_output()
def token(
    ctx: typer.Context,
    output: OutputOptions = AS_CONFIGURED,
    header: Annotated[bool, typer.Option(
        "--header", help="Print the HTTP header line `Authorization: Bearer <token>` instead (for "
        "`curl -H @-`), whatever the output format.")] = False,
) -> None:
    """Print a valid access token, refreshing it first if needed.

    For other tools that call the service directly. The token is printed on stdout and nowhere
    else; with -o json an object with the token and its expiry. Hand it to another program
    through a pipe or a file, never as an argument: arguments are visible to every user of the
    machine in `ps`. curl 7.55 or newer reads header lines from standard input with `-H @-`.

    Examples:
      $ wfctl auth token --header | curl -H @- <base-url>/api/agency/
      $ wfctl auth token
      $ wfctl auth token -o json
    """
    import time

    from wfctl.factory import token_pair

    app_ctx = app_context(ctx)
    out = output.writer(app_ctx)
    with app_ctx.client as client:
        pair = token_pair(client)
    if header:
        app_ctx.io.write(f"Authorization: Bearer {pair.access_token}\n")
    elif out.structured:
        expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(pair.expires_at)) if pair.expires_at else None
        out.value({"accessToken": pair.access_token, "expiresAt": expires})
    else:
        app_ctx.io.write(pair.access_token + "\n")
