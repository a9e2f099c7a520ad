"""wfctl sandbox serve: the local reference service (FastAPI + SQLite or PostgreSQL), for trying wfctl, for
tests, and as a team's shared staging service.

FastAPI and uvicorn come with the optional extra `wfctl[sandbox]`; they are imported only inside
`serve`, so the rest of the CLI never loads them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import os
from typing import Annotated

import typer

from wfctl.commands.sandbox_accounts import INSTALL_HINT, agencies, users
from wfctl.commands.sandbox_certify import certify
from wfctl.commands.sandbox_control import control_banner, register, start_control
from wfctl.errors import CliError
from wfctl.render.streams import IO
from wfctl.sandbox.quirks import QUIRKS, parse_quirks
from wfctl.sandbox.tokenforms import DEFAULT_JWT_SIZE, check_form

DEFAULT_ACCESS_TTL = 900  # seconds: the 15-minute access token of the service's specification

HELP = """Run the local reference service (the sandbox).

The sandbox implements the service's whole contract (tokens that rotate, roles, tenancy, pagination,
problem details, rate limits) on SQLite or PostgreSQL, seeded with two agencies and four logins. It is
how to try wfctl without an account, what the tests talk to, and a team's shared staging service.
Needs the extra: pip install 'wfctl[sandbox]' (with PostgreSQL: 'wfctl[sandbox,postgres]').

`wfctl sandbox users` and `wfctl sandbox agencies` manage a sandbox's logins and agencies in its
database, running or not (docs/sandbox.md, "A shared staging sandbox").

For integrators: `serve --control` lets `wfctl sandbox reset`, `seed`, `tenant add|remove`, `faults`, `clock
advance` and `journal` drive a running sandbox, and `wfctl sandbox certify -- <command>` grades a program
of yours from its traffic (docs/sandbox.md, "For integrators").

Examples:
  $ wfctl sandbox serve
  $ wfctl sandbox serve --db sandbox.db --port 9000
  $ wfctl sandbox serve --quirk put-clears --quirk next-page=int
  $ wfctl sandbox users add lee@northwind.test --agency "Northwind Staffing" --role manager --db sandbox.db
"""

app = typer.Typer(help=HELP, short_help="Run the local reference service (the sandbox).", no_args_is_help=True,
                  rich_markup_mode=None)

QUIRK_HELP = ("Play a deployment that does what the contract only tolerates (repeatable; see docs/sandbox.md): "
              + "; ".join(f"{name} ({gap})" for name, (gap, _) in QUIRKS.items()) + ".")


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (off loopback: TLS or --insecure-http, "
                                      "and no published passwords).", metavar="<host>")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", metavar="<port>")] = 8765,
    database: Annotated[str | None, typer.Option("--database", help="Where the data lives: a SQLite file "
                                                  "(a path or sqlite:///<file>) or postgresql://<user>@<host>:"
                                                  "<port>/<db> (default: in memory).", metavar="<url>")] = None,
    db: Annotated[str | None, typer.Option("--db", help="SQLite file that keeps the data across restarts (the "
                                              "same as --database <file>).", metavar="<file>")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Server processes on the port (more than one "
                                         "needs a PostgreSQL --database).", metavar="<n>")] = 1,
    fast_commit: Annotated[bool, typer.Option("--fast-commit", help="PostgreSQL: confirm a write before it is on "
                                              "disk (synchronous_commit=off). If the database server crashes, "
                                              "the last fraction of a second of writes already answered as done "
                                              "can be lost; never corrupted. Default: durable commits.")] = False,
    tls_cert: Annotated[str | None, typer.Option("--tls-cert", help="Serve https with this certificate chain "
                                                  "(PEM; with --tls-key).", metavar="<file>")] = None,
    tls_key: Annotated[str | None, typer.Option("--tls-key", help="The private key of --tls-cert (PEM).",
                                                 metavar="<file>")] = None,
    insecure_http: Annotated[bool, typer.Option("--insecure-http", help="Serve plain http off loopback (anyone "
                                                "on the network can read the tokens).")] = False,
    seed: Annotated[bool, typer.Option("--seed/--no-seed", help="Fill an empty database with sample branches, "
                                       "clients and sites (the agencies and logins are always created).")] = True,
    access_ttl: Annotated[int, typer.Option("--access-ttl", min=1, help="Access token lifetime in seconds.",
                                            metavar="<seconds>")] = DEFAULT_ACCESS_TTL,
    rate_limit: Annotated[int | None, typer.Option("--rate-limit", min=1, help="Answer 429 past N requests "
                                                      "a second.", metavar="<n>")] = None,
    latency: Annotated[int, typer.Option("--latency", min=0, help="Delay every answer by this many "
                                         "milliseconds (plays a remote service).", metavar="<ms>")] = 0,
    token_form: Annotated[str, typer.Option("--token-form", help="The tokens issued: opaque, or jwt (JWT-shaped, "
                                            "--token-size characters; kept and checked like opaque ones).",
                                            metavar="<opaque|jwt>")] = "opaque",
    token_size: Annotated[int, typer.Option("--token-size", min=1, help="With --token-form jwt: the length of "
                                            "each token in characters.", metavar="<n>")] = DEFAULT_JWT_SIZE,
    max_body: Annotated[int, typer.Option("--max-body", min=0, help="Answer 413 to a request body larger than "
                                          "this (0: no limit).", metavar="<bytes>")] = 1024 * 1024,
    quirk: Annotated[list[str] | None, typer.Option("--quirk", help=QUIRK_HELP, metavar="<name[=value]>",
                                                    rich_help_panel="Quirks")] = None,
    log_requests: Annotated[bool, typer.Option("--log-requests", help="Print one line per request on stderr: "
                                               "method, path, status, milliseconds and user.")] = False,
    control: Annotated[bool, typer.Option("--control", help="Serve the control plane under /_control/ (reset, "
                                          "seed, tenants, faults, clock, journal; loopback only, with a token).",
                                          rich_help_panel="Control plane")] = False,
    control_token_file: Annotated[str | None, typer.Option("--control-token-file", help="Write the control "
                                                           "plane's token to this file (0600) instead of "
                                                           "printing it.", metavar="<file>",
                                                           rich_help_panel="Control plane")] = None,
) -> None:
    """Serve the sandbox on http://<host>:<port> until Ctrl-C.

    The logins and the URL are printed on stderr once it answers. Data lives in memory unless --database
    (or --db) names a SQLite file or a PostgreSQL database; with PostgreSQL, --workers runs several server
    processes, for a team's shared staging sandbox (docs/sandbox.md). Off loopback the sandbox serves
    only over TLS (--tls-cert/--tls-key, or --insecure-http on purpose), a new database's logins get
    random passwords (shown once), and the published ones are refused. --access-ttl, --rate-limit and
    --latency play a harder service for tests and benchmarks. Request bodies above --max-body are
    answered 413. Each --quirk plays one tolerance of the contract (a PUT that clears, an ignored filter,
    a lost create answer, other page links or error bodies), to rehearse a script against an odd
    deployment.

    Examples:
        $ wfctl sandbox serve
        $ wfctl sandbox serve --db sandbox.db --port 9000
        $ wfctl sandbox serve --database postgresql://wfctl@db.internal:5432/staging --workers 2 \\
            --host 0.0.0.0 --tls-cert staging.pem --tls-key staging-key.pem
        $ wfctl sandbox serve --access-ttl 5 --rate-limit 50 --latency 20
        $ wfctl sandbox serve --token-form jwt --token-size 4096
        $ wfctl sandbox serve --quirk put-clears --quirk drop-create-answer --quirk errors=html
        $ wfctl sandbox serve --log-requests
    """
    try:
        quirks = parse_quirks(quirk or [])
    except ValueError as exc:
        raise CliError(f"--quirk: {exc}") from None
    try:
        check_form(token_form, token_size)
    except ValueError as exc:
        raise CliError(f"--token-form/--token-size: {exc}") from None
    if db is not None and database is not None:
        raise CliError("--db and --database name the same thing: give one")
    option = "--db" if db is not None else "--database"
    database = database if database is not None else db
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise CliError(INSTALL_HINT)
    is_postgres = database is not None and database.startswith(("postgresql://", "postgres://"))
    if fast_commit and not is_postgres:
        raise CliError("--fast-commit is for a PostgreSQL --database (SQLite commits are durable against a crash of "
                       "the sandbox as they are)")
    if workers > 1 and not is_postgres:
        raise CliError("--workers needs a PostgreSQL --database: SQLite has one writer at a time, so one process "
                       "serves it fastest (see docs/sandbox.md)")
    if (tls_cert is None) != (tls_key is None):
        raise CliError("--tls-cert and --tls-key go together: the certificate chain and its private key")
    exposed = not _is_loopback(host)
    if exposed and tls_cert is None and not insecure_http:
        raise CliError(f"--host {host} is not a loopback address: serve over TLS (--tls-cert <file> --tls-key "
                       "<file>) or, knowingly, with --insecure-http")
    if tls_cert is not None and tls_key is not None:
        _check_tls(tls_cert, tls_key)
    control_token = start_control(control, control_token_file, exposed=exposed, workers=workers)

    from wfctl.sandbox.seed import LOGINS
    from wfctl.sandbox.server import bind
    from wfctl.sandbox.server import serve as run
    from wfctl.sandbox.store import StoreError, describe

    if exposed and tls_cert is None:
        IO.write_err(f"warning: serving plain http on {host}, which is not a loopback address: anyone on the "
                     "network can read the tokens and passwords sent to it (--tls-cert/--tls-key serve https)\n")
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    url = f"{'https' if tls_cert else 'http'}://{host}:{port}"

    def banner(new_passwords: dict[str, str]) -> None:
        IO.write_err(f"wfctl sandbox on {url}  (OpenAPI: {url}/openapi.json, docs: {url}/docs)\n")
        where = describe(database) if database else "in memory (lost at exit; --db FILE keeps it)"
        IO.write_err(f"data: {where}" + (f", {workers} workers" if workers > 1 else "")
                     + (", fast commits (a database server crash can lose the last second of writes)"
                        if fast_commit else "") + "\n")
        plays = _harder_service(access_ttl, rate_limit, latency)
        if token_form == "jwt":
            plays = ", ".join(p for p in (plays, f"JWT-shaped tokens of {token_size} characters") if p)
        if plays:
            IO.write_err(f"plays a harder service: {plays}\n")
        if quirks.names():
            IO.write_err(f"quirks: {', '.join(quirks.names())} (not the contract's decisions: see docs/sandbox.md)\n")
        if new_passwords:
            IO.write_err("logins created with random passwords (shown this once; change them with "
                         "wfctl sandbox users passwd):\n")
            for username, _, role, agency in LOGINS:
                IO.write_err(f"  {username:<24} {new_passwords[username]:<18} {role:<8} {agency}\n")
        elif exposed:
            IO.write_err("logins: the sample logins' published passwords are refused off loopback; manage accounts "
                         "with wfctl sandbox users\n")
        else:
            IO.write_err("logins (username / password):\n")
            for username, password, role, agency in LOGINS:
                IO.write_err(f"  {username:<24} {password:<16} {role:<8} {agency}\n")
        ca = "--ca-bundle <its CA file> " if tls_cert else ""
        IO.write_err(f"log in with: wfctl {ca}login --base-url {url} --username admin@northwind.test\n")
        if control_token is not None:
            IO.write_err(control_banner(url, control_token, control_token_file))
        IO.write_err(_how_to_stop() + "\n")

    # uvicorn shuts down gracefully on Ctrl-C (and SIGTERM), then re-raises it: for a server, a clean stop.
    try:
        with contextlib.suppress(KeyboardInterrupt):
            run(host=host, port=port, database=database, workers=workers, sock=sock, ready=banner,
                log_requests=_log_line if log_requests else None, tls_cert=tls_cert, tls_key=tls_key,
                seed=seed, access_ttl=access_ttl, rate_limit=rate_limit, latency_ms=latency,
                max_body=max_body or None, quirks=quirks, exposed=exposed, fast_commit=fast_commit,
                control_token=control_token, token_form=token_form, token_size=token_size)
    except StoreError as exc:
        raise CliError(f"{option} {exc}") from None
    except RuntimeError as exc:
        raise CliError(str(exc)) from None
    IO.write_err("sandbox stopped\n")


def _harder_service(access_ttl: int, rate_limit: int | None, latency: int) -> str:
    """The options that make the sandbox harder than the contract's defaults, said once in the banner."""
    parts = []
    if latency:
        parts.append(f"{latency} ms latency on every answer")
    if rate_limit:
        parts.append(f"429 past {rate_limit} requests a second")
    if access_ttl != DEFAULT_ACCESS_TTL:
        parts.append(f"access tokens last {access_ttl} s")
    return ", ".join(parts)


def _how_to_stop() -> str:
    """Ctrl-C only reaches a sandbox in the terminal's foreground; a background job or a service is stopped by pid."""
    for fd in (2, 0):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return "press Ctrl-C to stop"
        except OSError:
            continue
    return f"stop with: kill {os.getpid()}"


def _check_tls(cert: str, key: str) -> None:
    """A certificate and key uvicorn can serve with, or a one-line error before anything listens."""
    import ssl

    for option, path in (("--tls-cert", cert), ("--tls-key", key)):
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            raise CliError(f"{option} {path}: {(exc.strerror or str(exc)).lower()}") from None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        raise CliError(f"--tls-cert {cert} / --tls-key {key}: not a PEM certificate chain and its key ({reason})") \
            from None


def _log_line(line: str) -> None:
    import sys

    IO.write_err(line + "\n")
    sys.stderr.flush()


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve anywhere
        return False


app.add_typer(users, name="users")
app.add_typer(agencies, name="agencies")
register(app, certify)
