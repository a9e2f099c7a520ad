"""From an HTTP answer (or its absence) to what the SDK returns or raises: the decoded body, the ApiError
for a non-2xx answer whatever its body shape (G10), the NetworkError/CertificateError for no answer.

Shared by the Client, its token refresh (wfctl.api.session.auth) and the bulk writer (wfctl.api.net.lean).
"""

from __future__ import annotations

import json as jsonlib
import re
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import (
    ApiError,
    CertificateError,
    Conflict,
    Forbidden,
    NetworkError,
    NotFound,
    NotLoggedIn,
    ServerError,
    ValidationFailed,
)

if TYPE_CHECKING:
    import httpx

USER_AGENT = "wfctl"
#: The largest error body read as JSON (problem details, G10); a larger one is shown as text.
ERROR_JSON_MAX = 1024 * 1024


def decode_body(response: httpx.Response) -> Any:
    content = response.content
    if not content.strip():
        return None
    return parse_json(content, status=response.status_code)


def parse_json(data: bytes, *, status: int | None = None) -> Any:
    """A 2xx answer's body as JSON, or ServerError: what json.loads takes that is not JSON (NaN,
    Infinity: `-o json` would print them, invalid to every other reader), and a document nested deeper
    than Python can walk (RecursionError), end as one line like any other body that is not JSON. An answer
    whose records are more than the process can hold once decoded (wfctl.api.net.limits.decoding) is refused
    before it is decoded."""
    from wfctl.api.net.limits import AnswerTooLarge, decoding

    try:
        with decoding(data):
            return _DECODER.decode(data.decode(jsonlib.detect_encoding(data), "surrogatepass"))
    except AnswerTooLarge as exc:
        raise ServerError("the service's answer holds more than wfctl can hold at once", status=status,
                          detail=str(exc)) from None
    except RecursionError:
        raise ServerError("the service answered with JSON nested too deep to read", status=status) from None
    except ValueError as exc:
        text = data[:400].decode("utf-8", "replace")
        detail = str(exc) if isinstance(exc, _NotJson) else snippet(text)
        raise ServerError("the service answered with something that is not JSON", status=status,
                          detail=detail) from None


class _NotJson(ValueError):
    pass


def _not_a_number(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON number")


_DECODER = jsonlib.JSONDecoder(parse_constant=_not_a_number)  # made once: json.loads(**kw) makes one a call


def error_from_response(response: httpx.Response) -> ApiError:
    """Map a non-2xx answer to an ApiError with a one-line cause, whatever the body shape (G10)."""
    from wfctl.api.net.redact import redact_text

    status = response.status_code
    title, detail, errors = _parse_error_body(response)
    title = redact_text(title or response.reason_phrase or f"HTTP {status}")
    detail = redact_text(detail) if detail else None
    errors = {k: [redact_text(m) for m in v] for k, v in errors.items()}
    cls: type[ApiError]
    if status == 401:
        cls = NotLoggedIn
        if not detail or detail == title:
            detail = "the service did not accept the login"
    elif status == 403:
        cls = Forbidden
    elif status == 404:
        cls = NotFound
    elif status == 409:
        cls = Conflict
    elif status in (400, 422):
        cls = ValidationFailed
    else:
        cls = ServerError
    error = cls(title, status=status, detail=detail, errors=errors)
    error.replayed = response.headers.get("idempotent-replayed", "").lower() == "true"
    return error


def _parse_error_body(response: httpx.Response) -> tuple[str | None, str | None, dict[str, list[str]]]:
    text = response.text if response.content else ""
    ctype = response.headers.get("content-type", "")
    if not text.strip():
        return None, None, {}
    body: Any = None
    # An error's JSON is a few lines: a body of more than ERROR_JSON_MAX (a hostile one of 600,000 records)
    # is shown as the text it starts with, never decoded whole.
    if ("json" in ctype or text.lstrip()[:1] in ("{", "[")) and len(response.content) <= ERROR_JSON_MAX:
        try:
            body = jsonlib.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python can walk: shown as text
            body = None
    if isinstance(body, dict):
        title = _as_text(body.get("title")) or _as_text(body.get("message")) or _as_text(body.get("error"))
        if title is None and isinstance(body.get("error"), dict):
            inner = body["error"]
            title = _as_text(inner.get("message")) or _as_text(inner.get("title"))
        detail = _as_text(body.get("detail")) or (
            _as_text(body.get("message")) if body.get("title") else None)
        errors: dict[str, list[str]] = {}
        raw = body.get("errors")
        if isinstance(raw, dict):
            for name, messages in raw.items():
                if isinstance(messages, list):
                    errors[str(name)] = [_as_text(m) or jsonlib.dumps(m) for m in messages]
                else:
                    errors[str(name)] = [_as_text(messages) or jsonlib.dumps(messages)]
        elif isinstance(raw, list) and raw:
            items = [_as_text(m) or _as_text(m.get("message") if isinstance(m, dict) else None)
                     or jsonlib.dumps(m) for m in raw]
            detail = "; ".join(i for i in items if i)
        return title, detail, errors
    if isinstance(body, list) and body:
        return None, "; ".join(_as_text(m) or jsonlib.dumps(m) for m in body), {}
    if "html" in ctype or text.lstrip().lower().startswith(("<!doctype", "<html")):
        match = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
        stripped = match.group(1) if match else re.sub(r"<[^>]+>", " ", text)
        return None, snippet(stripped) or None, {}
    return None, snippet(text), {}


def _as_text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def network_error(base_url: str, exc: Exception) -> NetworkError:
    """The error for a request that got no answer: CertificateError when the service's certificate is
    not trusted (the way out is a CA setting, not the network), else NetworkError."""
    if _certificate_failure(exc):
        return CertificateError(f"the TLS certificate of {base_url} is not trusted",
                                detail=_transport_reason(exc))
    return NetworkError(f"cannot reach {base_url}", detail=_transport_reason(exc))


def _certificate_failure(exc: BaseException) -> bool:
    import ssl

    seen: BaseException | None = exc
    for _ in range(10):  # the ssl error sits a few causes down (httpx <- httpcore <- ssl)
        if seen is None:
            break
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return "CERTIFICATE_VERIFY_FAILED" in str(exc)


def _transport_reason(exc: Exception) -> str:
    from wfctl.api.net.redact import redact_text

    text = " ".join(str(exc).split()) or type(exc).__name__
    return redact_text(f"{type(exc).__name__}: {text}")[:300]


def user_agent() -> str:
    from wfctl import __version__

    return f"{USER_AGENT}/{__version__}"
