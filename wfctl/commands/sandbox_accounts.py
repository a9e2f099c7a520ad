"""wfctl sandbox users|agencies: the logins and agencies of a sandbox's database (issue 16 §2).

They work on the database itself, with the server stopped or running (another process on the same
file sees every change at once), and never start a server. A password comes from a hidden prompt,
asked twice, or from --password-stdin; never from the command line, never printed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from wfctl.commands.options import Yes, app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.sandbox.store import Store

DATABASE_PANEL = "Database"
#: What `sandbox serve` and these commands say without the extra (wfctl.commands.sandbox imports it from here).
INSTALL_HINT = "the sandbox needs FastAPI and uvicorn: pip install 'wfctl[sandbox]'"

USERS_HELP = """Manage the logins of a sandbox's database.

Works on the database file (--db) or URL (--database) of `wfctl sandbox serve`, whether the sandbox
is running or not. Passwords are asked for twice without echo, or read with --password-stdin;
changing a password or removing a user ends that user's logins at once.

Examples:
  $ wfctl sandbox users add lee@northwind.test --db sandbox.db --agency "Northwind Staffing" --role manager
  $ wfctl sandbox users list --db sandbox.db
  $ wfctl sandbox users passwd lee@northwind.test --db sandbox.db
  $ wfctl sandbox users remove lee@northwind.test --db sandbox.db --yes
"""

AGENCIES_HELP = """Manage the agencies (tenants) of a sandbox's database.

Each agency has its own branches, clients, sites and logins, and sees none of another's. Works on
the database file (--db) or URL (--database) of `wfctl sandbox serve`, running or not.

Examples:
  $ wfctl sandbox agencies add "Eastfield Staffing" --db sandbox.db --email office@eastfield.test
  $ wfctl sandbox agencies list --db sandbox.db
"""

users = typer.Typer(help=USERS_HELP, short_help="Manage the logins of a sandbox's database.",
                    no_args_is_help=True, rich_markup_mode=None)
agencies = typer.Typer(help=AGENCIES_HELP, short_help="Manage the agencies of a sandbox's database.",
                       no_args_is_help=True, rich_markup_mode=None)


class Role(StrEnum):
    admin = "admin"
    manager = "manager"
    staff = "staff"


Db = Annotated[str | None, typer.Option(
    "--db", help="The sandbox's SQLite file (as given to `wfctl sandbox serve --db`).", metavar="<file>",
    rich_help_panel=DATABASE_PANEL)]
Database = Annotated[str | None, typer.Option(
    "--database", help="The sandbox's database as a URL: sqlite:///<file> or postgresql://<user>@<host>/<db>.",
    metavar="<url>", rich_help_panel=DATABASE_PANEL)]
Username = Annotated[str, typer.Argument(help="The login's user name, e.g. an e-mail address.",
                                         metavar="<username>", show_default=False)]
PasswordStdin = Annotated[bool, typer.Option(
    "--password-stdin", help="Read the password from standard input (a password is never taken from the "
    "command line).")]

USER_COLUMNS = ["username", "role", "agency", "branch"]
AGENCY_COLUMNS = ["id", "name", "email", "phone", "users"]


@users.command("add")
@takes_output()
def users_add(
    ctx: typer.Context,
    username: Username,
    agency: Annotated[str, typer.Option("--agency", help="The agency of the login: its name or id.",
                                        metavar="<agency>", show_default=False)],
    role: Annotated[Role, typer.Option("--role", help="admin, manager or staff.", show_default=False)],
    branch: Annotated[str | None, typer.Option(
        "--branch", help="The branch a staff login is bound to: its name or id (none: it sees no clients).",
        metavar="<branch>")] = None,
    password_stdin: PasswordStdin = False,
    db: Db = None,
    database: Database = None,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Add a login to an agency of the sandbox.

    The password is asked for twice without echo on a terminal; in a script pipe it to
    --password-stdin. User names are case-insensitive and unique across agencies.

    Examples:
      $ wfctl sandbox users add lee@northwind.test --db sandbox.db --agency "Northwind Staffing" --role admin
      $ wfctl sandbox users add sam@northwind.test --db sandbox.db --agency "Northwind Staffing" --role staff --branch "Leeds Riverside"
      $ printf '%s' "$PASSWORD" | wfctl sandbox users add ci@northwind.test --db sandbox.db --agency "Northwind Staffing" --role manager --password-stdin
    """
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    with _store(_location(db, database)) as store:
        accounts.find_agency(store, agency)  # before the password is asked for
        if any(user["username"] == username.strip().lower() for user in accounts.list_users(store)):
            raise accounts.AccountError(f"a user named {username.strip().lower()!r} already exists", "conflict")
        password = _new_password(app, username, password_stdin)
        user = accounts.add_user(store, username, password, agency=agency, role=role.value, branch=branch)
    output.writer(app).record(user)


@users.command("list")
@takes_output()
def users_list(
    ctx: typer.Context,
    agency: Annotated[str | None, typer.Option("--agency", help="Only the logins of this agency (name or id).",
                                               metavar="<agency>")] = None,
    db: Db = None,
    database: Database = None,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """List the logins of the sandbox (never their passwords).

    Shows each login's user name, role, agency and, for a staff login, its branch; -o json adds the ids.

    Examples:
      $ wfctl sandbox users list --db sandbox.db
      $ wfctl sandbox users list --db sandbox.db --agency "Southgate Recruitment" -o json
    """
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    with _store(_location(db, database)) as store:
        rows = accounts.list_users(store, agency)
    output.writer(app).records(rows, "user", columns=USER_COLUMNS)


@users.command("passwd")
@takes_output()
def users_passwd(
    ctx: typer.Context,
    username: Username,
    password_stdin: PasswordStdin = False,
    db: Db = None,
    database: Database = None,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Set a login's password; its current logins end at once.

    Every token of the user is revoked, on every running server of the database: each device logs
    in again with the new password.

    Examples:
      $ wfctl sandbox users passwd staff@northwind.test --db sandbox.db
      $ printf '%s' "$PASSWORD" | wfctl sandbox users passwd lee@northwind.test --db sandbox.db --password-stdin
    """
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    location = _location(db, database)
    with _store(location) as store:
        _require_user(store, username)  # before the password is asked for
        password = _new_password(app, username, password_stdin)
        revoked = accounts.set_password(store, username, password)
    _done(app, output, f"password of {username.strip().lower()} changed; {_logins(revoked)} revoked")


@users.command("remove")
@takes_output()
def users_remove(
    ctx: typer.Context,
    username: Username,
    yes: Yes = False,
    db: Db = None,
    database: Database = None,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Remove a login; its current logins end at once.

    Asks for confirmation on a terminal; elsewhere --yes is required. The user's tokens are deleted
    with it, so a running server refuses them at once; the user name may be added again later.

    Examples:
      $ wfctl sandbox users remove staff@northwind.test --db sandbox.db
      $ wfctl sandbox users remove staff@northwind.test --db sandbox.db --yes
    """
    from wfctl.drivers.prompts import confirm
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    location = _location(db, database)
    name = username.strip().lower()
    if not yes and not app.io.can_prompt:
        raise CliError(f"refusing to remove user {name} without confirmation: no terminal to ask on; pass --yes")
    with _store(location) as store:
        user = _require_user(store, username)
        if not yes and not confirm(f"Remove user {name} ({user['role']} of {user['agency']})? "
                                   "Their logins end at once. [y/N]: "):
            app.io.write_err("Not removed.\n")
            raise typer.Exit(int(ExitCode.USAGE))
        revoked = accounts.remove_user(store, username)
    _done(app, output, f"user {name} removed; {_logins(revoked)} revoked")


@agencies.command("add")
@takes_output()
def agencies_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The agency's name.", metavar="<name>", show_default=False)],
    email: Annotated[str, typer.Option("--email", help="The agency's e-mail address.", metavar="<email>")] = "",
    phone: Annotated[str, typer.Option("--phone", help="The agency's phone number.", metavar="<phone>")] = "",
    db: Db = None,
    database: Database = None,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Add an agency (a tenant with its own branches, clients, sites and logins).

    Its calendar and holiday years start on 1 January; an admin of it can change them with
    `wfctl agency update`. Add its first login with `wfctl sandbox users add`.

    Examples:
      $ wfctl sandbox agencies add "Eastfield Staffing" --db sandbox.db
      $ wfctl sandbox agencies add "Westfield Staffing" --db sandbox.db --email office@westfield.test
    """
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    with _store(_location(db, database)) as store:
        agency = accounts.add_agency(store, name, email=email, phone=phone)
    output.writer(app).record(agency)


@agencies.command("list")
@takes_output()
def agencies_list(ctx: typer.Context, db: Db = None, database: Database = None,
                  output: OutputOptions = AS_CONFIGURED) -> None:
    """List the agencies of the sandbox, with how many logins each has.

    Shows each agency's id, name, e-mail address and phone number; an id or a name is what
    `wfctl sandbox users add --agency` takes.

    Examples:
      $ wfctl sandbox agencies list --db sandbox.db
      $ wfctl sandbox agencies list --database sqlite:///sandbox.db -o json
    """
    from wfctl.sandbox import accounts

    app = app_context(ctx)
    with _store(_location(db, database)) as store:
        rows = accounts.list_agencies(store)
    output.writer(app).records(rows, "agency", columns=AGENCY_COLUMNS)


# ---- private helpers --------------------------------------------------------------------------

_EXIT_BY_KIND = {"not_found": ExitCode.NOT_FOUND, "conflict": ExitCode.CONFLICT, "invalid": ExitCode.USAGE}


def _location(db: str | None, database: str | None) -> str:
    """The --database value the options name (a --db file is one too)."""
    import os

    if db is not None and database is not None:
        raise CliError("--db and --database name the same thing: give one of them")
    if db is None and database is None:
        raise CliError("which sandbox? pass --db <file> (or --database <url>) as given to `wfctl sandbox serve`")
    location = db if db is not None else str(database)
    path = location.removeprefix("sqlite:///") if location.startswith("sqlite:///") else None
    if db is not None or path is not None:
        path = path if path is not None else location
        if not os.path.isfile(path):  # never create a database here: a typo would make an empty one
            option = "--db" if db is not None else "--database"
            raise CliError(f"{option} {location}: no such file; `wfctl sandbox serve --db {path}` creates it")
    return location


@contextmanager
def _store(location: str) -> Iterator[Store]:
    """The open database; its refusals (an unknown user, a duplicate name) become one line and an exit code."""
    import importlib.util

    if importlib.util.find_spec("starlette") is None:  # the sandbox's modules need the extra
        raise CliError(INSTALL_HINT)
    from wfctl.sandbox.accounts import AccountError
    from wfctl.sandbox.store import StoreError, open_store

    try:
        store = open_store(location)
    except StoreError as exc:
        raise CliError(str(exc)) from None
    try:
        yield store
    except AccountError as exc:
        raise CliError(str(exc), _EXIT_BY_KIND[exc.kind]) from None
    finally:
        store.close()


def _require_user(store: Store, username: str) -> dict[str, str]:
    from wfctl.sandbox.accounts import AccountError, list_users

    name = username.strip().lower()
    found = next((user for user in list_users(store) if user["username"] == name), None)
    if found is None:
        raise AccountError(f"no user named {name!r}", "not_found")
    return found


def _new_password(app: AppContext, username: str, password_stdin: bool) -> str:
    """A new password: from stdin, or asked twice without echo on a terminal (never from argv)."""
    if password_stdin:
        from wfctl.commands.auth.login import _read_password_stdin

        password = _read_password_stdin()
    else:
        if not app.io.can_prompt:
            raise CliError("no password: pipe it to --password-stdin, or run this on a terminal")
        from wfctl.drivers.prompts import ask_secret

        password = ask_secret(f"New password for {username.strip().lower()}", repeat="Repeat the password")
    if not password:
        raise CliError("the password is empty")
    return password


def _done(app: AppContext, output: OutputOptions, message: str) -> None:
    output.writer(app).result({"status": "success", "message": message})


def _logins(count: int) -> str:
    return f"{count} login{'s' if count != 1 else ''}"
