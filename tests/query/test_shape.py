"""--sort-by, --columns and -o yaml (issue 34 §2), and `wfctl jq` on a saved file (§1). A list sorted and
shaped by --sort-by and --columns is asked of its run half: tests/fast/test_shape.py."""

from __future__ import annotations

import json
from typing import Any

import yaml


def test_sort_by_numbers_as_numbers(cli: Any, tmp_path: Any) -> None:
    from wfctl.render.sortcolumns import parse_sort, sort_rows

    rows = [{"n": 10}, {"n": 9}, {"n": 100}, {"n": None}, {"n": 9.5}, {}]
    assert [row.get("n") for row in sort_rows(rows, parse_sort("n") or [])] == [9, 9.5, 10, 100, None, None]
    assert [row.get("n") for row in sort_rows(rows, parse_sort("-n") or [])] == [100, 10, 9.5, 9, None, None]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    r = cli("jq", "-c", "map(.n)", str(path))
    assert r.stdout == "[10,9,100,null,9.5,null]\n"


def test_yaml_keeps_text_as_text(cli: Any, sandbox: Any, agency_client: str) -> None:
    r = cli("sites", "export", "--client", agency_client, "--sort-by", "name", "-o", "yaml",
            "--jq-each", "{name, phone, assessmentRequired, rates}")
    assert r.exit_code == 0, r
    assert r.stdout == ("name: site 1\nphone: '1e3'\nassessmentRequired: false\nrates: []\n"
                        "---\nname: Site 2\nphone: 'yes'\nassessmentRequired: true\n"
                        "rates:\n- skill: forklift driver\n  hourlyRate: 12.0\n"
                        "---\nname: Site 10\nphone: '0427'\nassessmentRequired: false\n"
                        "rates:\n- skill: Forklift Driver\n  hourlyRate: 13.25\n- skill: Picker\n  hourlyRate: 11.5\n")
    documents = list(yaml.safe_load_all(r.stdout))
    assert [d["phone"] for d in documents] == ["1e3", "yes", "0427"]
    r = cli("sites", "list", "--client", agency_client, "-o", "yaml")
    listed = yaml.safe_load(r.stdout)
    assert sorted(site["phone"] for site in listed) == ["0427", "1e3", "yes"]
    assert listed == json.loads(cli("sites", "list", "--client", agency_client, "-o", "json").stdout)
    from wfctl.render.yamltext import dump

    texts = ["0427", "yes", "no", "on", "1e3", "null", "~", "", " x", "1:20", ".inf", "0x1f", "2026-01-01",
             "true", "12", "-1.5", "Forklift Driver"]
    assert yaml.safe_load(dump(texts)) == texts
    assert dump({"id": 123456789012345678901234567890}) == "id: 123456789012345678901234567890\n"


def test_yaml_everywhere_json_works(cli: Any, sandbox: Any, agency_client: str) -> None:
    for args in (["agency", "show"], ["branches", "list"], ["clients", "get", agency_client], ["config", "list"],
                 ["rates", "list", "--client", agency_client], ["rates", "summary", "--client", agency_client],
                 ["auth", "status"], ["imports", "list"]):
        as_json = cli(*args, "-o", "json")
        as_yaml = cli(*args, "-o", "yaml")
        assert (as_yaml.exit_code, as_yaml.stderr) == (0, as_json.stderr), (args, as_yaml)
        drop = ("accessTokenExpiresIn",)
        left, right = yaml.safe_load(as_yaml.stdout), json.loads(as_json.stdout)
        if isinstance(left, dict):
            left = {k: v for k, v in left.items() if k not in drop}
            right = {k: v for k, v in right.items() if k not in drop}
        assert left == right, args


def test_wfctl_jq_on_saved_json_and_jsonl(cli: Any, sandbox: Any, agency_client: str, tmp_path: Any) -> None:
    saved = tmp_path / "sites.json"
    saved.write_text(cli("sites", "export", "--client", agency_client, "-o", "json").stdout, encoding="utf-8")
    lines = tmp_path / "sites.jsonl"
    lines.write_text(cli("sites", "export", "--client", agency_client, "-o", "jsonl").stdout, encoding="utf-8")
    expression = "[.[] | select(.bannedWorkers | length > 0) | .name] | sort"
    live = cli("sites", "export", "--client", agency_client, "--jq", expression, "-o", "json")
    assert live.stdout == '["Site 10","Site 2"]\n'
    assert cli("jq", "-c", expression, str(saved)).stdout == live.stdout
    assert cli("jq", "-cs", expression, str(lines)).stdout == live.stdout
    assert cli("jq", "-c", expression, "-", input=saved.read_text(encoding="utf-8")).stdout == live.stdout
    assert cli("jq", ".name", str(lines), "-o", "table").stdout.count("\n") == 3
    r = cli("jq", "-c", "--arg", "n", "Site 2", '.[] | select(.name == $n) | .bannedWorkers', str(saved))
    assert (r.exit_code, r.stdout) == (0, '["w-3"]\n'), r


def test_wfctl_jq_keeps_every_digit_and_says_what_is_wrong(cli: Any, tmp_path: Any) -> None:
    path = tmp_path / "workers.jsonl"
    path.write_text('{"id": 123456789012345678901234567890, "n": 9007199254740993}\n{"id": 1, "n": 2}\n',
                    encoding="utf-8")
    r = cli("jq", ".id", str(path))
    assert (r.exit_code, r.stdout) == (0, "123456789012345678901234567890\n1\n"), r
    r = cli("jq", "-s", "map(.n)", str(path), "-o", "yaml")
    assert r.stdout == "- 9007199254740993\n- 2\n"
    r = cli("jq", "--argjson", "big", "9007199254740993", "$big", str(path))
    assert r.stdout == "9007199254740993\n9007199254740993\n"
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": ', encoding="utf-8")
    r = cli("jq", ".", str(broken))
    assert (r.exit_code, r.stdout) == (2, ""), r
    assert r.stderr == f"error: {broken}: not JSON: parse error: Unfinished JSON term at EOF at line 1, column 6\n"
    r = cli("jq", ".", str(tmp_path / "missing.json"))
    assert (r.exit_code, r.stderr) == (2, f"error: {tmp_path / 'missing.json'}: no such file\n"), r
    r = cli("jq", ".[", str(path))
    assert r.stderr == ("error: jq: error: syntax error, unexpected end of file at <top-level>, line 1, "
                        "column 2\n")
    r = cli("jq", "env", str(path), env={"WFCTL_ACCESS_TOKEN": "secret-token-value"})
    assert (r.exit_code, r.stdout) == (0, "{}\n{}\n"), r


def test_columns_and_sort_shape_a_rates_workbook(cli: Any, sandbox: Any, agency_client: str, tmp_path: Any) -> None:
    import openpyxl

    path = tmp_path / "rates.xlsx"
    r = cli("rates", "list", "--client", agency_client, "--file", str(path), "--sort-by", "-hourlyRate",
            "--columns", "Site=site,Skill=skill,Rate=hourlyRate")
    assert r.exit_code == 0, r
    sheet = openpyxl.load_workbook(path).active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert rows == [["Site", "Skill", "Rate"], ["Site 10", "Forklift Driver", 13.25],
                    ["Site 2", "forklift driver", 12.0], ["Site 10", "Picker", 11.5]]
    assert [row[2].number_format for row in sheet.iter_rows(min_row=2)] == ["0.00"] * 3
    r = cli("rates", "list", "--client", agency_client, "--file", str(tmp_path / "r.csv"), "--jq", ".")
    assert (r.exit_code, r.stderr) == (2, "error: --file writes the rates as rows: --columns and --sort-by shape "
                                          "them; --jq prints to stdout, leave out --file\n"), r
