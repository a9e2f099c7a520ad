"""Site names that look alike across clients (`wfctl audit`, check `look-alike-sites`). Pure.

The rule (docs/payroll.md says it for people): two sites of different clients look alike when their names'
keys are equal, or, for keys of at least `CLOSE_FROM` characters with the same digits, one character apart
(one changed, added or removed, or two next to each other swapped). A name's key is the name with accents,
case, spacing and punctuation taken away (`&` is `and`) and without the words of `COMMON_WORDS`:
`Ardwick Cross-Dock Ltd` and `ardwick crossdock` have the key `ardwickcrossdock`.

Near keys are found through their one-character deletions (each key and its deletions in a dict): the work is
the total length of the names, never every pair of sites, so 3,000 sites take milliseconds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

#: Words left out of a key: company suffixes and words many site names carry.
COMMON_WORDS = frozenset({"the", "ltd", "limited", "plc", "llp", "llc", "inc", "co", "company", "group", "uk",
                          "site"})
#: Keys this long or longer also match a key one character apart.
CLOSE_FROM = 8
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Named:
    """A site as the check sees it."""

    site_id: str
    name: str
    client_id: str
    client: str


def name_key(name: str) -> str:
    """The name without accents, case, spacing, punctuation and common words (all of them when nothing else is left)."""
    text = unicodedata.normalize("NFKD", name.replace("&", " and "))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    words = _WORD.findall(text)
    kept = [word for word in words if word not in COMMON_WORDS]
    return "".join(kept or words)


def look_alikes(sites: Iterable[Named]) -> dict[int, list[int]]:
    """For each site (its index in `sites`) that looks like a site of another client, the indexes of those
    sites, in order."""
    items = list(sites)
    keys = [name_key(site.name) for site in items]
    by_variant: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        for variant in _variants(key):
            by_variant.setdefault(variant, []).append(index)
    found: dict[int, set[int]] = {}
    for indexes in by_variant.values():
        if len(indexes) < 2 or len({items[i].client_id for i in indexes}) < 2:
            continue
        for a_pos, a in enumerate(indexes):
            for b in indexes[a_pos + 1:]:
                if items[a].client_id != items[b].client_id and a != b and _alike(keys[a], keys[b]):
                    found.setdefault(a, set()).add(b)
                    found.setdefault(b, set()).add(a)
    return {index: sorted(others) for index, others in sorted(found.items())}


def _variants(key: str) -> set[str]:
    """The key, and when it is long enough for near matches every key one character shorter: two keys one
    character apart share one of these (a changed or swapped character: a deletion of each; one added: the
    shorter key itself)."""
    if len(key) < CLOSE_FROM:
        return {key}
    return {key, *(key[:i] + key[i + 1:] for i in range(len(key)))}


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) < CLOSE_FROM or _digits(a) != _digits(b):
        return False
    return _one_apart(a, b)


def _digits(key: str) -> str:
    return "".join(ch for ch in key if ch.isdigit())


def _one_apart(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one character changed, added or removed, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1:
        return False
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    if len(a) == len(b):
        if a[start + 1:] == b[start + 1:]:
            return True  # one changed
        return a[start:start + 2] == b[start:start + 2][::-1] and a[start + 2:] == b[start + 2:]  # swapped
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1:] == shorter[start:]
