"""`rates set --effective DATE` and `--floor nlw` against a real sandbox: the plan names the pay week the
change lands in, a run before that week starts is refused (exit 2, saying when it may run, nothing read or
sent), `--now` sends anyway, and `--floor nlw` is the statutory rate of the date (issue 35 §2)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from tests.matrix.conftest import Deployment, Run
from wfctl.payroll.calendar import AgencyCalendar, effective_week

pytestmark = pytest.mark.parametrize("deployment", ["default"], indirect=True)


def a_site(deployment: Deployment) -> tuple[str, dict[str, Any]]:
    client = deployment.client()
    site = deployment.site(client["id"], rates=[{"skill": "Picker Packer", "hourlyRate": 11.85},
                                                {"skill": "Forklift Driver", "hourlyRate": 13.25}])
    return client["id"], deployment.get("sites", site["id"])  # type: ignore[return-value]


def rates_of(record: dict[str, Any] | None) -> dict[str, float]:
    assert record is not None
    return {r["skill"]: r["hourlyRate"] for r in record["rates"]}


def test_a_change_that_must_wait_is_refused_then_sent_with_now(deployment: Deployment, run: Run) -> None:
    client_id, before = a_site(deployment)
    agency = json.loads(run("agency", "show", "-o", "json").stdout)
    day = dt.date.today() + dt.timedelta(days=20)
    week = effective_week(AgencyCalendar.from_fields(agency), day)
    days = (week.commencing - dt.date.today()).days
    args = ("rates", "set", "--client", client_id, "--skill", "Picker Packer", "--to", "13.40",
            "--effective", day.isoformat())
    r = run(*args)
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == (f"error: this change lands in week {week.number}, commencing {week.commencing}, ending "
                        f"{week.ending}: it may be sent from {week.commencing:%A} {week.commencing} (in {days} days); "
                        "run the same command then, or add --now to send it now; nothing was sent\n")
    assert deployment.get("sites", before["id"]) == before

    plan = run(*args, "--dry-run", "-o", "json")  # a plan may be looked at any time
    assert plan.exit_code == 0, plan
    assert json.loads(plan.stdout)["summary"]["effective"] == {
        "effective": day.isoformat(), "week": week.number, "commencing": week.commencing.isoformat(),
        "ending": week.ending.isoformat(), "year": f"{week.year[0]}/{week.year[1]}",
        "statement": f"lands in week {week.number}, commencing {week.commencing}, ending {week.ending}"}
    assert deployment.get("sites", before["id"]) == before

    r = run(*args, "--now")
    assert r.exit_code == 0, r
    lines = r.stderr.splitlines()
    assert lines[0] == f"sending now (--now), before the week this change lands in: {week.describe()}"
    assert lines[1] == f"this change lands in {week.describe()} (effective {day})"
    assert lines[2].startswith("run ") and lines[2].endswith(": updated 1")
    assert rates_of(deployment.get("sites", before["id"])) == {"Picker Packer": 13.40, "Forklift Driver": 13.25}


def test_an_april_uplift_is_one_command(deployment: Deployment, run: Run) -> None:
    client_id, before = a_site(deployment)
    args = ("rates", "set", "--client", client_id, "--skill", "Picker Packer", "--skill", "Forklift Driver",
            "--floor", "nlw", "--effective", "2026-04-01")
    plan = run(*args, "--dry-run")
    assert plan.exit_code == 0, plan
    assert plan.stderr == ("--floor nlw is 12.71 an hour: the statutory rate for those aged 21 and over (National "
                           "Living Wage) in force on 2026-04-01 (since 2026-04-01; `wfctl help rates`)\n")
    lines = plan.stdout.splitlines()
    assert lines[0] == "lands in week 15, commencing 2026-04-06, ending 2026-04-12 (effective 2026-04-01)"
    assert lines[2].split()[-3:] == ["11.85", "12.71", "+0.86"]
    assert "Forklift Driver" not in plan.stdout.split("sites to change")[0]  # 13.25 is above the floor
    r = run(*args)  # the week began long ago: sent at once
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[1] == ("this change lands in week 15, commencing 2026-04-06, ending 2026-04-12 "
                                        "(effective 2026-04-01)")
    assert rates_of(deployment.get("sites", before["id"])) == {"Picker Packer": 12.71, "Forklift Driver": 13.25}
    listed = json.loads(run("imports", "list", "-o", "json").stdout)[0]
    assert listed["file"] == (f"rates set --skill 'Picker Packer' --skill 'Forklift Driver' --floor 12.71 "
                              f"--client {client_id} --effective 2026-04-01")

    young = run("rates", "set", "--client", client_id, "--skill", "Cleaner", "--floor", "nlw:18-20",
                "--effective", "2025-06-30", "--add-missing", "-o", "json")
    assert young.exit_code == 0, young
    assert rates_of(deployment.get("sites", before["id"]))["Cleaner"] == 10.00


@pytest.mark.parametrize(("extra", "message"), [
    (("--to", "13.00", "--now"), "error: --now goes with --effective DATE (a change without a date is sent when it runs)\n"),
    (("--to", "13.00", "--effective", "1 April"),
     "error: --effective '1 April': not a date; write it YYYY-MM-DD, e.g. 2026-04-06\n"),
    (("--floor", "nlw:adult", "--effective", "2026-04-01"),
     "error: --floor nlw:adult: unknown band 'adult'; nlw takes one of 21+, 18-20, 16-17, apprentice (nlw alone is 21+)\n"),
    (("--floor", "nlw", "--effective", "2023-04-01"),
     "error: --floor nlw: wfctl's table of statutory rates starts on 2024-04-01; give the amount for an earlier date "
     "(--floor 10.42)\n"),
])
def test_bad_effective_or_statutory_floor_is_one_line(deployment: Deployment, run: Run, extra: tuple[str, ...],
                                                      message: str) -> None:
    client_id, before = a_site(deployment)
    r = run("rates", "set", "--client", client_id, "--skill", "Picker Packer", *extra)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", message)
    assert deployment.get("sites", before["id"]) == before
