"""CliError: a problem found on this side, with its one-line message and exit code.

The bottom of the CLI, beside `wfctl.exit_codes`: config, factory, output and the commands raise it
without importing the error boundary (`wfctl.errors`, which turns every exception into a message and an
exit code, and reads the profile and the config file to word them). `wfctl.errors` re-exports it.
"""

from __future__ import annotations

from typing import Any

from wfctl.exit_codes import ExitCode


class CliError(Exception):
    """A problem found on this side before (or instead of) asking the service.

    The message is one line a person can act on; the exit code defaults to 2 (bad usage or input).
    `errors` is a field -> messages map, or a stopped import's row problems (row, line, column, message).
    `code` names it in a JSON error instead of its exit code's name; `reported`: its words are already on
    stderr (a jq filter's own messages), so only the exit code remains to give.
    """

    code: str | None = None
    reported: bool = False

    def __init__(
        self,
        message: str,
        exit_code: int = ExitCode.USAGE,
        *,
        title: str | None = None,
        errors: dict[str, list[str]] | list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = int(exit_code)
        self.title = title or message
        self.errors = errors or {}


class Declined(CliError):
    """The person answered no to a question (its words, said already): no `error:` line, exit 2 (as gh)."""

    reported = True
