"""Issue 49: the skill of `rate:<skill>` and the department and field of `dept:<name>.<field>` in --columns
and --sort-by are matched as the service matches them (any case, trimmed) and one no site shown has, but one
near it, is refused with the nearest, exit 2, as `--skill` is: they gave a blank column or an unsorted list,
exit 0."""

from __future__ import annotations

from typing import Any


def test_a_misspelt_skill_or_department_is_refused_with_the_nearest(cli: Any, sandbox: Any,
                                                                     agency_client: str) -> None:
    base = ("sites", "list", "--client", agency_client)
    r = cli(*base, "--columns", "Site=name,Forklift=rate:Forklift Drivr")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == ("error: --columns Forklift=rate:Forklift Drivr: no site shown has the skill "
                        "'Forklift Drivr'; did you mean 'Forklift Driver'? (skills shown: Forklift Driver, "
                        "Picker)\n"), r
    r = cli(*base, "--columns", "Goods=dept:Goods Inn.contactPerson", "-o", "csv")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == ("error: --columns Goods=dept:Goods Inn.contactPerson: no site shown has the department "
                        "'Goods Inn'; did you mean 'Goods In'? (departments shown: Goods In, Dispatch)\n"), r
    r = cli(*base, "--sort-by", "-rate:Forklft Driver", "-o", "csv")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr.startswith("error: --sort-by -rate:Forklft Driver: no site shown has the skill "
                               "'Forklft Driver'; did you mean 'Forklift Driver'?"), r
    # nothing near: a skill these sites do not have yet, not a slip; a blank column, as a client with no
    # forklift rate yet shows one (tests/terminal/test_query_tables.py)
    r = cli(*base, "--columns", "Site=name,Welder=rate:Welder", "-o", "csv")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert r.stdout.splitlines()[0] == "Site,Welder" and all(line.endswith(",") for line in r.stdout.splitlines()[1:])


def test_a_department_field_is_spelled_as_the_service_spells_it(cli: Any, sandbox: Any,
                                                                 agency_client: str) -> None:
    base = ("sites", "list", "--client", agency_client, "--sort-by", "name")
    r = cli(*base, "--columns", "Goods=dept:Goods In.contactPersn")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == ("error: --columns Goods=dept:Goods In.contactPersn: a department has no field "
                        "contactPersn; did you mean contactPerson? its fields are name, contactPerson, email\n"), r
    # any case, as --fields matches names; the skill and the department in any case too
    r = cli(*base, "--columns", "Site=name,Goods=dept:goods in.CONTACTPERSON,F=rate:FORKLIFT DRIVER", "-o", "csv")
    assert (r.exit_code, r.stdout) == (0, "Site,Goods,F\nsite 1,Bo Chan,\nSite 2,,12.00\nSite 10,Ann Lee,13.25\n"), r

