"""Bans across sites: the service bans a worker per site (a site's `bannedWorkers`), while a do-not-rehire
decision is per client, per branch or agency-wide. Pure: nothing here talks to the service. `wfctl bans`
and `wfctl audit` both judge the sites they read with these functions, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Inconsistency:
    """A worker banned at some of a client's sites but not at the others."""

    client_id: str
    worker: str
    banned_at: tuple[str, ...]  # site ids, in the order the sites were given
    not_banned_at: tuple[str, ...]

    @property
    def sites(self) -> int:
        return len(self.banned_at) + len(self.not_banned_at)


def banned(site: Mapping[str, Any]) -> list[str]:
    """The site's banned worker ids, as strings, in the service's order (a missing or null list is empty)."""
    return [str(worker) for worker in site.get("bannedWorkers") or ()]


def by_client(sites: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The sites grouped by `clientId`, clients in the order first seen."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for site in sites:
        groups.setdefault(str(site.get("clientId") or ""), []).append(site)
    return groups


def union(sites: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Every worker banned at any of the sites, with the ids of the sites that ban them (workers in the
    order first seen)."""
    workers: dict[str, list[str]] = {}
    for site in sites:
        for worker in dict.fromkeys(banned(site)):
            workers.setdefault(worker, []).append(str(site.get("id")))
    return workers


def inconsistent(sites: Iterable[Mapping[str, Any]]) -> list[Inconsistency]:
    """The workers banned at some but not all of a client's sites, sorted by client id then worker id. A
    client with one site has none."""
    found: list[Inconsistency] = []
    for client_id, group in by_client(sites).items():
        ids = [str(site.get("id")) for site in group]
        for worker, at in union(group).items():
            if len(at) < len(ids):
                held = set(at)
                found.append(Inconsistency(client_id, worker, tuple(at),
                                           tuple(site for site in ids if site not in held)))
    return sorted(found, key=lambda item: (item.client_id, item.worker))
