"""When two names are the same name (G12), for the UNIQUE name indexes and every look-up by name.

Standard library only: accounts.py and schema.py both use it (and schema.py imports accounts.py).
"""

from __future__ import annotations

import unicodedata

__all__ = ["name_key"]


def name_key(name: str) -> str:
    """The uniqueness key of a branch, client or site name (G12): names that look the same are the same.

    NFKC (full-width and other compatibility forms, NFC vs NFD), without the invisible format characters
    (Unicode category Cf: zero-width space and joiners, BOM, soft hyphen...), trimmed, lower-cased (simple
    `str.lower`, not casefold: `Straße 1` and `STRASSE 1` are two names), and NFKC again."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", text.strip().lower())
