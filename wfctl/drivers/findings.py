"""What the commands whose exit 1 means "something was found" share (`diff`: drift; `audit`: findings)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode


@contextlib.contextmanager
def one_means_found() -> Iterator[None]:
    """A 5xx or an unexpected error inside is exit 2 with its one line, never 1: a CI job reads 1 as "found"."""
    try:
        yield
    except CliError:
        raise
    except Exception as exc:
        from wfctl.errors import exit_code_for, message_for

        if exit_code_for(exc) == ExitCode.FAILURE:
            raise CliError(message_for(exc), ExitCode.USAGE) from None
        raise
