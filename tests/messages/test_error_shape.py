"""Issue 24 §4: one error shape. Every error under -o json/jsonl is the README's object with the same keys
(`status` null for an error that is not the service's, which has a stable `code`), click's usage errors
included; `wfctl help` lists its topics; `error:` in one case."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

KEYS = ["status", "code", "title", "detail", "errors"]
MISSING = str(uuid.UUID(int=11))


def _envelope(stderr: str) -> dict[str, Any]:
    error = json.loads(stderr)["error"]
    assert list(error) == KEYS, error
    return dict(error)


@pytest.mark.parametrize("args", [
    ["-o", "json", "sites", "list", "--client", "x", "--bogus"],
    ["sites", "list", "--client", "x", "--bogus", "-o", "json"],
    ["sites", "list", "--client", "x", "--bogus", "--output=jsonl"],
    ["-ojson", "sites", "list", "--client", "x", "--bogus"],
])
def test_a_usage_error_is_the_envelope(cli: Any, args: list[str]) -> None:
    r = cli(*args)
    assert (r.exit_code, r.stdout) == (2, ""), r  # was click's Usage:/Error: block whatever -o said
    assert _envelope(r.stderr) == {"status": None, "code": "usage", "title": "No such option: --bogus (Possible options: --columns)",
                                   "detail": "Usage: wfctl sites list [OPTIONS]", "errors": {}}


def test_a_usage_error_without_json_says_error_in_lower_case(cli: Any) -> None:
    r = cli("sites", "list", "--client", "x", "--bogus")
    assert r.exit_code == 2
    assert r.stderr == ("Usage: wfctl sites list [OPTIONS]\nTry 'wfctl sites list -h' for help.\n\n"
                        "error: No such option: --bogus (Possible options: --columns)\n")  # click's guess; was "Error: ..." beside wfctl's "error: ..."


def test_a_bad_option_value_is_the_envelope_too(cli: Any) -> None:
    r = cli("-o", "json", "sites", "list", "--client", "x", "--page-size", "abc")
    assert r.exit_code == 2
    assert _envelope(r.stderr)["title"] == "--page-size: 'abc' is not a whole number"
    r = cli("sites", "list", "--client", "x", "--page-size", "abc")
    assert r.stderr == "error: --page-size: 'abc' is not a whole number\n"


def test_local_and_service_errors_have_every_key(logged_in: Any) -> None:
    r = logged_in("branches", "delete", MISSING, "-o", "json")  # local: refused before sending
    assert r.exit_code == 2
    local = _envelope(r.stderr)
    assert (local["status"], local["code"], local["detail"]) == (None, "usage", None)
    r = logged_in("branches", "get", MISSING, "-o", "json")  # the service's answer
    assert r.exit_code == 4
    answer = _envelope(r.stderr)
    assert (answer["status"], answer["code"], answer["title"]) == (404, None, "Not Found")
    assert isinstance(answer["detail"], str) and answer["errors"] == {}


def test_a_network_error_has_a_code_and_a_null_status(cli: Any) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = cli("--base-url", f"http://127.0.0.1:{port}", "branches", "list", "-o", "json",
            env={"WFCTL_ACCESS_TOKEN": "t", "WFCTL_TIMEOUT": "2", "WFCTL_OUTAGE_SECONDS": "0"})
    assert r.exit_code == 7, r
    error = _envelope(r.stderr)
    assert (error["status"], error["code"]) == (None, "network")


def test_help_without_a_topic_lists_the_topics(cli: Any) -> None:
    r = cli("help")
    assert (r.exit_code, r.stderr) == (0, ""), r  # was: the group's usage, exit 2
    assert r.stdout.splitlines()[0] == "Help topics: run `wfctl help <topic>`"
    for topic in ("environment", "config", "exit-codes", "csv"):
        assert f"\n  {topic} " in r.stdout


@pytest.mark.parametrize(("word", "line"), [
    ("nosuch", "error: no help topic 'nosuch'; the topics are environment, config, exit-codes, csv, queries, payroll, rates"),
    ("exit-code", "error: no help topic 'exit-code'; did you mean exit-codes? the topics are environment, "
                  "config, exit-codes, csv, queries, payroll, rates"),
    ("sites", "error: sites is a command, not a help topic: run `wfctl sites --help`; the topics are "
              "environment, config, exit-codes, csv, queries, payroll, rates"),
])
def test_help_of_no_topic_lists_the_topics(cli: Any, word: str, line: str) -> None:
    r = cli("help", word)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == line  # was: "Error: No such command 'nosuch'."


def test_the_exit_codes_topic_documents_the_envelope_and_a_no(cli: Any) -> None:
    r = cli("help", "exit-codes")
    words = " ".join(r.stdout.split())
    assert '{"error": {"status": 404, "code": null, "title": "Not Found", "detail": "no site 2f0c...", ' \
        '"errors": {}}}' in words
    assert "also `n` (or Enter) answered to a question such as `Delete site ...? [y/N]`: nothing was done" in words
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
