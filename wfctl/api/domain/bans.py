"""Bans across sites: the service bans a worker per site (a site's `bannedWorkers`), while a do-not-rehire
decision is per client, per branch or agency-wide. Pure: nothing here talks to the service. `wfctl bans`
and `wfctl audit` both judge the sites they read with these functions, so they never disagree. A change
of bans across sites is planned here too (`plan_bans`); `wfctl.api.domain.banapply` makes it on the service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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


# -- a change of bans across sites (`wfctl bans add|remove`) -------------------------------------------

#: The longest text the service keeps in a field (G11).
MAX_ID = 200


class BanError(ValueError):
    """A worker id the service would refuse, or that no one means (empty, a control character)."""


def worker_id(text: str) -> str:
    """`text` as the service keeps a worker id (trimmed), or BanError: empty, control characters (a
    pasted tab or newline), longer than the service takes."""
    value = str(text).strip()
    if not value:
        raise BanError("a worker id is empty: give one like W-20417")
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise BanError(f"worker id {value!r} holds a control character; give the id as the service shows it")
    if len(value) > MAX_ID:
        raise BanError(f"worker id {value[:20]!r}... is {len(value)} characters; the service takes at most {MAX_ID}")
    return value


def edited(workers: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> list[str]:
    """`workers` with `remove` taken out and `add` put at the end (each once, in the order given): the
    list as the service will hold it, everyone else's entries where they were."""
    gone = set(remove)
    out = [worker for worker in dict.fromkeys(workers) if worker not in gone]
    held = set(out)
    out.extend(worker for worker in dict.fromkeys(add) if worker not in held)
    return out


@dataclass(frozen=True)
class SiteBans:
    """One site in a plan of bans: its list as the plan read it, and the ids the plan adds or removes
    (those it already holds, or lacks, are not the plan's)."""

    site_id: str
    site_name: str
    client_id: str
    client_name: str
    banned: tuple[str, ...]
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        return "change" if self.add or self.remove else "unchanged"


@dataclass(frozen=True)
class BanPlan:
    """`add` and `remove` over the sites in scope: pure, nothing sent."""

    add: tuple[str, ...]
    remove: tuple[str, ...]
    sites: list[SiteBans]

    @property
    def to_change(self) -> list[SiteBans]:
        return [site for site in self.sites if site.status == "change"]

    def rows(self) -> list[dict[str, Any]]:
        """One row per site and worker, its `change`: `add`, `remove`, or (nothing to do) `already banned`,
        `not banned`."""
        out = []
        for site in self.sites:
            for worker in (*self.add, *self.remove):
                asked = "add" if worker in self.add else "remove"
                if worker in site.add or worker in site.remove:
                    change = asked
                else:
                    change = "already banned" if asked == "add" else "not banned"
                out.append({"clientId": site.client_id, "client": site.client_name, "siteId": site.site_id,
                            "site": site.site_name, "worker": worker, "change": change})
        return out


def plan_bans(sites: Iterable[tuple[Mapping[str, Any], str]], *, add: Iterable[str] = (), remove: Iterable[str] = (),
              done: Callable[[str], bool] | None = None) -> BanPlan:
    """The plan of adding `add` to and taking `remove` off every site of `sites` ((full site record, client
    name) pairs); `done(site_id)` marks sites an earlier run already settled (left out). An id in both
    lists is a BanError."""
    adding, removing = tuple(dict.fromkeys(add)), tuple(dict.fromkeys(remove))
    both = set(adding) & set(removing)
    if both:
        raise BanError(f"worker {sorted(both)[0]!r} is both added and removed; give it once")
    planned = []
    for record, client_name in sites:
        site_id = str(record.get("id", ""))
        if done is not None and done(site_id):
            continue
        have = banned(record)
        held = set(have)
        planned.append(SiteBans(site_id, str(record.get("name", "")), str(record.get("clientId", "")), client_name,
                                tuple(have), tuple(w for w in adding if w not in held),
                                tuple(w for w in removing if w in held)))
    return BanPlan(adding, removing, planned)


# -- reading bans: where a worker is banned, a client's bans --------------------------------------------

def where(sites: Iterable[tuple[Mapping[str, Any], str]], workers: Iterable[str],
          cased: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per site of `sites` ((full site record, client name) pairs) banning one of `workers`, and
    worker: `worker`, `siteId`, `site`, `clientId`, `client`; workers in the order asked, sites in the order given.
    Ids are compared exactly, as the service keeps them; `cased`, when given, is filled with each worker no
    site bans whom a site bans under the same id in another case (`w-10474`: `W-10474`)."""
    asked = list(dict.fromkeys(workers))
    found: dict[str, list[dict[str, Any]]] = {worker: [] for worker in asked}
    folded: dict[str, str] = {}  # a held id in another case than an asked one, by the asked one's casefold
    wanted = {worker.casefold() for worker in asked}
    for record, client_name in sites:
        held = set(banned(record))
        for worker in asked:
            if worker in held:
                found[worker].append({"worker": worker, "siteId": str(record.get("id", "")),
                                      "site": str(record.get("name", "")),
                                      "clientId": str(record.get("clientId", "")), "client": client_name})
        if cased is not None:
            for other in held:
                if other.casefold() in wanted and other not in found:
                    folded.setdefault(other.casefold(), other)
    if cased is not None:
        cased.update({worker: folded[worker.casefold()] for worker in asked
                      if not found[worker] and worker.casefold() in folded})
    return [row for worker in asked for row in found[worker]]


def client_bans(sites: Iterable[tuple[Mapping[str, Any], str]]) -> list[dict[str, Any]]:
    """The union of the bans of each client's sites, one row a client and worker: `clientId`, `client`,
    `worker`, `bannedAt` (sites banning them), `sites` (the client's sites in scope), `inconsistent`
    (banned at some of them but not all: `inconsistent()`'s judgement) and `siteIds`."""
    pairs = list(sites)
    records = [record for record, _ in pairs]
    names = {str(record.get("clientId") or ""): name for record, name in pairs}
    flagged = {(item.client_id, item.worker) for item in inconsistent(records)}
    rows = []
    for client_id, group in by_client(records).items():
        for worker, at in union(group).items():
            rows.append({"clientId": client_id, "client": names.get(client_id, ""), "worker": worker,
                         "bannedAt": len(at), "sites": len(group), "inconsistent": (client_id, worker) in flagged,
                         "siteIds": at})
    return rows
