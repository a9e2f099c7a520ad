"""Issue 49: a query that needs the whole list (--jq, --sort-by) reads every page without --all, as
docs/queries.md says; --sort-by with --fields shows exactly the fields asked, in the order asked, in
every format."""

from __future__ import annotations

import json
from typing import Any


def test_jq_and_sort_by_read_every_page_without_all(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "list", "--client", agency_client, "--page-size", "1", "--jq", "length")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "3\n", "")
    r = cli("sites", "list", "--client", agency_client, "--page-size", "1", "--sort-by", "name", "-o", "jsonl",
            "--fields", "name")
    assert (r.exit_code, r.stdout) == (0, '{"name":"site 1"}\n{"name":"Site 2"}\n{"name":"Site 10"}\n'), r
    # --jq-each streams each record: a page is what it was asked for
    r = cli("sites", "list", "--client", agency_client, "--page-size", "1", "--jq-each", ".name", "-o", "jsonl")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 1, r  # the first page's one record


def test_sort_by_with_fields_shows_exactly_the_fields_in_their_order(cli: Any, sandbox: Any,
                                                                     agency_client: str) -> None:
    base = ("sites", "list", "--client", agency_client, "--sort-by", "-name", "--fields", "phone,name")
    r = cli(*base)
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert r.stdout == ("phone  name\n"
                        "0427   Site 10\n"
                        "yes    Site 2\n"
                        "1e3    site 1\n")
    r = cli(*base, "-o", "csv")
    assert (r.exit_code, r.stdout) == (0, "phone,name\n0427,Site 10\nyes,Site 2\n1e3,site 1\n"), r
    r = cli(*base, "-o", "json")
    assert json.loads(r.stdout) == [{"phone": "0427", "name": "Site 10"}, {"phone": "yes", "name": "Site 2"},
                                    {"phone": "1e3", "name": "site 1"}]
    r = cli(*base, "-o", "wide")
    assert r.stdout.splitlines()[0].split() == ["phone", "name"], r


def test_sort_by_and_columns_match_names_as_fields_does_and_refuse_unknown_ones(cli: Any, sandbox: Any,
                                                                               agency_client: str) -> None:
    base = ("sites", "list", "--client", agency_client)
    r = cli(*base, "--sort-by", "-NAME", "--fields", "name", "-o", "jsonl")
    assert (r.exit_code, r.stdout) == (0, '{"name":"Site 10"}\n{"name":"Site 2"}\n{"name":"site 1"}\n'), r
    r = cli(*base, "--columns", "Site=Name,Phone=phone", "--sort-by", "name", "-o", "csv")
    assert (r.exit_code, r.stdout) == (0, "Site,Phone\nsite 1,1e3\nSite 2,yes\nSite 10,0427\n"), r
    r = cli(*base, "--sort-by", "nme")
    assert r.exit_code == 2 and r.stdout == "", r
    assert r.stderr.startswith("error: --sort-by nme: unknown field; did you mean name? a site's fields are id, "), r
    r = cli(*base, "--columns", "Site=nme")
    assert r.exit_code == 2 and r.stderr.startswith("error: --columns nme: unknown field; did you mean name? "), r
    # rows of no record kind (rates list's) are matched by the fields they carry
    r = cli("rates", "list", "--client", agency_client, "--sort-by", "-hourlyrate", "-o", "jsonl", "--jq-each",
            ".hourlyRate")
    assert (r.exit_code, r.stdout) == (0, "13.25\n12.0\n11.5\n"), r
    r = cli("rates", "list", "--client", agency_client, "--sort-by", "-hourlyRat")
    assert r.exit_code == 2 and r.stderr.startswith("error: --sort-by hourlyRat: unknown field; did you mean "
                                                    "hourlyRate? the rows' fields are "), r
