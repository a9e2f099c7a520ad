"""Hourly rates across many sites: read them, plan a change, apply it site by site (issue 23).

The service keeps one hourly rate per skill per site (`rates: [{skill, hourlyRate}]`), with no history.
This module is the SDK side of `wfctl rates list|summary|set`; scripts use it the same way:

    from wfctl.api import Client
    from wfctl.api.domain import rates

    with Client.from_environment() as client:  # or wfctl.profiles.client(): a profile's login
        scope = rates.clients_in_scope(client, all_clients=True)
        sites = list(rates.read_sites(client, scope))
        change = rates.Change.build(["Picker Packer"], floor="12.21")
        plan = rates.plan_change(sites, change)          # pure: nothing is sent
        for site in plan.to_change:
            outcome = rates.apply_site(client, site, change)   # re-read, recomputed, read-merge-write
            print(site.site_name, outcome.status, outcome.error)

Skills match as the contract matches them (G11): trimmed, case-insensitively. Amounts are Decimals
with at most two decimals, >= 0. `apply_site` re-reads the site just before its update and recomputes
the change from the rates it holds then: a rate someone moved since the plan is not overwritten
(`changed since the plan: skipped`) unless the change still applies to it as it is now (a floor, a
ceiling). The update is `Client.update_record`'s read-merge-write (G13), with the new rates computed
from each state it reads, so nothing but the rates in question changes, on every deployment.

The pieces, one idea each: the arithmetic of a change (`wfctl.api.domain.ratecalc`), reading sites and their
rates (`wfctl.api.domain.ratereads`), applying a planned change (`wfctl.api.domain.rateapply`); this module gathers
their names.
"""

from __future__ import annotations

from wfctl.api.domain.rateapply import Outcome, apply_site
from wfctl.api.domain.ratecalc import (
    CENT,
    CHANGE,
    MAX_CHANGE,
    MODES,
    MOVED,
    SKIPPED,
    UNCHANGED,
    Change,
    Plan,
    RateChange,
    RateError,
    SitePlan,
    UnknownSkill,
    amount,
    compute,
    json_number,
    nearest,
    new_rates,
    parse_amount,
    parse_by,
    parse_percent,
    plan_change,
    round_to_step,
    skill_key,
    usual,
)
from wfctl.api.domain.ratereads import (
    READ_CONCURRENCY,
    clients_in_scope,
    find_record,
    ordered_map,
    rate_rows,
    read_sites,
    summary,
)

__all__ = [
    "CENT", "CHANGE", "MAX_CHANGE", "MODES", "MOVED", "READ_CONCURRENCY", "SKIPPED", "UNCHANGED", "Change",
    "Outcome", "Plan", "RateChange", "RateError", "SitePlan", "UnknownSkill", "amount", "apply_site",
    "clients_in_scope", "compute", "find_record", "json_number", "nearest", "new_rates", "ordered_map",
    "parse_amount", "parse_by", "parse_percent", "plan_change", "rate_rows", "read_sites", "round_to_step",
    "skill_key", "summary", "usual",
]
