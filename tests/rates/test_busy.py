"""`wfctl rates set` against a service that answers 429 when asked too much at once (G18): the run
waits as the service asks and changes every site, rather than failing the sites whose PUT was refused."""

from __future__ import annotations

import json
from typing import Any


def test_a_rate_limited_service_slows_the_run_down_and_fails_no_site(cli: Any, sandbox_factory: Any) -> None:
    server = sandbox_factory(rate_limit=20)
    assert cli.login_as(server.url, "admin@northwind.test", "sandbox-admin").exit_code == 0
    before = json.loads(cli("rates", "list", "--all-clients", "--skill", "cleaner", "-o", "json").stdout)
    assert len(before) >= 6

    r = cli("rates", "set", "--all-clients", "--skill", "cleaner", "--skill", "picker packer", "--skill",
            "kitchen porter", "--by", "+1%")
    assert r.exit_code == 0, r
    assert "failed" not in r.stderr and "429" not in r.stderr, r
    after = json.loads(cli("rates", "list", "--all-clients", "--skill", "cleaner", "-o", "json").stdout)
    assert [row["hourlyRate"] for row in after] == [
        float(f"{row['hourlyRate'] * 1.01 + 1e-9:.2f}") for row in before]
