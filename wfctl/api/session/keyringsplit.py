"""A value too long for one keyring entry, kept as several entries that are written, read and removed as one.

A login's pair is one JSON document (wfctl.api.session.tokenpair). With JWT tokens it is several KB, and Windows
Credential Manager keeps at most 2,560 bytes of UTF-16 per entry (CRED_MAX_CREDENTIAL_BLOB_SIZE: 1,280
characters); other CLIs fail there ("The stub received bad data", jaraco/keyring #355, #540). The refresh
token is what must survive, and it may itself be a JWT, so keeping the access token apart is not enough:
the whole document is split.

How a split value is kept, in the entries `<entry>` and `<entry>#<generation>.<index>` of the service:

- the parts, `<entry>#<g>.0`, `<entry>#<g>.1`, ... each within the limit, are written first;
- then `<entry>` itself: a small manifest naming the generation, the number of parts, the length and the
  SHA-256 of the whole. It is written LAST, so until it is, a reader finds the previous value (its
  manifest and its parts, untouched) or nothing: a crash between two entries is never read as a token;
- then the previous generation's parts are removed (and any left by a write that crashed).

A reader takes the manifest, its parts, and checks the length and checksum; a part missing or changed
(a writer replaced the value meanwhile) makes it read the manifest again. A value that fits is one entry,
as before (what earlier versions read). Writes happen under the login's lock (wfctl.api.session.store), so
there is one writer at a time; readers take no lock.

The limit of an entry is known for Windows (below); a backend wfctl knows no limit of that refuses a long
value is asked again with the value split at Windows' size, and a refusal of that is one line naming the
limit and the way out (`CredentialStoreError`), never the backend's own text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from wfctl.api.errors import CredentialStoreError

#: Windows Credential Manager: CRED_MAX_CREDENTIAL_BLOB_SIZE, in bytes of UTF-16 (2 per character here)
WINDOWS_BLOB_BYTES = 2560
#: the size a value is split at for a backend that refused it whole and has no known limit
FALLBACK_UNITS = WINDOWS_BLOB_BYTES // 2
_MANIFEST_KIND = "wfctl-split"
_READ_TRIES = 3


class Damaged(Exception):
    """The manifest names parts that are not there or do not add up (after reading it again)."""


@dataclass(frozen=True)
class Manifest:
    generation: int
    parts: int
    length: int
    sha256: str

    def to_text(self) -> str:
        return json.dumps({"kind": _MANIFEST_KIND, "generation": self.generation, "parts": self.parts,
                           "length": self.length, "sha256": self.sha256}, separators=(",", ":"))

    @classmethod
    def of(cls, text: str | None) -> Manifest | None:
        """The manifest `text` is, or None for anything else (a whole value, or nothing)."""
        if not text or not text.startswith("{") or _MANIFEST_KIND not in text[:40]:
            return None
        try:
            data = json.loads(text)
            if data.get("kind") != _MANIFEST_KIND:
                return None
            return cls(int(data["generation"]), int(data["parts"]), int(data["length"]), str(data["sha256"]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def entry_limit(backend: Any) -> int | None:
    """How many UTF-16 code units one entry of `backend` holds, when wfctl knows (Windows), else None."""
    module = type(backend).__module__
    if module.startswith("keyring.backends.Windows"):
        return WINDOWS_BLOB_BYTES // 2
    return None


def part_name(entry: str, generation: int, index: int) -> str:
    return f"{entry}#{generation}.{index}"


def read(backend: Any, service: str, entry: str) -> str | None:
    """The value kept in `entry`, put together again when it is split; None when there is none."""
    text = backend.get_password(service, entry)
    for _ in range(_READ_TRIES):
        manifest = Manifest.of(text)
        if manifest is None:
            return text
        value = _joined(backend, service, entry, manifest)
        if value is not None:
            return value
        again = backend.get_password(service, entry)
        if again == text:
            break  # the same manifest, and its parts do not add up: not a writer at work
        text = again
    raise Damaged(entry)


def write(backend: Any, service: str, entry: str, text: str, *, label: str) -> int:
    """Keep `text` in `entry` (split when it does not fit one); returns the number of entries it took.
    CredentialStoreError (one line: the limit, the way out) when the backend refuses."""
    previous = Manifest.of(backend.get_password(service, entry))
    known = limit = entry_limit(backend)
    size = _units(text)
    if limit is None or size <= limit:
        try:
            backend.set_password(service, entry, text)
        except Exception:
            if size <= FALLBACK_UNITS:
                raise CredentialStoreError(refused_message(label, size, limit)) from None
            limit = FALLBACK_UNITS  # a limit wfctl did not know: split at the smallest one it knows
        else:
            if previous is not None:
                _remove_parts(backend, service, entry, previous.generation, previous.parts)
            return 1
    generation = previous.generation + 1 if previous is not None else 1
    chunks = _chunks(text, limit)
    for index, chunk in enumerate(chunks):
        try:
            backend.set_password(service, part_name(entry, generation, index), chunk)
        except Exception:
            raise CredentialStoreError(refused_message(label, _units(chunk), known)) from None
    _remove_parts(backend, service, entry, generation, None, start=len(chunks))  # a crashed write's extra parts
    manifest = Manifest(generation, len(chunks), len(text), _digest(text))
    backend.set_password(service, entry, manifest.to_text())  # last: now the new value is the one read
    if previous is not None:
        _remove_parts(backend, service, entry, previous.generation, previous.parts)
        _remove_parts(backend, service, entry, previous.generation - 1, None)  # a crash after its manifest
    return len(chunks) + 1


def remove(backend: Any, service: str, entry: str) -> bool:
    """Remove `entry` and, when it is split, its parts (the manifest first: nothing is read after it)."""
    import keyring.errors

    text = backend.get_password(service, entry)
    if text is None:
        return False
    manifest = Manifest.of(text)
    try:
        backend.delete_password(service, entry)
    except keyring.errors.PasswordDeleteError:
        return False
    if manifest is not None:
        _remove_parts(backend, service, entry, manifest.generation, manifest.parts)
        _remove_parts(backend, service, entry, manifest.generation + 1, None)  # a write that crashed
    return True


def refused_message(label: str, units: int, limit: int | None) -> str:
    """The one line for a write the backend refused: which limit, and what to do."""
    known = (f"it keeps at most {limit * 2:,} bytes of UTF-16 ({limit:,} characters) per entry"
             if limit is not None else "wfctl knows no limit of it, and it refused the value split into entries "
             f"of {FALLBACK_UNITS:,} characters, Windows Credential Manager's limit")
    return (f"{label} refused an entry of {units:,} characters ({known}); run `wfctl login --credential-store "
            "file` to keep the tokens in an owner-only file instead")


# ---- private helpers --------------------------------------------------------------------------


def _joined(backend: Any, service: str, entry: str, manifest: Manifest) -> str | None:
    parts = []
    for index in range(manifest.parts):
        part = backend.get_password(service, part_name(entry, manifest.generation, index))
        if part is None:
            return None
        parts.append(part)
    value = "".join(parts)
    if len(value) != manifest.length or _digest(value) != manifest.sha256:
        return None
    return value


def _remove_parts(backend: Any, service: str, entry: str, generation: int, count: int | None, *,
                  start: int = 0) -> None:
    """Remove parts `start`.. of `generation`: `count` of them, or (None) as long as there are any."""
    import keyring.errors

    if generation < 1:
        return
    index = start
    while count is None or index < count:
        name = part_name(entry, generation, index)
        if count is None and backend.get_password(service, name) is None:
            return  # the end of what a crashed write left
        with contextlib.suppress(keyring.errors.PasswordDeleteError):
            backend.delete_password(service, name)
        index += 1


def _chunks(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` UTF-16 code units (a pair's JSON is ASCII: one unit a character)."""
    chunks: list[str] = []
    piece: list[str] = []
    size = 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if size + width > limit:
            chunks.append("".join(piece))
            piece, size = [], 0
        piece.append(char)
        size += width
    if piece:
        chunks.append("".join(piece))
    return chunks


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
