"""Redaction of secrets in anything that may be shown: verbose logs, error text.

Two nets: field names that carry secrets (Authorization, *token*, *password*, *secret*) and the
exact values of the secrets this process has seen (registered by the auth flow and login), so a
token echoed in an unexpected place is still masked.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

MASK = "***"

_SECRET_KEY = re.compile(r"token|password|passwd|secret|authorization|cookie|api[-_]?key", re.IGNORECASE)
# "accessToken": "abc"  /  password=abc  (JSON-ish or form-ish text that is not valid JSON)
_SECRET_PAIR = re.compile(
    r"""(?P<key>["']?[\w-]*(?:token|password|passwd|secret)[\w-]*["']?\s*[:=]\s*)(?P<q>["']?)(?P<val>[^"'&,\s}]+)""",
    re.IGNORECASE,
)
_BEARER = re.compile(r"(Bearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)

_known: set[str] = set()
_known_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a secret value so that `redact_text` masks it wherever it appears."""
    if value and len(value) >= 4:
        with _known_lock:
            _known.add(value)


def forget_secrets() -> None:
    """Forget every remembered secret (a long-lived process that serves several logins in turn)."""
    with _known_lock:
        _known.clear()


def is_secret_key(name: str) -> bool:
    return bool(_SECRET_KEY.search(name))


def redact_text(text: str) -> str:
    """Mask known secret values, Bearer credentials and `key: value` pairs with secret-looking keys."""
    with _known_lock:
        known = sorted(_known, key=len, reverse=True)
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _SECRET_PAIR.sub(lambda m: m.group("key") + m.group("q") + MASK, text)


def redact_headers(headers: Any) -> list[tuple[str, str]]:
    out = []
    raw = getattr(headers, "raw", None)  # httpx.Headers: the names as sent, not lower-cased
    items = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw] if raw is not None else headers.items()
    for name, value in items:
        out.append((name, MASK if is_secret_key(name) else redact_text(value)))
    return out


def redact_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (MASK if is_secret_key(str(k)) and v not in (None, "") else redact_json(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def redact_body(content: bytes, content_type: str = "", limit: int = 4000) -> str:
    """A body as one loggable string: JSON re-serialised with secret fields masked; other text masked
    by pattern; binary summarised."""
    if not content:
        return ""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(content)} bytes of binary data>"
    if "json" in content_type or text.lstrip()[:1] in ("{", "["):
        try:
            text = json.dumps(redact_json(json.loads(text)), ensure_ascii=False)
        except ValueError:
            text = redact_text(text)
    else:
        text = redact_text(text)
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    return text
