"""Errors raised by the HTTP layer. No CLI concepts here: the CLI maps these to exit codes."""

from __future__ import annotations


class ApiError(Exception):
    """Base of every error the SDK raises.

    `status` is the HTTP status when the service answered, else None. `title` is a short
    cause, `detail` a longer explanation, `errors` a field -> messages map (400/422).
    The string form is one line, never contains a secret. `replayed`: the service answered with the
    stored answer of an earlier request with the same Idempotency-Key (G20), not afresh.
    """

    replayed = False

    def __init__(
        self,
        title: str,
        *,
        status: int | None = None,
        detail: str | None = None,
        errors: dict[str, list[str]] | None = None,
    ) -> None:
        self.title = title
        self.status = status
        self.detail = detail
        self.errors = errors or {}
        super().__init__(self.one_line())

    def one_line(self) -> str:
        parts = [self.title]
        if self.detail and self.detail != self.title:
            parts.append(self.detail)
        for field, messages in self.errors.items():
            parts.append(f"{field}: {'; '.join(messages)}")
        text = ": ".join(parts[:2]) + ("; " + "; ".join(parts[2:]) if len(parts) > 2 else "")
        if self.status is not None:
            text = f"{text} (HTTP {self.status})"
        return " ".join(text.split())


class NotLoggedIn(ApiError):
    """No credentials, or the login can no longer be refreshed: the user must log in again."""


class Forbidden(ApiError):
    """403: authenticated, but the role does not allow this."""


class NotFound(ApiError):
    """404."""


class Conflict(ApiError):
    """409: a uniqueness rule or dependent records prevent the change."""


class ValidationFailed(ApiError):
    """400/422: the service rejected the request's content."""


class InvalidId(ValidationFailed, ValueError):
    """Refused before sending: an id that is not one path segment (empty, `.` or `..`)."""


class ServerError(ApiError):
    """5xx (after retries), or any other unexpected status."""


class NetworkError(ApiError):
    """Connection failure or timeout after retries; status is None."""


class Interrupted(ApiError):
    """A wait before sending again (a Retry-After, a backoff) was ended because the caller is stopping
    (`Client.interrupt_waits`): the request was not sent again."""


class CertificateError(NetworkError):
    """The service's TLS certificate could not be verified against the trusted CAs (see wfctl.api.net.tls)."""


class CaBundleError(ApiError):
    """Refused before sending: the configured CA bundle cannot be used (missing, unreadable, not PEM)."""


class InsecureTransport(ApiError):
    """Refused before sending: a token would travel over plain http to a non-loopback host (G19)."""


class ForeignOrigin(ApiError):
    """Refused: a redirect or nextPage pointed at another origin; no token was sent there (G8)."""


class PaginationError(ApiError):
    """The service's pagination links loop or cannot be followed."""


class ListingUntrue(PaginationError):
    """A listing read to decide deletes is not the whole truth of its scope: it gave fewer or more records
    than its own count, or held records of another parent (wfctl.api.records.listcheck). Nothing may be deleted
    on its word."""


class CredentialStoreError(ApiError):
    """The keyring or token file cannot be used (locked, missing, timed out, silently dropping writes)."""
