"""wfctl sandbox serve: the local reference service (FastAPI + SQLite), for trying wfctl and for tests.

FastAPI and uvicorn come with the optional extra `wfctl[sandbox]`; they are imported only inside
`serve`, so the rest of the CLI never loads them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
from typing import Annotated

import typer

from wfctl.errors import CliError
from wfctl.sandbox.quirks import QUIRKS, parse_quirks

HELP = """Run the local reference service (the sandbox).

The sandbox implements the service's whole contract (tokens that rotate, roles, tenancy, pagination,
problem details, rate limits) on SQLite, seeded with two agencies and four logins. It is how to try
wfctl without an account, and what the tests talk to. Needs the extra: pip install 'wfctl[sandbox]'.

Examples:
  $ wfctl sandbox serve
  $ wfctl sandbox serve --db sandbox.db --port 9000
  $ wfctl sandbox serve --quirk put-clears --quirk next-page=int
"""

app = typer.Typer(help=HELP, short_help="Run the local reference service (the sandbox).", no_args_is_help=True,
                  rich_markup_mode=None)

INSTALL_HINT = "the sandbox needs FastAPI and uvicorn: pip install 'wfctl[sandbox]'"
QUIRK_HELP = ("Play a deployment that does what the contract only tolerates (repeatable; see docs/sandbox.md): "
              + "; ".join(f"{name} ({gap})" for name, (gap, _) in QUIRKS.items()) + ".")


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.", metavar="<host>")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", metavar="<port>")] = 8765,
    db: Annotated[str | None, typer.Option("--db", help="SQLite file that keeps the data across restarts "
                                              "(default: in memory).", metavar="<file>")] = None,
    seed: Annotated[bool, typer.Option("--seed/--no-seed", help="Fill an empty database with sample branches, "
                                       "clients and sites (the agencies and logins are always created).")] = True,
    access_ttl: Annotated[int, typer.Option("--access-ttl", min=1, help="Access token lifetime in seconds.",
                                            metavar="<seconds>")] = 900,
    rate_limit: Annotated[int | None, typer.Option("--rate-limit", min=1, help="Answer 429 past N requests "
                                                      "a second.", metavar="<n>")] = None,
    latency: Annotated[int, typer.Option("--latency", min=0, help="Delay every answer by this many "
                                         "milliseconds (plays a remote service).", metavar="<ms>")] = 0,
    max_body: Annotated[int, typer.Option("--max-body", min=0, help="Answer 413 to a request body larger than "
                                          "this (0: no limit).", metavar="<bytes>")] = 1024 * 1024,
    quirk: Annotated[list[str] | None, typer.Option("--quirk", help=QUIRK_HELP, metavar="<name[=value]>",
                                                    rich_help_panel="Quirks")] = None,
    log_requests: Annotated[bool, typer.Option("--log-requests", help="Print one line per request on stderr: "
                                               "method, path, status and milliseconds.")] = False,
) -> None:
    """Serve the sandbox on http://<host>:<port> until Ctrl-C.

    The seeded logins and the URL are printed on stderr once it answers. Data lives in memory unless
    --db names a file; --access-ttl, --rate-limit and --latency play a harder service for tests and
    benchmarks. Request bodies above --max-body are answered 413. Each --quirk plays one tolerance of
    the contract (a PUT that clears, an ignored filter, a lost create answer, other page links or
    error bodies), to rehearse a script against an odd deployment.

    Examples:
        $ wfctl sandbox serve
        $ wfctl sandbox serve --db sandbox.db --port 9000
        $ wfctl sandbox serve --access-ttl 5 --rate-limit 50 --latency 20
        $ wfctl sandbox serve --quirk put-clears --quirk drop-create-answer --quirk errors=html
        $ wfctl sandbox serve --log-requests
    """
    try:
        quirks = parse_quirks(quirk or [])
    except ValueError as exc:
        raise CliError(f"--quirk: {exc}") from None
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise CliError(INSTALL_HINT)
    import sqlite3

    from wfctl.sandbox.seed import LOGINS
    from wfctl.sandbox.server import bind
    from wfctl.sandbox.server import serve as run

    if not _is_loopback(host):
        typer.echo(f"warning: {host} is not a loopback address: the sandbox will be reachable from other machines, "
                   "with public logins and passwords over plain HTTP", err=True)
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    url = f"http://{host}:{port}"

    def banner() -> None:
        typer.echo(f"wfctl sandbox on {url}  (OpenAPI: {url}/openapi.json, docs: {url}/docs)", err=True)
        typer.echo(f"data: {db or 'in memory (lost at exit; --db FILE keeps it)'}", err=True)
        if quirks.names():
            typer.echo(f"quirks: {', '.join(quirks.names())} (not the contract's decisions: see docs/sandbox.md)",
                       err=True)
        typer.echo("logins (username / password):", err=True)
        for username, password, role, agency in LOGINS:
            typer.echo(f"  {username:<24} {password:<16} {role:<8} {agency}", err=True)
        typer.echo(f"log in with: wfctl login --base-url {url} --username admin@northwind.test", err=True)
        typer.echo("press Ctrl-C to stop", err=True)

    # uvicorn shuts down gracefully on Ctrl-C (and SIGTERM), then re-raises it: for a server, a clean stop.
    try:
        with contextlib.suppress(KeyboardInterrupt):
            run(host=host, port=port, db_path=db, seed=seed, access_ttl=access_ttl, rate_limit=rate_limit,
                latency_ms=latency, max_body=max_body or None, quirks=quirks, sock=sock, ready=banner,
                log_requests=_log_line if log_requests else None)
    except sqlite3.DatabaseError as exc:
        raise CliError(f"--db {db}: cannot use it as the sandbox's database: {exc}") from None
    typer.echo("sandbox stopped", err=True)


def _log_line(line: str) -> None:
    import sys

    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve anywhere
        return False
