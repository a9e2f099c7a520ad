"""The one place where exceptions become a one-line message and an exit code.

Commands never catch HTTP errors themselves; they raise, and `wfctl.main` calls `report`.
"""

from __future__ import annotations

import json
from typing import IO, Any

from wfctl.api import errors as api_errors
from wfctl.exit_codes import ExitCode
from wfctl.safetext import one_line


class CliError(Exception):
    """A problem found on this side before (or instead of) asking the service.

    The message is one line a person can act on; the exit code defaults to 2 (bad usage or input).
    """

    def __init__(
        self,
        message: str,
        exit_code: int = ExitCode.USAGE,
        *,
        title: str | None = None,
        errors: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = int(exit_code)
        self.title = title or message
        self.errors = errors or {}


_EXIT_BY_ERROR: list[tuple[type[api_errors.ApiError], ExitCode]] = [
    (api_errors.InvalidId, ExitCode.USAGE),  # before ValidationFailed, its base: refused before sending
    (api_errors.NotLoggedIn, ExitCode.AUTH),
    (api_errors.Forbidden, ExitCode.FORBIDDEN),
    (api_errors.NotFound, ExitCode.NOT_FOUND),
    (api_errors.Conflict, ExitCode.CONFLICT),
    (api_errors.ValidationFailed, ExitCode.INVALID),
    (api_errors.NetworkError, ExitCode.NETWORK),
    (api_errors.InsecureTransport, ExitCode.USAGE),
    (api_errors.CredentialStoreError, ExitCode.AUTH),
    (api_errors.ServerError, ExitCode.FAILURE),
]


def exit_code_for(exc: BaseException) -> int:
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


def _local_write_error(exc: BaseException) -> bool:
    if not isinstance(exc, OSError):
        return False
    from wfctl.fsutil import LocalWriteError

    return isinstance(exc, LocalWriteError)


def message_for(exc: BaseException) -> str:
    """One line, no traceback, no secret."""
    if isinstance(exc, CliError):
        return exc.message
    if isinstance(exc, api_errors.Forbidden):
        return f"not allowed for your role: {exc.one_line()}"
    if isinstance(exc, api_errors.NotLoggedIn):
        text = exc.one_line()
        return text if "wfctl login" in text else f"{text}; run `wfctl login`"
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
    """The JSON error object printed on stderr with -o json/jsonl."""
    if isinstance(exc, api_errors.ApiError):
        status, title, detail, errors = exc.status, exc.title, exc.detail, exc.errors
        if isinstance(exc, api_errors.NotLoggedIn):
            detail = message_for(exc)
    elif isinstance(exc, CliError):
        status, title, detail, errors = None, exc.title, exc.message, exc.errors
    else:
        status, title, detail, errors = None, exc.__class__.__name__, message_for(exc), {}
    return {"error": {"status": status, "title": title, "detail": detail, "errors": errors}}


def report(exc: BaseException, *, json_mode: bool, stream: IO[str]) -> int:
    """Write the error to `stream` (stderr) and return the exit code."""
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
