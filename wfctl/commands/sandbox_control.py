"""wfctl sandbox reset|seed|tenant add|tenant remove|faults set|faults clear|clock advance|journal: drive a running sandbox's
control plane (`wfctl sandbox serve --control`, wfctl/sandbox/control.py) from a shell or a CI script.

Each takes `--url` (default http://127.0.0.1:8765) and `--control-token-file` (the file `serve --control
--control-token-file` wrote; or the token itself in WFCTL_SANDBOX_CONTROL_TOKEN). The token never comes
from the command line. What a command returns is JSON on stdout; what it did, one line on stderr.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.render.streams import IO

if TYPE_CHECKING:
    from wfctl.sandbox.controlclient import ControlClient

TOKEN_ENV = "WFCTL_SANDBOX_CONTROL_TOKEN"
_EXITS = {"network": ExitCode.NETWORK, "auth": ExitCode.AUTH, "forbidden": ExitCode.FORBIDDEN,
          "not_found": ExitCode.NOT_FOUND, "conflict": ExitCode.CONFLICT, "invalid": ExitCode.INVALID}

Url = Annotated[str, typer.Option("--url", envvar="WFCTL_SANDBOX_URL", metavar="<url>",
                                  help="The sandbox (started with --control).")]
TokenFile = Annotated[Path | None, typer.Option(
    "--control-token-file", metavar="<file>",
    help=f"The file `serve --control --control-token-file` wrote (or set {TOKEN_ENV}).")]
OneTenant = Annotated[str | None, typer.Option(
    "--tenant", metavar="<agency>", help="That tenant alone (its id or name); the others play on unchanged.")]

TENANT_HELP = """Add tenants (agencies with their logins) to a running sandbox, and remove them.

A tenant is an agency of its own with an admin login and, unless --no-records, sample branches, clients
and sites: a test of yours gets records no other test touches.

Examples:
  $ wfctl sandbox tenant add "Acme Integration" --control-token-file .sandbox-token
  $ wfctl sandbox tenant remove "Acme Integration" --control-token-file .sandbox-token
"""
FAULTS_HELP = """Change what a running sandbox plays: quirks, faults, latency, limits.

`faults set` changes it from the next request; `faults clear` plays again what the sandbox was started
with.

Examples:
  $ wfctl sandbox faults set --latency 200 --control-token-file .sandbox-token
  $ wfctl sandbox faults clear --control-token-file .sandbox-token
"""
CLOCK_HELP = """Move a running sandbox's clock forward.

What expires (access and refresh tokens, the idempotency window) expires without a wait.

Examples:
  $ wfctl sandbox clock advance 16m --control-token-file .sandbox-token
"""

tenant_app = typer.Typer(help=TENANT_HELP, short_help="Add or remove tenants of a running sandbox.",
                         no_args_is_help=True, rich_markup_mode=None)
faults_app = typer.Typer(help=FAULTS_HELP, short_help="Change what a running sandbox plays.",
                         no_args_is_help=True, rich_markup_mode=None)
clock_app = typer.Typer(help=CLOCK_HELP, short_help="Move a running sandbox's clock forward.",
                        no_args_is_help=True, rich_markup_mode=None)


def reset(url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None) -> None:
    """Put a running sandbox back to its seed.

    Its data, logins and tokens are the seed's again, it plays what it was started with (quirks, faults,
    limits), and its request journal is emptied.

    Examples:
        $ wfctl sandbox reset --control-token-file .sandbox-token
    """
    with _control(url, control_token_file) as control:
        control.reset()
    IO.write_err(f"{url}: reset to the seed\n")


def seed(
    file: Annotated[Path, typer.Argument(metavar="<file>", help="A seed file (JSON; docs/sandbox.md).")],
    tenant: Annotated[str | None, typer.Option("--tenant", metavar="<agency>",
                                               help="The agency (id or name) the records go to.")] = None,
    url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Load a seed file's records into a running sandbox, all or none.

    In the file, `${ref:id}` names an earlier record's id. Prints {"tenant": <agency id>, "records": {<ref>: <id>}}.

    Examples:
        $ wfctl sandbox seed fixtures.json --tenant "Northwind Staffing" --control-token-file .sandbox-token
    """
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"{file}: {(exc.strerror or str(exc)).lower()}") from None
    except ValueError as exc:
        raise CliError(f"{file}: not JSON: {exc}") from None
    with _control(url, control_token_file) as control:
        made = control.seed(document, tenant=tenant)
    _print(made)
    IO.write_err(f"{len(made['records'])} named records written\n")


@tenant_app.command("add")
def tenant_add(
    name: Annotated[str, typer.Argument(metavar="<name>", help="The new agency's name.")],
    username: Annotated[str | None, typer.Option("--username", metavar="<user>",
                                                 help="Its admin login (default admin@<name>.test).")] = None,
    records: Annotated[bool, typer.Option("--records/--no-records",
                                          help="Give it sample branches, clients and sites.")] = True,
    url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Add a tenant: an agency of its own, an admin login with a new random password, sample records.

    Prints the tenant as JSON, its login's password included (shown this once).

    Examples:
        $ wfctl sandbox tenant add "Acme Integration" --control-token-file .sandbox-token
    """
    with _control(url, control_token_file) as control:
        made = control.add_tenant(name, records=records,
                                  logins=None if username is None else [{"username": username, "role": "admin"}])
    _print(made)


@tenant_app.command("remove")
def tenant_remove(
    name: Annotated[str, typer.Argument(metavar="<agency>", help="The tenant (its id or name).")],
    url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Remove a tenant: its records, logins and tokens, and what it played of its own.

    Its logins fail and its tokens are refused from the next request on; other tenants are untouched. The
    default tenant (Northwind Staffing) cannot be removed. Prints how many records and logins went as JSON.

    Examples:
        $ wfctl sandbox tenant remove "Acme Integration" --control-token-file .sandbox-token
    """
    with _control(url, control_token_file) as control:
        removed = control.remove_tenant(name)
    _print(removed)
    went = ", ".join(f"{removed[kinds]} {kinds if removed[kinds] != 1 else kind}"
                     for kinds, kind in (("sites", "site"), ("clients", "client"), ("branches", "branch"),
                                         ("logins", "login")))
    IO.write_err(f"removed tenant {removed['name']}: {went}\n")


@faults_app.command("set")
def faults_set(
    quirk: Annotated[list[str] | None, typer.Option("--quirk", metavar="<name[=value]>",
                                                    help="Quirks to play (repeatable; replaces the set).")] = None,
    unavailable: Annotated[bool | None, typer.Option("--unavailable/--available",
                                                     help="Answer every request 503 (a window).")] = None,
    latency: Annotated[int | None, typer.Option("--latency", min=0, metavar="<ms>",
                                                help="Delay every answer.")] = None,
    rate_limit: Annotated[int | None, typer.Option("--rate-limit", min=0, metavar="<n>",
                                                   help="429 past N requests a second (0: off).")] = None,
    access_ttl: Annotated[int | None, typer.Option("--access-ttl", min=1, metavar="<seconds>",
                                                   help="Lifetime of access tokens issued from now.")] = None,
    tenant: OneTenant = None, url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Change what a running sandbox plays, from its next request; what is not named stays.

    Prints what it plays now as JSON.

    Examples:
        $ wfctl sandbox faults set --quirk put-clears --quirk next-page=int --control-token-file .sandbox-token
        $ wfctl sandbox faults set --unavailable --control-token-file .sandbox-token
        $ wfctl sandbox faults set --quirk errors=html --tenant "Acme Integration" --control-token-file .sandbox-token
    """
    changes: dict[str, Any] = {}
    if quirk is not None:
        changes["quirks"] = quirk
    if unavailable is not None:
        changes["faults"] = {"unavailable": unavailable}
    for key, value in (("latency_ms", latency), ("rate_limit", rate_limit), ("access_ttl", access_ttl)):
        if value is not None:
            changes[key] = value
    if not changes:
        raise CliError("name something to change: --quirk, --unavailable/--available, --latency, --rate-limit "
                       "or --access-ttl")
    with _control(url, control_token_file) as control:
        _print(control.change(tenant=tenant, **changes))


@faults_app.command("clear")
def faults_clear(tenant: OneTenant = None, url: Url = "http://127.0.0.1:8765",
                 control_token_file: TokenFile = None) -> None:
    """Play again what the sandbox was started with.

    Its quirks and limits as `serve` was given them, and no faults; with --tenant, that tenant plays what the
    sandbox plays for all again. Prints what it plays now as JSON.

    Examples:
        $ wfctl sandbox faults clear --control-token-file .sandbox-token
    """
    with _control(url, control_token_file) as control:
        _print(control.restore(tenant=tenant))


@clock_app.command("advance")
def clock_advance(
    duration: Annotated[str, typer.Argument(metavar="<duration>", help="How far: 90s, 16m, 1h30m, 31d.")],
    tenant: OneTenant = None, url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Move a running sandbox's clock forward.

    Access tokens (15 minutes), refresh tokens (30 days) and the idempotency window (24 hours) expire
    without a wait.

    Examples:
        $ wfctl sandbox clock advance 16m --control-token-file .sandbox-token
        $ wfctl sandbox clock advance 16m --tenant "Acme Integration" --control-token-file .sandbox-token
    """
    from wfctl.sandbox.controlclient import parse_duration

    try:
        seconds = parse_duration(duration)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    with _control(url, control_token_file) as control:
        moved = control.advance(seconds, tenant=tenant)
    IO.write_err(f"{'that tenant' if tenant else 'the sandbox'}'s clock now reads {moved['now']}\n")


def journal(
    tenant: Annotated[str | None, typer.Option("--tenant", metavar="<agency>",
                                               help="Only this agency's requests (id or name).")] = None,
    since: Annotated[int, typer.Option("--since", min=0, metavar="<id>",
                                       help="Only records after this id.")] = 0,
    bodies: Annotated[bool, typer.Option("--bodies", help="With the bodies kept (secrets redacted).")] = False,
    keep_bodies: Annotated[bool | None, typer.Option("--keep-bodies/--no-keep-bodies",
                                                     help="Keep bodies from now on (or stop).")] = None,
    url: Url = "http://127.0.0.1:8765", control_token_file: TokenFile = None,
) -> None:
    """Print a running sandbox's request journal, one JSON record a line.

    Oldest first; --since <id> prints only what came after the record with that id. Bodies are kept only
    once --keep-bodies was given; --bodies prints them, secrets redacted.

    Examples:
        $ wfctl sandbox journal --tenant "Acme Integration" --control-token-file .sandbox-token
        $ wfctl sandbox journal --keep-bodies --control-token-file .sandbox-token
    """
    with _control(url, control_token_file) as control:
        if keep_bodies is not None:
            control.keep_bodies(keep_bodies)
            IO.write_err(f"the journal {'keeps' if keep_bodies else 'no longer keeps'} bodies\n")
            return
        for record in control.journal(tenant=tenant, since=since, bodies=bodies):
            IO().write(json.dumps(record, sort_keys=True) + "\n")


def read_token(token_file: Path | None) -> str:
    """The control token: from the file, else the environment; never from the command line."""
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise CliError(f"--control-token-file {token_file}: {(exc.strerror or str(exc)).lower()}") from None
        if not token:
            raise CliError(f"--control-token-file {token_file} is empty")
        return token
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise CliError(f"the control plane needs its token: --control-token-file <file> (or {TOKEN_ENV})")
    return token


def start_control(on: bool, token_file: str | None, *, exposed: bool, workers: int) -> str | None:
    """`serve --control`: a new token (written 0600 to `token_file` before anything listens), or None when off."""
    import secrets

    if not on:
        if token_file is not None:
            raise CliError("--control-token-file goes with --control")
        return None
    if exposed:
        raise CliError("--control serves loopback only: leave out --host, or give a loopback address")
    if workers > 1:
        raise CliError("--control changes one process: it cannot be used with --workers")
    token = secrets.token_urlsafe(32)
    if token_file is not None:
        try:
            fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(token + "\n")
        except OSError as exc:
            raise CliError(f"--control-token-file {token_file}: {(exc.strerror or str(exc)).lower()}") from None
    return token


def control_banner(url: str, token: str, token_file: str | None) -> str:
    """The banner's line about the control plane: where its token is (or the token, when no file was named)."""
    where = f"token in {token_file}" if token_file else f"token {token}"
    return f"control plane: {url}/_control/ ({where}; loopback only)\n"


def register(app: typer.Typer, certify: Callable[..., None]) -> None:
    """Add the control verbs, and `certify` among them, to `wfctl sandbox`."""
    app.command("reset")(reset)
    app.command("seed")(seed)
    app.command("journal")(journal)
    app.command("certify", short_help="Grade a client of the service from its own traffic.")(certify)
    app.add_typer(tenant_app, name="tenant")
    app.add_typer(faults_app, name="faults")
    app.add_typer(clock_app, name="clock")


@contextmanager
def control_failures() -> Iterator[None]:
    """A control plane's refusal (controlclient.ControlFailure) as one line and its exit code."""
    from wfctl.sandbox.controlclient import ControlFailure

    try:
        yield
    except ControlFailure as exc:
        raise CliError(str(exc), _EXITS.get(exc.kind, ExitCode.FAILURE)) from None


@contextmanager
def _control(url: str, token_file: Path | None) -> Iterator[ControlClient]:
    from wfctl.sandbox.controlclient import ControlClient

    client = ControlClient(url, read_token(token_file))
    try:
        with control_failures():
            yield client
    finally:
        client.close()


def _print(value: Any) -> None:
    IO().write(json.dumps(value, indent=2, sort_keys=True) + "\n")
