"""wfctl login: sign in and keep the token pair in the profile's credential store."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from wfctl.commands.options import app_context
from wfctl.render.streams import IO

if TYPE_CHECKING:
    from wfctl.config import Settings

LOGIN_PANEL = "Login"
PASSWORD_TRIES = 3  # a password typed at the prompt: asked again after a refusal, as ssh and sudo do
STORE_PANEL = "Credential store"


class CredentialStore(StrEnum):
    keyring = "keyring"
    file = "file"


def login(
    ctx: typer.Context,
    base_url: Annotated[str | None, typer.Option(
        "--base-url", help="Service URL, e.g. https://wams.example.com (saved in the profile).",
        metavar="<url>", rich_help_panel=LOGIN_PANEL)] = None,
    username: Annotated[str | None, typer.Option(
        "--username", "-u", help="Your user name (asked for on a terminal when left out).",
        metavar="<user>", rich_help_panel=LOGIN_PANEL)] = None,
    password_stdin: Annotated[bool, typer.Option(
        "--password-stdin", help="Read the password from standard input (a password is never taken "
        "from the command line).", rich_help_panel=LOGIN_PANEL)] = False,
    username_field: Annotated[str | None, typer.Option(
        "--username-field", help="Name of the user field in the login request, e.g. email (saved in the "
        "profile as login_username_field).", metavar="<name>", rich_help_panel=LOGIN_PANEL)] = None,
    credential_store: Annotated[CredentialStore | None, typer.Option(
        "--credential-store", help="Where to keep the tokens: keyring (the default) or file (a 0600 file in "
        "the config directory, for hosts without a keyring). Saved in the profile.",
        rich_help_panel=STORE_PANEL, show_default=False)] = None,
) -> None:
    """Sign in to the service and keep the login for later commands.

    Asks the service for a token pair and keeps it in the OS keyring, or in a 0600 file with
    --credential-store file. The service URL, user name and store are saved in the profile
    (--profile). Later commands refresh the access token automatically. What is not given is asked
    for on a terminal (the password hidden, asked again after a refusal: three tries); in a script
    use --password-stdin.

    Examples:
      $ wfctl login --base-url https://wams.example.com
      $ wfctl login --base-url http://127.0.0.1:8000 --username admin@northwind.test
      $ printf '%s' "$PASSWORD" | wfctl login -u <user> --password-stdin
      $ wfctl --profile ci login --credential-store file -u <user> --password-stdin
    """
    from wfctl.api.session.store import TokenPair
    from wfctl.config import normalize_base_url, update_profile
    from wfctl.drivers.prompts import ask, ask_secret
    from wfctl.errors import CliError
    from wfctl.factory import anonymous_client, save_login

    app = app_context(ctx)
    io = app.io
    settings = app.settings
    store_kind = credential_store.value if credential_store else settings.credential_store
    explicit_store = credential_store is not None or settings.source("credential_store") != "default"
    if store_kind == "keyring" and (password_stdin or io.can_prompt):
        # before asking for anything (a prompt, or stdin): a host with no usable keyring hears so, and
        # both ways out, first. Without either, login can only end in a usage error, said as such.
        _check_keyring(settings, explicit_store, url=base_url or settings.base_url,
                       user=username or settings.username, password_stdin=password_stdin)
    url = base_url or settings.base_url
    if not url:
        if not io.can_prompt:
            raise CliError("no service URL: pass --base-url <url> (or set WFCTL_BASE_URL)")
        url = _ask_url()
    url = normalize_base_url(url)
    settings = dataclasses.replace(settings, base_url=url)  # the login's store is keyed by this service
    field = username_field or settings.login_username_field

    if password_stdin and io.stdin_is_tty and io.stderr_is_tty:  # not piped: say what the silence waits for
        app.io.write_err("Reading the password from standard input (shown as typed; end with Enter, then Ctrl-D)...\n")
        sys.stderr.flush()
    password = _read_password_stdin() if password_stdin else None
    user = username or settings.username
    if not user:
        if not io.can_prompt:
            raise CliError("no user name: pass --username <user>")
        user = ask("Username")
    prompted = password is None
    if prompted and not io.can_prompt:
        raise CliError("no password: pipe it to --password-stdin, or run wfctl login on a terminal")

    from wfctl.api.errors import NotFound, NotLoggedIn
    from wfctl.exit_codes import ExitCode

    with anonymous_client(settings, url, verbose=app.options.verbose) as client:
        tries = PASSWORD_TRIES if prompted else 1  # a password from stdin or a script is not asked again
        for attempt in range(1, tries + 1):
            if prompted:
                password = ask_secret(f"Password for {user} at {url}")  # as ssh names them
            if not password:
                raise CliError("the password is empty")
            try:
                answer = client.login(user, password, username_field=field)
                break
            except NotFound as exc:
                raise _not_the_root(exc, url) from None
            except NotLoggedIn as exc:  # one sentence, not the service's title and detail saying it twice
                if attempt < tries:  # as ssh and sudo: the next attempt typed by habit is not the shell's
                    app.io.write_err("Wrong user name or password; try again.\n")
                    sys.stderr.flush()
                    continue
                notes = [f"HTTP {exc.status}"] if exc.status else []
                notes += [f"{tries} tries"] if tries > 1 else []
                raise CliError(f"wrong user name or password for {user} at {url}"
                               + (f" ({'; '.join(notes)})" if notes else ""), ExitCode.AUTH,
                               title="login failed") from None
    pair = TokenPair.from_response(answer, username=user, base_url=url)
    store = save_login(settings, pair, store_kind)
    update_profile(settings.profile, {
        "base_url": url,
        "username": user,
        "credential_store": store_kind if explicit_store or store_kind != "keyring" else None,
        "login_username_field": username_field,
        "ca_bundle": settings.ca_bundle if settings.source("ca_bundle") == "flag" else None,
    })
    io.note(f"Logged in to {url} as {user} (profile {settings.profile!r}); tokens kept in {store.describe()}.")


def _ask_url() -> str:
    """The service URL asked at the terminal: a URL refused (no scheme) is said and asked again, as a wrong
    password is; Ctrl-D ends the login."""
    from wfctl.config import ConfigError, normalize_base_url
    from wfctl.drivers.prompts import ask
    from wfctl.errors import CliError

    while True:
        answer = ask("Service URL")
        if not answer:
            raise CliError("no service URL: pass --base-url <url> (or set WFCTL_BASE_URL)")
        try:
            return normalize_base_url(answer)
        except ConfigError as exc:
            IO.write_err(f"{exc}; try again.\n")
            sys.stderr.flush()


def _not_the_root(exc: Exception, url: str) -> Exception:
    """A login answered 404: where the base URL has a path (`.../api`), the likely cause is that path, since
    the service's own paths start at its root (/identity/login, /api/agency/)."""
    from urllib.parse import urlsplit

    from wfctl.errors import CliError
    from wfctl.exit_codes import ExitCode

    parts = urlsplit(url)
    if parts.path.strip("/"):
        root = f"{parts.scheme}://{parts.netloc}"
        return CliError(f"no login endpoint at {url}/identity/login (HTTP 404); the base URL is the service's "
                        f"root, as its paths start with /identity/ and /api/: try --base-url {root}",
                        ExitCode.NOT_FOUND, title="login failed")
    return exc


def _read_password_stdin() -> str:
    text = sys.stdin.read()
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


def _check_keyring(settings: Settings, explicit: bool, *, url: str | None, user: str | None,
                   password_stdin: bool = False) -> None:
    """Fail before sending the password when the keyring cannot keep the tokens; the login command it
    suggests carries the URL and user name already given, so it can be run as it is."""
    from wfctl.api.errors import CredentialStoreError
    from wfctl.api.session.keyringstore import KeyringStore, no_keyring_message
    from wfctl.factory import store_for_settings

    store = store_for_settings(settings, "keyring")
    assert isinstance(store, KeyringStore)
    try:
        store.check()
    except CredentialStoreError as exc:
        if explicit:
            raise
        command = "wfctl login"
        if url:
            command += f" --base-url {shlex.quote(url)}"
        if user:
            command += f" -u {shlex.quote(user)}"
        if password_stdin:  # the way the password comes stays the script's (it was dropped)
            command += " --password-stdin"
        message = no_keyring_message(exc.title, settings.config_dir)
        raise CredentialStoreError(message.replace("`wfctl login --", f"`{command} --")) from None
