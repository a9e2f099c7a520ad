"""The XML of a workbook's parts read plainly (issue 21 §2, issue 33 §2): the helpers the sheet reader
(`wfctl.files.workbook`) shares, and the shared strings, read by a regular expression while they are as
spreadsheet programs write them (`<si><t>text</t></si>`, some 3x faster than the parser's elements), else by
the standard library's parser, and kept as one UTF-8 buffer.
"""

from __future__ import annotations

import itertools
import re
import zipfile
from array import array
from typing import Any

from wfctl.files.cellformat import decoded

#: A chunk of a part's XML read at once; the most of it read for one row or string before it is not plain.
CHUNK = 1 << 20
MAX_PIECE = 1 << 24


class NotPlain(Exception):
    """The XML is not what the fast path reads: the parser reads it."""


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


class SharedStrings:
    """The workbook's shared strings, kept as one UTF-8 buffer and their offsets (a few bytes a string
    beyond its text, where a list of str takes some 60): a sheet of 100,000 rows stays small."""

    def __init__(self, archive: zipfile.ZipFile, part: str | None, *, fast: bool = True) -> None:
        self._data = bytearray()
        self._ends = array("Q")
        if part is None or part not in archive.NameToInfo:
            return
        if fast:
            try:
                with archive.open(part) as f:
                    self._read_plain(f)
                return
            except NotPlain:  # read again by the parser
                self._data = bytearray()
                self._ends = array("Q")
        from xml.etree import ElementTree

        with archive.open(part) as f:
            for _, element in ElementTree.iterparse(f):
                if local(element.tag) == "si":
                    self._data += decoded(inline_text(element)).encode("utf-8")
                    self._ends.append(len(self._data))
                    element.clear()

    def _read_plain(self, f: Any) -> None:
        """The strings of an `<sst>` whose every `<si>` is one plain `<t>`, a chunk at a time; raises NotPlain."""
        import codecs

        decoder = codecs.getincrementaldecoder("utf-8")()
        buf = ""
        started = False
        while True:
            data = f.read(CHUNK)
            try:
                buf += decoder.decode(data, final=not data)
            except UnicodeDecodeError:
                raise NotPlain from None
            if not started:
                opened = _SST.search(buf)
                if opened is None:
                    if not data or len(buf) > MAX_PIECE:
                        raise NotPlain
                    continue
                head = buf[:opened.end()]
                if "<!" in head or not plain_declaration(head, "sst"):
                    raise NotPlain
                buf = buf[opened.end():]
                started = True
                if opened.group(1):  # <sst/>
                    return
            if data:  # the strings whose </si> was read; the rest waits for the next chunk
                cut = buf.rfind("</si>")
                if cut < 0:
                    if len(buf) > MAX_PIECE:
                        raise NotPlain
                    continue
                body, buf = buf[:cut + 5], buf[cut + 5:]
            else:
                end = _SST_END.search(buf)
                if end is None:
                    raise NotPlain
                body = buf[:end.start()]
            if "\r" in body or _PLAIN_STRINGS.fullmatch(body) is None:
                raise NotPlain  # (a CR: the parser makes CRLF a LF)
            encoded = [decoded(unescape(t) if "&" in t else t).encode("utf-8") for t in _STRING.findall(body)]
            start = len(self._data)
            self._data += b"".join(encoded)
            self._ends.extend(start + end for end in itertools.accumulate(map(len, encoded)))
            if not data:
                return

    def __getitem__(self, index: int) -> str:
        start = self._ends[index - 1] if index else 0
        return self._data[start:self._ends[index]].decode("utf-8")


def inline_text(element: Any) -> str:
    """The text of an `<si>` or `<is>`: its `<t>`, or its rich-text runs' `<t>`s (phonetic runs left out)."""
    parts = []
    for child in element:
        tag = local(child.tag)
        if tag == "t":
            parts.append(child.text or "")
        elif tag == "r":
            parts.extend(t.text or "" for t in child if local(t.tag) == "t")
    return "".join(parts)


def plain_declaration(head: str, root: str = "worksheet") -> bool:
    """Whether the XML declaration (if any) says UTF-8 and the root element (`root`) has no prefix."""
    if head.startswith("<?xml"):
        declaration = head[:head.find("?>") + 2]
        encoding = re.search(r'encoding\s*=\s*["\']([^"\']*)', declaration)
        if encoding and encoding.group(1).lower().replace("-", "").replace("_", "") != "utf8":
            return False
    return re.search(f"<{root}[\\s>]", head) is not None


def unescape(text: str) -> str:
    """XML's character and predefined entity references replaced (an `&` not one of them: not plain)."""
    if text.count("&") != len(_ENTITY.findall(text)):
        raise NotPlain
    return _ENTITY.sub(_entity, text)


def _entity(match: re.Match[str]) -> str:
    name, decimal, hexadecimal = match.groups()
    if name:
        return _NAMED[name]
    code = int(decimal) if decimal else int(hexadecimal, 16)
    if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise NotPlain  # not a character XML allows: the parser names the error
    return chr(code)


_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_SST = re.compile(r"<sst\b[^>]*?(/?)>")
_SST_END = re.compile(r"</sst>\s*$")
_STRING_XML = r'<si><t(?: xml:space="preserve")?>([^<]*)</t></si>'
_STRING = re.compile(_STRING_XML)
_PLAIN_STRINGS = re.compile(f"(?:\\s*{_STRING_XML})*\\s*")
