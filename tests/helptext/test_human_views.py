"""Human views use words, not JSON keys; doctor's passing service check reads as a pass and no passing
check carries a fix (issue 15 §3). Scripts keep the JSON keys."""

from __future__ import annotations

import json
import re
from typing import Any


def test_auth_status_table_uses_words(logged_in: Any, sandbox: Any) -> None:
    r = logged_in("auth", "status", "-o", "table")
    assert r.exit_code == 0, r
    labels = [line.split(": ")[0] for line in r.stdout.splitlines() if line.strip()]
    assert labels == ["Profile", "Base URL", "User", "Credential store", "Stored in", "Store chosen", "Protected by",
                      "Agency", "Access token expires", "Expires in"], r.stdout
    assert re.search(r"^Protected by:? +file mode 0600$", r.stdout, re.M), r.stdout  # issue 47: the file's mode
    assert re.search(rf"^Base URL:? +{re.escape(sandbox.url)}$", r.stdout, re.M), r.stdout
    assert "baseUrl" not in r.stdout and "credentialStore" not in r.stdout


def test_auth_status_json_keeps_its_keys(logged_in: Any, sandbox: Any) -> None:
    info = json.loads(logged_in("auth", "status", "-o", "json").stdout)
    assert info["baseUrl"] == sandbox.url and info["credentialStore"] == "file"


def test_config_list_table_uses_words(cli: Any) -> None:
    r = cli("--base-url", "https://wams.example.com", "config", "list", "-o", "table")
    assert r.exit_code == 0, r
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["setting", "value", "from"]
    assert lines[1].split() == ["(profile)", "default"]
    assert lines[2].split() == ["base_url", "https://wams.example.com", "a", "flag"]
    assert lines[-1].startswith("(config file)")
    assert "config_path" not in r.stdout


def test_config_list_json_keeps_its_keys(cli: Any) -> None:
    rows = json.loads(cli("config", "list", "-o", "json").stdout)
    assert rows[0] == {"key": "profile", "value": "default", "source": "-"}
    assert rows[-1]["key"] == "config_path"


def test_doctor_says_reachable_and_gives_no_fix_for_a_pass(logged_in: Any, sandbox: Any) -> None:
    r = logged_in("doctor")
    service = next(line for line in r.stdout.splitlines() if line.startswith("[pass] service"))
    assert re.fullmatch(rf"\[pass\] service +{re.escape(sandbox.url)}/api/agency/ reachable "
                        r"\(answered 401 without a token, as expected\) in \d+ ms", service), service
    assert "->" not in r.stdout
    checks = json.loads(logged_in("doctor", "-o", "json").stdout)
    for check in checks:
        assert ("fix" in check) == (check["status"] != "pass"), check
