"""--jq, --jq-each, --arg, --argjson (issue 34 §1): once on the whole result across every page, the same
answer whatever -o, jq's own messages, no environment, every digit of a big integer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN
from tests.query.conftest import make_client

NAMES = ["Site 10", "Site 2", "site 1"]  # the service's order: as created


def test_jq_runs_once_on_every_page_whatever_the_page_size_and_format(cli: Any, sandbox: Any,
                                                                       agency_client: str) -> None:
    for page_size in ("1", "2", "100"):
        r = cli("sites", "list", "--client", agency_client, "--all", "--page-size", page_size, "--jq", "length",
                "-o", "json")
        assert (r.exit_code, r.stdout, r.stderr) == (0, "3\n", ""), r
    for fmt, shown in (("json", "3\n"), ("jsonl", "3\n"), ("yaml", "3\n"), ("table", "3\n")):
        r = cli("sites", "list", "--client", agency_client, "--all", "--page-size", "1", "--jq", "length",
                "-o", fmt)
        assert (r.exit_code, r.stdout) == (0, shown), (fmt, r)


def test_a_filter_of_names_in_a_pipe_and_on_a_terminal(cli: Any, sandbox: Any, agency_client: str) -> None:
    expression = ".[] | select(.assessmentRequired | not) | .name"
    sort = ("--sort-by", "-name")  # the service's order of records made in one second is their ids'
    r = cli("sites", "list", "--client", agency_client, *sort, "--jq", expression)  # the default: text as it is
    assert (r.exit_code, r.stdout, r.stderr) == (0, "Site 10\nsite 1\n", ""), r
    r = cli("sites", "list", "--client", agency_client, *sort, "--jq", expression, "-o", "json")  # as jq prints it
    assert r.stdout == '"Site 10"\n"site 1"\n'
    pick = "map({name, assessmentRequired})"
    r = cli("sites", "list", "--client", agency_client, *sort, "--jq", pick, "-o", "json", tty=True)
    assert r.stdout == ('[\n  {\n    "name": "Site 10",\n    "assessmentRequired": false\n  },\n'
                        '  {\n    "name": "Site 2",\n    "assessmentRequired": true\n  },\n'
                        '  {\n    "name": "site 1",\n    "assessmentRequired": false\n  }\n]\n')
    r = cli("sites", "list", "--client", agency_client, *sort, "--jq", pick)
    assert r.stdout == ("name     assessmentRequired\nSite 10  false\nSite 2   true\nsite 1   false\n")
    r = cli("sites", "list", "--client", agency_client, *sort, "--jq", pick, tty=True)
    assert r.exit_code == 0, r
    assert [line.split() for line in r.stdout.splitlines() if "Site" in line or "site" in line] == [
        ["Site", "10", "false"], ["Site", "2", "true"], ["site", "1", "false"]]


def test_jq_each_streams_one_result_a_record(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "list", "--client", agency_client, "--all", "--page-size", "1", "--jq-each", "{name}",
            "-o", "jsonl")
    assert r.exit_code == 0, r
    assert sorted(r.stdout.splitlines()) == ['{"name":"Site 10"}', '{"name":"Site 2"}', '{"name":"site 1"}']
    r = cli("sites", "list", "--client", agency_client, "--jq-each", "length", "-o", "json")
    assert r.stdout == "3\n" * 0 + "".join(f"{n}\n" for n in _lengths(cli, agency_client))


def _lengths(cli: Any, client_id: str) -> list[int]:
    rows = json.loads(cli("sites", "list", "--client", client_id, "-o", "json").stdout)
    return [len(row) for row in rows]


def test_arg_and_argjson_bind_variables(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "export", "--client", agency_client, "--arg", "skill", "forklift driver",
            "--argjson", "over", "12.5",
            "--jq", '[.[] | {name, rate: ((.rates[] | select((.skill | ascii_downcase) == $skill) | .hourlyRate)'
                    ' // null)} | select(.rate != null and .rate > $over) | .name]', "-o", "json")
    assert (r.exit_code, r.stdout) == (0, '["Site 10"]\n'), r
    r = cli("sites", "list", "--client", agency_client, "--arg", "a", "x", "--jq", "$ARGS.named", "-o", "json")
    assert r.stdout == '{"a":"x"}\n'
    r = cli("sites", "list", "--client", agency_client, "--argjson", "n", "{", "--jq", "$n")
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", "error: --argjson n: invalid JSON text: {\n"), r
    r = cli("sites", "list", "--client", agency_client, "--arg", "x", "1")
    assert (r.exit_code, r.stderr) == (2, "error: --arg and --argjson name variables of a --jq or --jq-each "
                                          "filter: give one\n"), r


def test_no_filter_reads_the_environment(cli: Any, sandbox: Any) -> None:
    cli.login_as(sandbox.url, *ADMIN)
    token = cli("auth", "token").stdout.strip()
    assert token
    env = {"WFCTL_ACCESS_TOKEN": token, "WFCTL_BASE_URL": sandbox.url}
    for expression in ("env", "$ENV", "[env, $ENV] | tostring", "$__loc__"):
        r = cli("agency", "show", "--jq", expression, "-o", "json", env=env)
        assert r.exit_code == 0, r
        assert token not in r.stdout and token[:20] not in r.stdout
    assert cli("agency", "show", "--jq", "env", "-o", "json", env=env).stdout == "{}\n"
    assert cli("agency", "show", "--jq", "$ENV", "-o", "json", env=env).stdout == "{}\n"
    r = cli.subprocess("agency", "show", "--jq", "env", "-o", "json", env=env)
    assert (r.returncode if hasattr(r, "returncode") else r.exit_code, r.stdout) == (0, "{}\n"), r


def test_jq_errors_are_jq_words_on_one_line(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "list", "--client", agency_client, "--jq", ".[0")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == ("error: --jq: jq: error: syntax error, unexpected end of file, expecting '|' or ',' or "
                        "':' or ']' at <top-level>, line 1, column 3\n")
    r = cli("sites", "list", "--client", agency_client, "--jq", ".[0].name.x")
    assert (r.exit_code, r.stderr) == (5, 'error: --jq: jq: error: Cannot index string with string ("x")\n'), r
    r = cli("sites", "list", "--client", agency_client, "--jq", "$nope")
    assert r.stderr == "error: --jq: jq: error: $nope is not defined at <top-level>, line 1, column 1\n"
    r = cli("sites", "list", "--client", agency_client, "--jq", ".", "--jq-each", ".")
    assert (r.exit_code, r.stderr) == (2, "error: give --jq or --jq-each, not both (--jq-each's results are a "
                                          "stream; --jq reads the whole)\n"), r
    r = cli("sites", "list", "--client", agency_client, "--jq", "error(\"stop\")", "-o", "json")
    assert r.exit_code == 5  # a filter failing on the data: jq's status, and not "usage" (issue 44)
    assert json.loads(r.stderr)["error"] == {"status": None, "code": "jq", "title": "--jq: jq: error: stop",
                                             "detail": None, "errors": {}}


def test_results_a_table_or_csv_cannot_show_are_a_clear_error(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "export", "--client", agency_client, "--jq", "map({name, rates})", "-o", "csv")
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == ("error: --jq: -o csv writes flat records, and the field rates holds a list or an object; "
                        "pick its parts in the filter, or use -o json, jsonl or yaml\n")
    r = cli("sites", "list", "--client", agency_client, "--jq", "[.[0].name, {a: 1}]")
    assert (r.exit_code, r.stderr) == (2, "error: --jq: -o table shows a list of records (objects), and the "
                                          "result holds text and objects; -o json, jsonl or yaml shows any "
                                          "result\n"), r
    r = cli("sites", "list", "--client", agency_client, "--jq", "map(.name)", "-o", "csv")
    assert r.exit_code == 2
    r = cli("sites", "export", "--client", agency_client, "--sort-by", "name", "--jq",
            "map({name, rates: (.rates | length)})", "-o", "csv")
    assert (r.exit_code, r.stdout) == (0, "name,rates\nsite 1,0\nSite 2,1\nSite 10,2\n"), r


def test_every_command_of_the_issue_takes_jq(cli: Any, sandbox: Any, agency_client: str) -> None:
    site = cli("sites", "list", "--client", agency_client, "--jq", '.[] | select(.name == "Site 10") | .id').stdout.strip()
    mine = f'map(select(.id == "{agency_client}")) | length'
    commands = [
        (["branches", "list", "--all"], "map(.name) | index(\"Manchester Central\") != null", "true"),
        (["clients", "list", "--all"], mine, "1"),
        (["sites", "get", site], ".name", '"Site 10"'),
        (["clients", "get", agency_client], f'.id == "{agency_client}"', "true"),
        (["sites", "export", "--client", agency_client, "--sort-by", "-name"], "map(.bannedWorkers | length)",
         "[2,1,0]"),
        (["clients", "export", "--branch", "Manchester Central"], mine, "1"),
        (["branches", "export"], "length > 0", "true"),
        (["api", "GET", f"/api/sites/{site}"], ".rates | length", "2"),
        (["api", "GET", f"/api/clients/{agency_client}/sites", "--paginate"], "length", "3"),
        (["rates", "list", "--client", agency_client], "map(.hourlyRate) | add", "36.75"),
        (["rates", "summary", "--client", agency_client], "map(.skill) | sort", '["Forklift Driver","Picker"]'),
        (["agency", "show"], ".name", '"Northwind Staffing"'),
        (["auth", "status"], ".credentialStore", '"file"'),
        (["config", "list"], "map(.key) | index(\"output\") != null", "true"),
        (["imports", "list"], "type", '"array"'),
    ]
    for args, expression, answer in commands:
        r = cli(*args, "--jq", expression, "-o", "json")
        assert (r.exit_code, r.stdout) == (0, answer + "\n"), (args, r)


def test_imports_show_takes_jq(cli: Any, sandbox: Any, tmp_path: Any) -> None:
    cli.login_as(sandbox.url, *ADMIN)
    path = tmp_path / "branches.csv"
    path.write_text("name,address,phone,email\nQuery Branch Z,1 Road,,\n", encoding="utf-8")
    r = cli("branches", "import", str(path), "-o", "json")
    assert r.exit_code == 0, r
    run_id = json.loads(cli("imports", "list", "-o", "json").stdout)[0]["run"]
    r = cli("imports", "show", run_id, "-o", "json")
    assert r.exit_code == 0, r
    document = json.loads(r.stdout)
    r = cli("imports", "show", run_id, "--jq", "[.rows[].action, .summary.run]", "-o", "json")
    assert (r.exit_code, r.stdout) == (0, json.dumps(["create", run_id], separators=(",", ":")) + "\n"), (document, r)


@pytest.mark.parametrize("quirk", ["next-page=int", "next-page=relative", "next-page=object", "next-page=missing"])
def test_the_answer_is_the_same_on_every_paging_form(cli: Any, sandbox_factory: Any, quirk: str) -> None:
    server = sandbox_factory(quirks=[quirk])
    client_id = make_client(cli, server, f"Quirk {quirk}")
    r = cli("sites", "list", "--client", client_id, "--all", "--page-size", "1", "--jq", "map(.name) | sort",
            "-o", "json")
    assert (r.exit_code, r.stdout) == (0, '["Site 10","Site 2","site 1"]\n'), r


def test_plans_and_runs_take_the_query_options(cli: Any, sandbox: Any, agency_client: str, tmp_path: Any) -> None:
    """--jq and -o yaml shape a plan's and a run's document as they shape a list (they were accepted and left
    unused): the answer is the same whatever -o."""
    path = tmp_path / "sites.csv"
    path.write_text("name,address,phone\nSite 3,2 Dock Rd,0161\nSite 10,9 Dock Rd,0427\n", encoding="utf-8")
    plan = ["sites", "import", str(path), "--client", agency_client, "--dry-run", "--on-existing", "update"]
    wanted = '[["create","Site 3"],["update","Site 10"]]\n'
    for fmt in ("json", "jsonl"):
        r = cli(*plan, "-o", fmt, "--jq", "[.rows[] | [.action, .name]]")
        assert (r.exit_code, r.stdout, r.stderr) == (0, wanted, ""), (fmt, r)
    r = cli(*plan, "--jq", ".rows[] | .name")  # a table: the text as it is
    assert (r.exit_code, r.stdout) == (0, "Site 3\nSite 10\n"), r
    r = cli(*plan, "--jq", ".summary | [.created, .updated, .unchanged]", "-o", "json")
    assert (r.exit_code, r.stdout) == (0, "[1,1,0]\n"), r
    r = cli(*plan, "-o", "yaml")
    assert r.exit_code == 0 and r.stdout.startswith("rows:\n- row: 1\n  action: create\n"), r
    r = cli("rates", "set", "--client", agency_client, "--skill", "Picker", "--to", "12.00", "--dry-run",
            "--jq", "[.rows[] | [.site, .old, .new]]", "-o", "json")
    assert (r.exit_code, r.stdout) == (0, '[["Site 10",11.5,12.0]]\n'), r
    r = cli("sites", "import", str(path), "--client", agency_client, "--on-existing", "update",
            "--jq", "[.created, .updated]", "-o", "json")  # a run: its counts, the one document
    assert (r.exit_code, r.stdout) == (0, "[1,1]\n"), r
