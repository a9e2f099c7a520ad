"""`wfctl audit`: the judgement of the agency's sites, read-only and pure (nothing here talks to the service).

An `Audit` is given each site's full record with its client's name (`add`), keeps of it only what the
checks across sites need, and gives its `findings()`: one per record and problem, each naming the record,
what was found and what to do (the `wfctl` command that mends it, where there is one). docs/payroll.md,
"Auditing the agency's data", says the checks for people.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from wfctl.api.domain import bans
from wfctl.api.domain.ratecalc import RateError, amount, usual
from wfctl.payroll.floors import ChargeFloor, Floor
from wfctl.payroll.lookalike import Named, look_alikes

#: Every check, in the order findings are listed, with what it finds.
CHECKS: dict[str, str] = {
    "no-rates": "sites without rates",
    "under-floor": "rates under the pay floor of --floor (an amount, or nlw)",
    "under-charge-floor": "rates under the charge floor of --charge-floor (built from its parts)",
    "skill-spelling": "skills of a client that differ only by case or spacing",
    "department-email": "departments without a contact e-mail",
    "assessment-document": "sites that require an assessment but hold no document",
    "inconsistent-bans": "workers banned at some of a client's sites only",
    "look-alike-sites": "sites of different clients whose names look alike",
}
#: The checks that run only when their floor is given, and the option that gives it.
NEEDS = {"under-floor": "--floor", "under-charge-floor": "--charge-floor"}
#: A finding's fields, in the order -o csv writes them.
FIELDS = ["check", "kind", "id", "name", "clientId", "client", "branchId", "branch", "found", "fix"]
#: Names listed in one finding before `and N more`.
LISTED = 5


class AuditError(ValueError):
    """Checks asked for that cannot run as asked: one line."""


@dataclass(frozen=True)
class Finding:
    check: str
    kind: str  # the record: site or client
    id: str
    name: str
    clientId: str  # the service's field name, as -o json shows it
    client: str
    found: str
    fix: str

    def row(self, branch: tuple[str, str] = ("", "")) -> dict[str, Any]:
        """The finding as -o json and csv give it (FIELDS), with the client's `branch` (id, name)."""
        fields = asdict(self)
        fields["branchId"], fields["branch"] = branch
        return {name: fields[name] for name in FIELDS}


def choose(only: Iterable[str] = (), skip: Iterable[str] = (), *, floors: Iterable[str] = ()) -> list[str]:
    """The checks to run, in CHECKS' order: `only` those, or all but `skip`; a floor check only when its
    option is among `floors` (given with --only without it, an error)."""
    only, skip, floors = list(only), list(skip), set(floors)
    if only and skip:
        raise AuditError("give --only or --skip, not both")
    for name in (*only, *skip):
        if name not in CHECKS:
            raise AuditError(f"unknown check {name!r}; the checks are {', '.join(CHECKS)}")
    for name in only:
        if name in NEEDS and NEEDS[name] not in floors:
            raise AuditError(f"--only {name} needs {NEEDS[name]}, e.g. {_example(name)}")
    if only:
        return [name for name in CHECKS if name in only]
    return [name for name in CHECKS if name not in skip and (name not in NEEDS or NEEDS[name] in floors)]


@dataclass
class Audit:
    """The checks `checks` over the sites given to `add`, with the floors of the floor checks."""

    checks: list[str]
    floor: Floor | None = None
    charge_floor: ChargeFloor | None = None
    sites: int = 0
    _found: list[Finding] = field(default_factory=list)
    _banned: list[dict[str, Any]] = field(default_factory=list)  # id, clientId, bannedWorkers of each site
    _named: list[Named] = field(default_factory=list)
    _skills: dict[tuple[str, str], list[tuple[Named, str]]] = field(default_factory=dict)
    _clients: dict[str, str] = field(default_factory=dict)

    def add(self, site: Mapping[str, Any], client: str) -> None:
        """One site's full record (`wfctl.api.domain.ratereads.read_sites` gives them) and its client's name."""
        self.sites += 1
        named = Named(str(site.get("id", "")), str(site.get("name", "")), str(site.get("clientId", "")), client)
        self._clients.setdefault(named.client_id, client)
        rates = [rate for rate in site.get("rates") or () if isinstance(rate, Mapping)]
        if "no-rates" in self.checks and not rates:
            self._site(named, "no-rates", "no hourly rate for any skill",
                       f"add one: wfctl sites update {named.site_id} --set-rate '<skill>=<amount>'")
        for rate in rates:
            self._rate(named, rate)
        if "department-email" in self.checks:
            for department in site.get("departments") or ():
                if isinstance(department, Mapping) and not str(department.get("email") or "").strip():
                    contact = str(department.get("contactPerson") or "").strip()
                    self._site(named, "department-email",
                               f"department {str(department.get('name') or '')!r}"
                               f"{f' (contact {contact})' if contact else ''} has no contact e-mail",
                               f"add it: wfctl sites edit {named.site_id}")
        if "assessment-document" in self.checks and site.get("assessmentRequired") is True \
                and not site.get("documents"):
            self._site(named, "assessment-document", "assessmentRequired, but the site holds no document",
                       "add the assessment to the site's documents in the service (the API cannot write "
                       f"documents); or if none is needed: wfctl sites update {named.site_id} "
                       "--no-assessment-required")
        if "inconsistent-bans" in self.checks:
            self._banned.append({"id": named.site_id, "clientId": named.client_id,
                                 "bannedWorkers": bans.banned(site)})
        self._named.append(named)

    def findings(self) -> list[Finding]:
        """Every finding, in CHECKS' order, then by client and record name (the same data always gives the
        same list, whatever order the service lists it in); a site's rates in the site's order."""
        found = list(self._found)
        if "skill-spelling" in self.checks:
            found += self._skill_spellings()
        if "inconsistent-bans" in self.checks:
            found += self._inconsistent_bans()
        if "look-alike-sites" in self.checks:
            found += self._look_alikes()
        order = {name: index for index, name in enumerate(CHECKS)}
        return sorted(found, key=lambda f: (order[f.check], f.client.casefold(), f.clientId, f.name.casefold(), f.id))

    # -- each check ----------------------------------------------------------------
    def _rate(self, named: Named, rate: Mapping[str, Any]) -> None:
        skill = str(rate.get("skill") or "").strip()
        if "skill-spelling" in self.checks:
            key = " ".join(skill.split()).casefold()
            self._skills.setdefault((named.client_id, key), []).append((named, skill))
        try:
            hourly = amount(rate.get("hourlyRate"))
        except RateError:
            return
        for check, floor in (("under-floor", self.floor), ("under-charge-floor", self.charge_floor)):
            if check in self.checks and floor is not None and hourly < floor.amount:
                under = f"the pay floor {floor.describe()}" if check == "under-floor" else \
                    f"the charge floor {floor.amount}"  # its parts: the command's note, docs/payroll.md
                self._site(named, check, f"{skill} {_money(hourly)} an hour, under {under}",
                           f"wfctl rates set --site {named.site_id} --skill {shlex.quote(skill)} "
                           f"--floor {floor.amount}")

    def _skill_spellings(self) -> list[Finding]:
        found = []
        for uses in self._skills.values():
            spellings = Counter(spelling for _, spelling in uses)
            if len(spellings) < 2:
                continue
            usual_spelling = usual(spellings)
            for named, spelling in uses:
                if spelling != usual_spelling:
                    count = spellings[usual_spelling]
                    found.append(_finding(named, "skill-spelling",
                                          f"skill {spelling!r}; {count} site{'s' if count != 1 else ''} of the "
                                          f"client spell{'' if count != 1 else 's'} it {usual_spelling!r}",
                                          f"spell it {usual_spelling!r}: wfctl sites edit {named.site_id}"))
        return found

    def _inconsistent_bans(self) -> list[Finding]:
        names = {named.site_id: named.name for named in self._named}
        found = []
        for item in bans.inconsistent(self._banned):
            missing = _listed([names.get(site, site) for site in item.not_banned_at])
            client = self._clients.get(item.client_id, "")
            found.append(Finding(
                "inconsistent-bans", "client", item.client_id, client, item.client_id, client,
                f"worker {item.worker} is banned at {len(item.banned_at)} of the client's {item.sites} sites; "
                f"not at {missing}",
                f"ban at every site: wfctl bans add {shlex.quote(item.worker)} --client {item.client_id}; or lift "
                f"it: wfctl bans remove {shlex.quote(item.worker)} --client {item.client_id}"))
        return found

    def _look_alikes(self) -> list[Finding]:
        found = []
        for index, others in look_alikes(self._named).items():
            named = self._named[index]
            alike = _listed([f"{self._named[o].name!r} ({self._named[o].client}, {self._named[o].site_id})"
                             for o in others])
            found.append(_finding(named, "look-alike-sites", f"the name looks like {alike}",
                                  f"one place: keep it under one client: wfctl sites delete {named.site_id}; or "
                                  f"tell them apart: wfctl sites update {named.site_id} --name '<name>'"))
        return found

    def _site(self, named: Named, check: str, found: str, fix: str) -> None:
        self._found.append(_finding(named, check, found, fix))


def _finding(named: Named, check: str, found: str, fix: str) -> Finding:
    return Finding(check, "site", named.site_id, named.name, named.client_id, named.client, found, fix)


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _example(check: str) -> str:
    from wfctl.payroll.floors import EXAMPLE

    return "--floor nlw" if check == "under-floor" else f"--charge-floor '{EXAMPLE}'"
