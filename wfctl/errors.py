"""The one place where exceptions become a one-line message and an exit code.

Commands never catch HTTP errors themselves; they raise, and `wfctl.cmdline.main` calls `report`. It sits on
top of the CLI's modules, beside `wfctl.cmdline.main`: its messages name the profile of the run (`wfctl.context`)
and the profiles of the config file (`wfctl.config`), so config, factory, output and context never import
it: they raise `wfctl.clierror.CliError`, which this module re-exports.
"""

from __future__ import annotations

import json
from typing import IO, Any

from wfctl.api import errors as api_errors
from wfctl.clierror import CliError as CliError  # raised everywhere; defined below config
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

_EXIT_BY_ERROR: list[tuple[type[api_errors.ApiError], ExitCode]] = [
    (api_errors.InvalidId, ExitCode.USAGE),  # before ValidationFailed, its base: refused before sending
    (api_errors.NotLoggedIn, ExitCode.AUTH),
    (api_errors.Forbidden, ExitCode.FORBIDDEN),
    (api_errors.NotFound, ExitCode.NOT_FOUND),
    (api_errors.Conflict, ExitCode.CONFLICT),
    (api_errors.ValidationFailed, ExitCode.INVALID),
    (api_errors.NetworkError, ExitCode.NETWORK),
    (api_errors.InsecureTransport, ExitCode.USAGE),
    (api_errors.CaBundleError, ExitCode.USAGE),  # a setting that cannot be used, like a bad config value
    (api_errors.CredentialStoreError, ExitCode.AUTH),
    (api_errors.ServerError, ExitCode.FAILURE),
]


def exit_code_for(exc: BaseException) -> int:
    exc = _as_cli_error(exc)
    if isinstance(exc, CliError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    if _local_write_error(exc):
        return ExitCode.LOCAL_FAULT
    for cls, code in _EXIT_BY_ERROR:
        if isinstance(exc, cls):
            return int(code)
    if _bad_input(exc) is not None:
        return int(ExitCode.USAGE)
    return int(ExitCode.FAILURE)


def _as_cli_error(exc: BaseException) -> BaseException:
    """A bulk file's or run's error (wfctl.files.errors) as the CliError of the same message, exit code and title."""
    import sys

    if "wfctl.files.errors" not in sys.modules:  # not imported: none can have been raised
        return exc
    from wfctl.files.errors import BulkError

    return CliError(exc.message, exc.exit_code, title=exc.title) if isinstance(exc, BulkError) else exc


def _local_write_error(exc: BaseException) -> bool:
    if not isinstance(exc, OSError):
        return False
    from wfctl.fsutil import LocalWriteError

    return isinstance(exc, LocalWriteError)


def message_for(exc: BaseException) -> str:
    """One line, no traceback, no secret; a `wfctl ...` command it suggests keeps the profile in use."""
    return keep_profile(_message_for(exc))


def _message_for(exc: BaseException) -> str:
    exc = _as_cli_error(exc)
    if isinstance(exc, CliError):
        return exc.message
    if isinstance(exc, api_errors.Forbidden):
        return f"not allowed for your role: {exc.one_line()}"
    if isinstance(exc, api_errors.NotLoggedIn) and exc.status == 401 and _access_token_set():
        # the token refused is the one given for this run, not the profile's login: `wfctl login` would not help
        return (f"the service refused the token in WFCTL_ACCESS_TOKEN: {exc.one_line()}; set a fresh one "
                "(`wfctl auth token` prints one where wfctl is logged in), or unset WFCTL_ACCESS_TOKEN to use "
                "the profile's login")
    if isinstance(exc, api_errors.NotLoggedIn):
        missing = _missing_profile()
        if missing:
            return missing
        text = exc.one_line()
        if "wfctl login" in text or not getattr(exc, "login_helps", True):  # a credential process's own failure
            return text
        return f"{text}; run `wfctl login`"
    if isinstance(exc, api_errors.CertificateError):
        return (f"{exc.one_line()}; if the service uses a private CA, pass --ca-bundle <file> "
                "(or set ca_bundle in the profile, or WFCTL_CA_BUNDLE)")
    if isinstance(exc, api_errors.NetworkError) and _plain_http_answer(exc):
        return _plain_http_answer(exc) or ""
    if isinstance(exc, api_errors.NetworkError) and _refused(exc):
        return f"{exc.one_line()}; is the service running there? `wfctl doctor` checks the profile's setup"
    if isinstance(exc, api_errors.ApiError):
        return exc.one_line()
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if _local_write_error(exc):
        return str(exc)
    text = " ".join(str(exc).split()) or exc.__class__.__name__
    bad_input = _bad_input(exc)
    if bad_input is not None:
        return f"{bad_input}: {text}"
    return f"unexpected error: {exc.__class__.__name__}: {text}"


def envelope_for(exc: BaseException) -> dict[str, Any]:
    """The JSON error object printed on stderr with -o json/jsonl: always the same keys.

    `status` is the HTTP status of the service's answer, or null for an error found on this side (no
    answer, or none asked for); `code` names a local error (the name of its exit code: "usage", "auth",
    "network", ...; stable, see `wfctl help exit-codes`), null for the service's answer. `detail` is null
    when it would only repeat `title`; `errors` is a field -> messages map ({} when none), or a stopped
    import's row problems: a list of {row, line, column, message}."""
    status: int | None = None
    code: str | None = None
    errors: dict[str, list[str]] | list[dict[str, Any]]
    exc = _as_cli_error(exc)
    if isinstance(exc, api_errors.ApiError):
        title, detail, errors = keep_profile(exc.title), exc.detail, exc.errors
        if isinstance(exc, api_errors.NotLoggedIn):
            detail = message_for(exc)
            if _missing_profile():
                title = "unknown profile"
        elif isinstance(exc, api_errors.CertificateError) or _plain_http_answer(exc) or _refused(exc):
            detail = message_for(exc)  # with the way out (--ca-bundle, http://)
        elif detail:
            detail = keep_profile(detail)
        status = exc.status
        if status is None:
            code = _code(exc)
    elif isinstance(exc, CliError):
        title, detail, errors = exc.title, message_for(exc), exc.errors
        code = _code(exc)
    else:
        title, detail, errors = exc.__class__.__name__, message_for(exc), {}
        code = _code(exc)
    return {"error": {"status": status, "code": code, "title": title,
                      "detail": detail if detail and detail != title else None, "errors": errors or {}}}


def usage_envelope(message: str, usage: str | None) -> dict[str, Any]:
    """The JSON error of a usage error found while the command line is parsed (click's): the same keys."""
    return {"error": {"status": None, "code": ExitCode.USAGE.name.lower(), "title": message,
                      "detail": usage, "errors": {}}}


def _code(exc: BaseException) -> str:
    """The exit code's name, as a JSON error's code: "usage", "auth", "not_found", "local_fault", ...; or
    the error's own (`CliError.code`: "jq" for a filter that failed on the data)."""
    if isinstance(exc, CliError) and exc.code:
        return exc.code
    code = exit_code_for(exc)
    try:
        return ExitCode(code).name.lower()
    except ValueError:
        return str(code)


def _access_token_set() -> bool:
    import os

    return bool(os.environ.get("WFCTL_ACCESS_TOKEN", "").strip())


def _plain_http_answer(exc: BaseException) -> str | None:
    """The message when an https:// service answered in plain http (OpenSSL's WRONG_VERSION_NUMBER: the
    first bytes of the answer were not TLS), or None: the way out is the URL's scheme or port."""
    if not isinstance(exc, api_errors.NetworkError) or "WRONG_VERSION_NUMBER" not in (exc.detail or ""):
        return None
    import re

    match = re.match(r"cannot reach (https://\S+)$", exc.title)
    if match is None:
        return None
    url = match.group(1)
    return (f"{url} answered in plain http, not https (TLS); if it serves http (a local sandbox does), "
            f"use --base-url http://{url[len('https://'):]}, else check the port")


def _refused(exc: BaseException) -> bool:
    """Whether nothing listened at the service's address (a refused connection): the way out is the service
    or the profile's base URL, which `wfctl doctor` checks."""
    return (isinstance(exc, api_errors.NetworkError) and not isinstance(exc, api_errors.CertificateError)
            and "connection refused" in (exc.detail or "").lower())


def keep_profile(text: str) -> str:
    """`wfctl login` -> `wfctl -p mgr login` when the run names a profile (-p or WFCTL_PROFILE): the
    suggested command then acts on the same profile, not on the default one."""
    profile = _named_profile()
    if not profile or "`wfctl " not in text:
        return text
    import re
    import shlex

    return re.sub(r"`wfctl (?!-p |--profile )", lambda _: f"`wfctl -p {shlex.quote(profile)} ", text)


def _named_profile() -> str | None:
    from wfctl import context

    ctx = context.current()
    return ctx.options.profile if ctx is not None else None


def _missing_profile() -> str | None:
    """The message for a profile named (-p/WFCTL_PROFILE) but not in the config file."""
    profile = _named_profile()
    if not profile:
        return None
    try:
        return unknown_profile_message(profile)
    except CliError:  # an unreadable config: the original message stands
        return None


def unknown_profile_message(profile: str) -> str | None:
    """"no profile 'slwo' (profiles: default, mgr); ..." for a profile named (-p/WFCTL_PROFILE) that the
    config file does not have (also before there is any: "no profiles yet"); None when it has it, or for
    the default profile, which needs no entry of its own."""
    from wfctl.config import DEFAULT_PROFILE, missing_profile_message, profile_names, read_document

    message = missing_profile_message(profile)
    if message or profile == DEFAULT_PROFILE:
        return message
    import shlex

    if profile_names(read_document()):
        return None
    return (f"no profile {profile!r} (no profiles yet); "
            f"to create it, run `wfctl -p {shlex.quote(profile)} login --base-url <url>`")


def report(exc: BaseException, *, json_mode: bool, stream: IO[str]) -> int:
    """Write the error to `stream` (stderr) and return the exit code."""
    if isinstance(exc, CliError) and exc.reported:
        return exit_code_for(exc)
    if json_mode:
        stream.write(json.dumps(envelope_for(exc)) + "\n")  # json escapes every control character
    else:
        stream.write(f"error: {one_line(message_for(exc))}\n")
    stream.flush()
    return exit_code_for(exc)


def _bad_input(exc: BaseException) -> str | None:
    """What was wrong, when `exc` can only come from input taken as given: a URL that httpx cannot
    parse (a base URL or a path; the commands check what they can first, with a better message)."""
    import sys

    httpx = sys.modules.get("httpx")  # not imported: its errors cannot have been raised
    if httpx is not None and isinstance(exc, httpx.InvalidURL):
        return "invalid URL"
    return None
