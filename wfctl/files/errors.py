"""The errors of bulk's files and runs: one line a person can act on, and the exit code it ends with.

bulk knows nothing of the CLI: it raises these, and the CLI's error boundary (`wfctl/errors.py`) shows
`message` as `error: <message>` (the JSON error's title is `title`) and exits with `exit_code`, as it
does for a CliError."""

from __future__ import annotations

from wfctl.exit_codes import ExitCode


class BulkError(Exception):
    """A problem of a bulk file or run found on this side; the exit code defaults to 2 (bad usage or input)."""

    def __init__(self, message: str, exit_code: int = ExitCode.USAGE, *, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = int(exit_code)
        self.title = title or message


class FileError(BulkError):
    """A file that cannot be read (the input: CSV or workbook) or written (a report, an export)."""


class RunNotFound(BulkError):
    """No run (exit 4), or several (exit 2), go by the id given."""
