"""Exit codes: part of wfctl's command-line contract (see `wfctl help exit-codes`)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1  # the service failed (5xx) or an unexpected error
    USAGE = 2  # bad usage or input rejected before sending
    AUTH = 3  # not logged in, or the login cannot be refreshed
    NOT_FOUND = 4
    CONFLICT = 5  # 409
    INVALID = 6  # rejected by the service's validation (400/422)
    NETWORK = 7  # network failure or timeout after retries
    FORBIDDEN = 8  # 403
    PARTIAL = 10  # a bulk run where some rows failed (the others were done)
    LOCAL_FAULT = 11  # a local fault (disk full: a journal, config or token file not written): nothing lost, run again
    TOO_MANY_DELETES = 12  # import --prune over --max-deletes/--max-delete-share: nothing was sent
    INTERRUPTED = 130
