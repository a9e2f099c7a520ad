"""The checks: each reads one scenario's trace (stage.py) and final state, names the gap decision of the
contract it holds the program to, and says its tolerance. A check with nothing to judge holds.

A finding is one sentence with no id, time or token in it, so the same program and --seed give the same
report, byte for byte.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wfctl.sandbox.certify.stage import Exchange

#: How much sooner than Retry-After asked a request may come (the program's and this machine's clock grain).
EARLY_TOLERANCE = 0.05
#: Requests in flight at once that the standard pace allows.
MAX_IN_FLIGHT = 4


@dataclass
class Task:
    """What the program is asked to do (its environment, docs/sandbox.md): read every site of a client, create
    one site, change one site's phone."""

    client_id: str
    site_id: str
    new_site: str
    phone: str


@dataclass
class Played:
    """One scenario as it went: the trace, the program's exit and output, the state before and after."""

    scenario: Any
    task: Task
    exchanges: list[Exchange]
    exit_status: int
    stderr: str = ""
    site_before: dict[str, Any] = field(default_factory=dict)
    site_after: dict[str, Any] = field(default_factory=dict)
    new_sites: int = 0
    reuse_detections: int = 0
    trap_port: int | None = None
    listed_before: set[str] = field(default_factory=set)  # the client's site ids before the program ran
    listed_after: set[str] = field(default_factory=set)   # and after
    read: set[str] | None = None                           # the ids it says it read (None: it did not say)


@dataclass(frozen=True)
class Check:
    name: str
    gap: str
    rule: str
    tolerance: str
    judge: Callable[[Played], list[str]]


def retry_after(played: Played) -> list[str]:
    findings = []
    ordered = sorted(played.exchanges, key=lambda e: e.start)
    for answered in ordered:
        if answered.status not in (429, 503) or not answered.retry_after:
            continue
        later = [e for e in ordered if e.start >= answered.end]
        if later and later[0].start < answered.end + answered.retry_after - EARLY_TOLERANCE:
            findings.append(f"request {later[0].number} came sooner than the {answered.status} answer to request "
                            f"{answered.number} asked (Retry-After: {answered.retry_after:g} s)")
    return findings


def refresh_reuse(played: Played) -> list[str]:
    if played.reuse_detections:
        return ["a spent refresh token was presented outside the grace window: the service revoked the login"]
    return []


def idempotent_create(played: Played) -> list[str]:
    findings = []
    creates = [e for e in played.exchanges if e.method == "POST" and e.path == _sites(played)
               and isinstance(e.request, dict) and e.request.get("name") == played.task.new_site]
    for first, again in itertools.pairwise(creates):
        same_key = first.idempotency_key is not None and first.idempotency_key == again.idempotency_key
        looked_up = any(e.method == "GET" and e.path == _sites(played) and first.start < e.start < again.start
                        for e in played.exchanges)
        if not same_key and not looked_up:
            findings.append(f"request {again.number} repeated the create of request {first.number} with "
                            "another Idempotency-Key (or none) and without a look-up")
    if played.new_sites > 1:
        findings.append(f"{played.new_sites} sites named as the one create asked for: duplicates")
    return findings


def pages(played: Played) -> list[str]:
    """The listing's first pass: the list GETs before the first write. What comes after a write is another
    read (a natural-key look-up after a lost create, G20), judged for reading a page twice only."""
    passes = _passes(played)
    first = passes[0]
    if not first:
        return ["the client's site list was never read"] if played.exit_status == 0 else []
    findings = []
    for read in passes:
        counts = Counter(_page_number(e) for e in read)
        findings += [f"page {page} was read {times} times" for page, times in sorted(counts.items()) if times > 1]
    page_count = max(int(e.response.get("pageCount") or 0) for e in first)
    if played.exit_status == 0:  # a program that stopped is reported by exit-status: pages it never got to, not here
        findings += [f"page {page} of {page_count} was never read" for page in _unread(played)]
    return sorted(set(findings), key=findings.index)


def records(played: Played) -> list[str]:
    """No record missed: a site listed before the program ran and still listed after it is among those it read;
    a site created or deleted meanwhile (pages-change moves one) may be either way."""
    if played.exit_status != 0:  # a program that stopped is reported by exit-status
        return []
    if played.read is None:
        return ["the program did not say which sites it read (CERTIFY_READ_FILE)"]
    if not _passes(played)[0] or _unread(played):  # pages it never read are the pages check's finding
        return []
    missed = len((played.listed_before & played.listed_after) - played.read)
    if not missed:
        return []
    return [f"{missed} site{'s' if missed > 1 else ''} listed throughout the read {'were' if missed > 1 else 'was'} "
            "never read"]


def put_keeps_fields(played: Played) -> list[str]:
    if not played.site_before:
        return []
    after, before = played.site_after, dict(played.site_before, phone=played.task.phone)
    if after.get("phone") != played.task.phone:
        # a program that stopped (a failure exit-status reports, or a link it had to refuse) need not have done
        # the task: only what it did write is judged
        return [] if played.exit_status != 0 and after == played.site_before else ["the site's phone was not changed"]
    lost = sorted(name for name in before if after.get(name) != before[name])
    return [f"the update changed what it did not name: {', '.join(lost)}"] if lost else []


def exit_status(played: Played) -> list[str]:
    if played.scenario.exit == "zero" and played.exit_status != 0:
        return [f"the program exited {played.exit_status}"]
    return []


def token_origin(played: Played) -> list[str]:
    sent = [e for e in played.exchanges if played.trap_port is not None and e.port == played.trap_port]
    if any(e.token for e in sent):
        return ["a bearer token was sent to another origin"]
    if sent:
        return ["a link to another origin was followed"]
    return []


def expired_token(played: Played) -> list[str]:
    ordered = sorted(played.exchanges, key=lambda e: e.start)
    findings = []
    for index, exchange in enumerate(ordered):
        if not exchange.api or exchange.status != 401:
            continue
        after = ordered[index + 1: index + 2]
        if after and after[0].path not in ("/identity/refresh", "/identity/login"):
            findings.append(f"request {after[0].number} followed a 401 without a refresh or a login")
    return findings


def pace(played: Played) -> list[str]:
    edges = sorted([(e.start, 1) for e in played.exchanges] + [(e.end, -1) for e in played.exchanges],
                   key=lambda edge: (edge[0], edge[1]))
    busy = peak = 0
    for _, step in edges:
        busy += step
        peak = max(peak, busy)
    # the count itself depends on this machine's scheduling: the finding says only that the pace was passed
    return [f"more than {MAX_IN_FLIGHT} requests were in flight at once"] if peak > MAX_IN_FLIGHT else []


CHECKS: list[Check] = [
    Check("retry-after", "G18", "Retry-After is honoured after a 429 or a 503",
          f"the next request no sooner than asked ({EARLY_TOLERANCE * 1000:.0f} ms early allowed)", retry_after),
    Check("refresh-reuse", "G3", "a spent refresh token is never presented outside the grace window",
          "0 reuse detections (a repeat within 15 minutes, while its successor is unused, is the grace window)",
          refresh_reuse),
    Check("idempotent-create", "G20", "a create is repeated only with the same Idempotency-Key or after a look-up",
          "0 other repeats; at most 1 record of the name in the final state", idempotent_create),
    Check("pages", "G7/G8", "every nextPage form is followed, no page read twice, none left unread",
          "each page up to pageCount answered 200 exactly once (a retry of a refused page is not a read)", pages),
    Check("records", "G7", "no record is missed while the pages change",
          "every site listed before and after the read is among the ids the program read (CERTIFY_READ_FILE); "
          "one created or deleted meanwhile may be either way; a page never read is the pages check's", records),
    Check("put-keeps-fields", "G13", "an update changes only what it names, on a deployment that clears",
          "the site's final state equals its first state with the phone changed", put_keeps_fields),
    Check("exit-status", "G10", "every error form is parsed: the program does not fail",
          "exit status 0 where the scenario expects it", exit_status),
    Check("token-origin", "G8", "the token is sent to no other origin",
          "0 requests to another origin", token_origin),
    Check("expired-token", "G2", "an expired access token (no expiresIn) leads to one refresh",
          "the request after a 401 is a refresh or a login", expired_token),
    Check("pace", "G18", "concurrency stays within the limit's pace",
          f"at most {MAX_IN_FLIGHT} requests in flight", pace),
]


def judge(played: Played) -> list[tuple[Check, list[str]]]:
    """Every check's findings for one scenario (empty: it holds)."""
    return [(check, check.judge(played)) for check in CHECKS]


def _passes(played: Played) -> list[list[Exchange]]:
    """The list GETs answered 200, split at each write: the first pass, then each later read."""
    passes: list[list[Exchange]] = [[]]
    for exchange in sorted(played.exchanges, key=lambda e: e.start):
        if exchange.api and exchange.method in ("POST", "PUT", "PATCH", "DELETE") and passes[-1]:
            passes.append([])
        elif (exchange.method == "GET" and exchange.path == _sites(played) and exchange.status == 200
              and isinstance(exchange.response, dict)):
            passes[-1].append(exchange)
    return passes


def _unread(played: Played) -> list[int]:
    """The pages up to pageCount the first pass never read (only the first, when its link was on another origin)."""
    first = _passes(played)[0]
    if not first:
        return []
    page_count = max(int(e.response.get("pageCount") or 0) for e in first)
    read_once = {_page_number(e) for e in first}
    wanted = range(1, 2 if played.scenario.faults.foreign_next_page else page_count + 1)
    return [page for page in wanted if page not in read_once]


def _sites(played: Played) -> str:
    return f"/api/clients/{played.task.client_id}/sites"


def _page_number(exchange: Exchange) -> int:
    try:
        return int((exchange.query.get("pageNumber") or ["1"])[0])
    except ValueError:
        return 0
