"""Reading rates (`wfctl.api.domain.rates`): the clients in scope, their sites' full records (read in
parallel, in order, memory bounded), and the rows and per-skill summary of `wfctl rates list|summary`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from wfctl.api.domain.ratecalc import CENT, UnknownSkill, amount, json_number, nearest, skill_key, usual
from wfctl.api.errors import NotFound
from wfctl.api.records.ordered import ordered_map

#: Sites whose full records are read at once (export's figure: issue 17).
READ_CONCURRENCY = 16


def find_record(api: Any, kind: str, ref: str) -> dict[str, Any]:
    """The record `ref` names: its id, a unique beginning of it, or its name (wfctl.api.records.refs).
    Raises refs.NoSuchRecord (a NotFound), refs.AmbiguousReference."""
    from wfctl.api.records.refs import require, resolve

    return dict(require(api, kind, resolve(api, kind, ref), ref))


def clients_in_scope(api: Any, *, clients: Iterable[str] = (), branches: Iterable[str] = (),
                     all_clients: bool = False) -> list[tuple[str, str]]:
    """(client id, name) of the clients in scope, each once, in the order given (then the service's)."""
    found: dict[str, str] = {}
    if all_clients:
        for row in api.iter_clients():
            found.setdefault(str(row["id"]), str(row.get("name", "")))
        return list(found.items())
    for ref in clients:
        record = find_record(api, "client", ref)
        found.setdefault(str(record["id"]), str(record.get("name", "")))
    for ref in branches:
        branch = find_record(api, "branch", ref)
        for row in api.iter_clients(branch_id=str(branch["id"])):
            found.setdefault(str(row["id"]), str(row.get("name", "")))
    return list(found.items())


def read_sites(api: Any, clients: Iterable[tuple[str, str]], *, site_ids: Iterable[str] = (),
               concurrency: int = READ_CONCURRENCY, on_site: Callable[[], None] | None = None,
               on_gone: Callable[[dict[str, Any]], None] | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """(full site record, client name) of every site of `clients` and each of `site_ids`, in order:
    clients' site lists are read up to `concurrency` clients at once, full records `concurrency` at
    once (list items carry no rates), memory bounded. A site listed, then deleted before its record
    was read, goes to `on_gone` and is left out."""
    names: dict[str, str] = dict(clients)

    def listed(client_id: str) -> list[dict[str, Any]]:
        return list(api.iter_sites(client_id))

    def summaries() -> Iterator[dict[str, Any]]:
        yield from (row for rows in ordered_map(listed, list(names), concurrency) for row in rows)
        for ref in dict.fromkeys(site_ids):
            yield {"id": ref, "_given": True}

    def full(summary: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
        if summary.get("_given"):  # --site: its id, a beginning of it or its name, found or an error
            record = find_record(api, "site", str(summary["id"]))
            return record, _client_name(str(record.get("clientId", "")))
        try:
            record = dict(api.get_record("site", str(summary["id"])))
        except NotFound:
            if on_gone is not None:
                on_gone(summary)
            return None
        return record, _client_name(str(record.get("clientId", "")))

    def _client_name(client_id: str) -> str:
        if client_id not in names:
            try:
                names[client_id] = str(api.get_record("client", client_id).get("name", ""))
            except NotFound:
                names[client_id] = ""
        return names[client_id]

    given: set[str] = set()  # a listing that lies may give one site under two clients: read once
    for item in ordered_map(full, summaries(), concurrency):
        if item is None or str(item[0].get("id")) in given:
            continue
        given.add(str(item[0].get("id")))
        if on_site is not None:
            on_site()
        yield item


def rate_rows(sites: Iterable[tuple[dict[str, Any], str]], skills: Iterable[str] = ()) -> Iterator[dict[str, Any]]:
    """One row per site and skill (`clientId`, `client`, `siteId`, `site`, `skill`, `hourlyRate`),
    only the skills named when any are (matched trimmed, case-insensitively). A skill named that no site
    in scope has raises UnknownSkill after the last site, naming the nearest as `rates set` does: never
    an empty answer for a misspelt skill."""
    asked = {skill_key(s): str(s).strip() for s in skills if str(s).strip()}
    spellings: dict[str, Counter[str]] = {}  # every skill in scope, when some are asked for
    for record, client_name in sites:
        for rate in record.get("rates") or []:
            if not isinstance(rate, dict):
                continue
            key = skill_key(rate.get("skill"))
            if asked:
                spellings.setdefault(key, Counter())[str(rate.get("skill", "")).strip()] += 1
                if key not in asked:
                    continue
            yield {"clientId": str(record.get("clientId", "")), "client": client_name,
                   "siteId": str(record.get("id", "")), "site": str(record.get("name", "")),
                   "skill": str(rate.get("skill", "")).strip(), "hourlyRate": rate.get("hourlyRate")}
    in_scope = sorted((usual(counter) for counter in spellings.values()), key=str.casefold)
    for key, skill in asked.items():
        if key not in spellings:
            raise UnknownSkill(skill, nearest(skill, in_scope), in_scope)


def summary(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per skill (trimmed, case-insensitive; the most common spelling shown): sites, minimum, median, maximum."""
    values: dict[str, list[Decimal]] = {}
    spellings: dict[str, Counter[str]] = {}
    for row in rows:
        key = skill_key(row["skill"])
        values.setdefault(key, []).append(amount(row["hourlyRate"]))
        spellings.setdefault(key, Counter())[row["skill"]] += 1
    out = []
    for key in sorted(values, key=lambda k: usual(spellings[k]).casefold()):
        numbers = sorted(values[key])
        n = len(numbers)
        median = numbers[n // 2] if n % 2 else (numbers[n // 2 - 1] + numbers[n // 2]) / 2
        out.append({"skill": usual(spellings[key]), "sites": n, "minimum": json_number(numbers[0]),
                    "median": json_number(median.quantize(CENT, rounding=ROUND_HALF_UP)),
                    "maximum": json_number(numbers[-1])})
    return out
