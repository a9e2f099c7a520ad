"""Text that came from the service or a file, made safe to show a person.

Everything such text passes through before a human-readable output (tables, `get` sections, error
lines, notes, progress) so that a hostile record cannot drive the terminal: C0 and C1 control
characters (ESC, BEL, CSI, ...) and DEL are shown escaped as `\\x1b`, and the bidirectional embedding,
override and isolate characters (U+202A-U+202E, U+2066-U+2069), which reorder what a terminal shows
after them (an id or a name read backwards, "Trojan Source"), as `\\u202e`. Rich markup is never applied
to such text: the output module hands Rich `Text` objects, never strings, for anything from outside.

Standard library only and cheap to import: the error boundary uses it on every failed run.
"""

from __future__ import annotations

import re

#: C0 controls, DEL and C1 controls: the characters a terminal may act on instead of showing; and the
#: bidirectional embeddings, overrides and isolates, which make it show what follows in another order.
_BIDI = "\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_LINE_BREAK = re.compile("\r?\n")
_LAYOUT = re.compile("\r\n|[\t\n\r\u2028\u2029]")


def plain(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control character shown as `\\xNN`; with `keep_newlines`, a block of text:
    line breaks (`\\n`, `\\r\\n`) and tabs are kept."""
    if keep_newlines:
        return "\n".join("\t".join(map(plain, line.split("\t"))) for line in _LINE_BREAK.split(text))
    if _CONTROL.search(text) is None:  # the common case: nothing to replace, no new string
        return text
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """`text` for a table cell or an error line: each line break or tab becomes a space, other controls
    are escaped (a cell or a line cannot hold a line break). Runs of spaces are kept: `North  Yard`
    and `North Yard` are different names."""
    return plain(_LAYOUT.sub(" ", text))


def quoted(text: str) -> str:
    """`text` in quotes for a message (`'東京 Warehouse'`), shown as its characters, not escaped as
    repr() escapes what it deems unprintable (`'æ\\uf19d±äº¬'`); one line, controls escaped (one_line)."""
    return f"'{one_line(text)}'"


def json_text(text: str) -> str:
    """Encoded JSON with DEL, C1 controls and the bidirectional controls written as `\\uNNNN` (json writes C0
    escaped already but leaves these raw when ensure_ascii is off). Only valid for JSON text: they can only
    occur in strings."""
    if (text.isascii() and "\x7f" not in text) or _C1.search(text) is None:  # isascii: a flag, no scan
        return text
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_C1 = re.compile(f"[\x7f-\x9f{_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
