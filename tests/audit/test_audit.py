"""`wfctl audit` against a real sandbox: data made to trip each check, the findings as a person reads them
on a terminal and as a pipe and CI read them (-o json, csv), exit 0 on clean data and 1 with findings, the
scope options, and the one-line refusals (exit 2) before anything is read."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from tests.audit.conftest import World
from tests.fixtures.sandbox import ADMIN

DAY = "2026-11-28"
CHARGE = "pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60"  # 17.48


def finding(check: str, site_id: str, name: str, client_id: str, client: str, branch_id: str, branch: str,
            found: str, fix: str, kind: str = "site") -> dict[str, str]:
    return {"check": check, "kind": kind, "id": site_id, "name": name, "clientId": client_id, "client": client,
            "branchId": branch_id, "branch": branch, "found": found, "fix": fix}


def expected(w: World) -> list[dict[str, str]]:
    """Every finding of `audit --all-clients --floor 12.71 --charge-floor CHARGE`, in order."""
    a = (w.ashworth, "Ashworth Foods", w.branch_one, "Audit North")
    c = (w.calder, "Calder Logistics", w.branch_two, "Audit South")
    under = "wfctl rates set --site {} --skill {} --floor {}"
    return [
        finding("no-rates", w.dock, "Ardwick Cross-Dock", *a, "no hourly rate for any skill",
                f"add one: wfctl sites update {w.dock} --set-rate '<skill>=<amount>'"),
        finding("under-floor", w.bakery, "Ashworth Bakery", *a,
                "Picker Packer 11.85 an hour, under the pay floor 12.71", under.format(w.bakery, "'Picker Packer'", "12.71")),
        *[finding("under-charge-floor", site, name, *a, f"{skill} {rate} an hour, under the charge floor 17.48",
                  under.format(site, quoted, "17.48"))
          for site, name, skill, quoted, rate in [
              (w.bakery, "Ashworth Bakery", "Forklift Driver", "'Forklift Driver'", "13.00"),
              (w.bakery, "Ashworth Bakery", "Picker Packer", "'Picker Packer'", "11.85"),
              (w.cold, "Ashworth Cold Store", "Forklift driver", "'Forklift driver'", "12.80"),
              (w.cold, "Ashworth Cold Store", "Cleaner", "Cleaner", "12.71")]],
        finding("skill-spelling", w.cold, "Ashworth Cold Store", *a,
                "skill 'Forklift driver'; 1 site of the client spells it 'Forklift Driver'",
                f"spell it 'Forklift Driver': wfctl sites edit {w.cold}"),
        finding("department-email", w.cold, "Ashworth Cold Store", *a,
                "department 'Dispatch' (contact Bob Ray) has no contact e-mail", f"add it: wfctl sites edit {w.cold}"),
        finding("assessment-document", w.dock, "Ardwick Cross-Dock", *a,
                "assessmentRequired, but the site holds no document",
                "add the assessment to the site's documents in the service (the API cannot write documents); or if "
                f"none is needed: wfctl sites update {w.dock} --no-assessment-required"),
        finding("inconsistent-bans", w.ashworth, "Ashworth Foods", *a,
                "worker W-1 is banned at 2 of the client's 3 sites; not at Ardwick Cross-Dock",
                f"ban at every site: wfctl bans add W-1 --client {w.ashworth}; or lift it: wfctl bans remove W-1 "
                f"--client {w.ashworth}", kind="client"),
        finding("look-alike-sites", w.dock, "Ardwick Cross-Dock", *a,
                f"the name looks like 'ardwick crossdock ltd' (Calder Logistics, {w.crossdock})",
                f"one place: keep it under one client: wfctl sites delete {w.dock}; or tell them apart: wfctl sites "
                f"update {w.dock} --name '<name>'"),
        finding("look-alike-sites", w.crossdock, "ardwick crossdock ltd", *c,
                f"the name looks like 'Ardwick Cross-Dock' (Ashworth Foods, {w.dock})",
                f"one place: keep it under one client: wfctl sites delete {w.crossdock}; or tell them apart: wfctl "
                f"sites update {w.crossdock} --name '<name>'"),
    ]


def test_every_check_finds_what_it_should_as_json_exit_1(wf: Any, world: World) -> None:
    r = wf("audit", "--all-clients", "--floor", "12.71", "--charge-floor", CHARGE, "-o", "json")
    assert (r.exit_code, r.stderr) == (1, "")
    assert json.loads(r.stdout) == expected(world)


def test_clean_data_is_exit_0_and_an_empty_list(wf: Any, world: World) -> None:
    r = wf("audit", "--client", "Kirkby Cleaning", "--floor", "nlw", "--on", DAY, "--charge-floor", CHARGE,
           "-o", "json")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "[]\n", "")
    r = wf("audit", "--client", world.kirkby, "-o", "csv")
    assert (r.exit_code, r.stdout) == (0, "check,kind,id,name,clientId,client,branchId,branch,found,fix\n")
    r = wf("audit", "--client", world.kirkby, tty=True)
    assert (r.exit_code, r.stdout) == (0, "")
    assert r.stderr == ("no findings in 1 site\n"
                        "not checked: under-floor (--floor), under-charge-floor (--charge-floor)\n")


def test_csv_has_one_finding_a_row(wf: Any, world: World) -> None:
    r = wf("audit", "--all-clients", "--floor", "12.71", "--charge-floor", CHARGE, "-o", "csv")
    assert r.exit_code == 1, r
    assert list(csv.DictReader(io.StringIO(r.stdout))) == expected(world)


def test_a_terminal_shows_each_check_with_its_findings(wf: Any, world: World) -> None:
    r = wf("audit", "--client", "Ashworth Foods", "--only", "no-rates", "--only", "assessment-document", tty=True,
           env={"COLUMNS": "80"})
    assert r.exit_code == 1, r
    dock = world.dock
    assert r.stdout == (
        "no-rates (1): sites without rates\n"
        "  Ardwick Cross-Dock (site of Ashworth Foods)\n"
        "    no hourly rate for any skill\n"
        f"    fix: add one: wfctl sites update {dock} --set-rate '<skill>=<amount>'\n"
        "\n"
        "assessment-document (1): sites that require an assessment but hold no document\n"
        "  Ardwick Cross-Dock (site of Ashworth Foods)\n"
        "    assessmentRequired, but the site holds no document\n"
        "    fix: add the assessment to the site's documents in the service (the API cannot write documents)\n"
        f"    or:  if none is needed: wfctl sites update {dock} --no-assessment-required\n")
    assert r.stderr == "2 findings in 3 sites\n"


def test_a_pipe_gets_a_plain_table_of_every_field(wf: Any, world: World) -> None:
    r = wf("audit", "--client", world.ashworth, "--only", "department-email")
    assert (r.exit_code, r.stderr) == (1, "")
    header, row = r.stdout.splitlines()
    assert header.split() == ["check", "kind", "id", "name", "clientId", "client", "branchId", "branch", "found",
                              "fix"]
    assert row.split("  ")[0] == "department-email"
    assert row.endswith(f"department 'Dispatch' (contact Bob Ray) has no contact e-mail  add it: wfctl sites edit "
                        f"{world.cold}")


def test_the_scope_options(wf: Any, world: World) -> None:
    def found(*scope: str) -> list[tuple[str, str]]:
        r = wf("audit", *scope, "--only", "look-alike-sites", "--only", "inconsistent-bans", "-o", "json")
        assert r.exit_code in (0, 1), r
        return [(row["check"], row["name"]) for row in json.loads(r.stdout)]

    both = [("inconsistent-bans", "Ashworth Foods"), ("look-alike-sites", "Ardwick Cross-Dock"),
            ("look-alike-sites", "ardwick crossdock ltd")]
    assert found("--all-clients") == both
    assert found("--client", "Ashworth Foods", "--client", "Calder Logistics") == both
    assert found("--branch", "Audit North") == [("inconsistent-bans", "Ashworth Foods")]  # one client: none alike
    assert found("--branch", "Audit South") == []
    assert found("--site", world.dock, "--site", "ardwick crossdock ltd") == both[1:]  # bans: one site a client


@pytest.mark.parametrize(("args", "line"), [
    ([], "error: give the sites: --client <client>, --branch <branch>, --all-clients or --site <site>"),
    (["--all-clients", "--client", "x"], "error: --all-clients already takes every site; leave out --client, "
                                         "--branch and --site"),
    (["--all-clients", "--only", "spelling"], "error: unknown check 'spelling'; the checks are no-rates, "
     "under-floor, under-charge-floor, skill-spelling, department-email, assessment-document, inconsistent-bans, "
     "look-alike-sites"),
    (["--all-clients", "--charge-floor", "pay=12.71,ni=15"], "error: --charge-floor ni=15: a percentage of "
                                                             "earnings, e.g. ni=3%"),
    (["--all-clients", "--floor", "twelve"], "error: --floor 'twelve': not a number (e.g. 12.21); or "
                                             "nlw[:21+|18-20|16-17|apprentice], the statutory rate"),
    (["--all-clients", "--floor", "nlw", "--on", "2027-04-01"], "error: --floor nlw: wfctl's table of statutory "
     "rates (checked 2026-11-27) holds the rates until 2027-03-31; the rates from 2027-04-01 are not in it: give "
     "the amount (--floor 13.00), or upgrade wfctl"),
    (["--all-clients", "--only", "under-charge-floor"], "error: --only under-charge-floor needs --charge-floor, "
     "e.g. --charge-floor 'pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60'"),
])
def test_bad_usage_is_one_line_exit_2_before_anything_is_read(cli: Any, args: list[str], line: str) -> None:
    r = cli("--base-url", "http://127.0.0.1:9", "audit", *args)  # nothing listens there: nothing was read
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", line + "\n")


def test_nlw_on_a_date_is_that_dates_rate(wf: Any, world: World) -> None:
    def under(*floor: str) -> list[str]:
        r = wf("audit", "--client", world.ashworth, "--only", "under-floor", *floor, "-o", "json")
        return [row["found"] for row in json.loads(r.stdout)]

    assert under("--floor", "nlw", "--on", "2026-03-31") == ["Picker Packer 11.85 an hour, under the pay floor "
                                                             "12.21 (nlw 21+ on 2026-03-31)"]
    assert under("--floor", "nlw", "--on", "2026-04-06") == [
        "Picker Packer 11.85 an hour, under the pay floor 12.71 (nlw 21+ on 2026-04-06)"]  # Cleaner 12.71: on it
    assert under("--floor", "nlw:18-20", "--on", "2026-04-06") == []


def test_a_failed_read_is_not_exit_1(cli: Any, world: World) -> None:
    from tests.fixtures.sandbox import SandboxServer

    r = cli("--base-url", world.url, "audit", "--all-clients", env={"WFCTL_ACCESS_TOKEN": "not-a-token"})
    assert r.exit_code == 3, r  # not logged in: its own code
    odd = SandboxServer(world.db_path, seed=False, quirks=["empty-get"])  # a site's GET answers an empty body
    try:
        assert cli.login_as(odd.url, *ADMIN).exit_code == 0
        r = cli("audit", "--client", world.kirkby)
    finally:
        odd.stop()
    assert (r.exit_code, r.stdout) == (2, ""), r  # an unexpected answer: 2 with its line, never 1 ("findings")
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr


def test_a_terminal_is_told_the_charge_floor_and_its_parts(wf: Any, world: World) -> None:
    r = wf("audit", "--client", "Calder Logistics", "--only", "under-charge-floor", "--charge-floor",
           "pay=nlw,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60", "--on", "2026-04-06", tty=True)
    assert (r.exit_code, r.stdout) == (0, "")  # 17.50 and 17.48: on or over the floor
    assert r.stderr == ("--charge-floor is 17.48 (pay 12.71 (nlw 21+ on 2026-04-06) + holiday 12.07% + ni 15% + "
                        "pension 3% + levy 0.5% + overhead 0.60)\nno findings in 2 sites\n")
