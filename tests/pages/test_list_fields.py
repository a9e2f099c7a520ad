"""`list --fields` never writes a column the list cannot fill (issue 25 §2): list items carry no rates,
departments, banned workers, documents (sites) or billing address (clients); an empty column of them,
imported back with `--on-existing update`, would clear them on every record."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN
from tests.pages.helpers import add_client

SITES = ("error: --fields rates,bannedWorkers: a site list does not carry them; use `wfctl sites export` "
         "(every field of every site) or `wfctl sites get <id>`")
CLIENTS = ("error: --fields billingAddress: a client list does not carry it; use `wfctl clients export` "
           "(every field of every client) or `wfctl clients get <id>`")


@pytest.mark.parametrize("output", ["table", "wide", "jsonl", "csv"])
def test_fields_a_list_item_lacks_are_refused_in_every_format(sandbox: Any, cli: Any, output: str) -> None:
    client_id, _ = add_client(sandbox, 3)
    cli.login_as(sandbox.url, *ADMIN)
    r = cli("sites", "list", "--client", client_id, "--fields", "id,name,rates,bannedWorkers", "-o", output)
    assert (r.exit_code, r.stdout) == (2, ""), r
    if output == "jsonl":
        assert json.loads(r.stderr)["error"]["title"] == SITES.removeprefix("error: ")
    else:
        assert r.stderr.strip() == SITES
    r = cli("clients", "list", "--all", "--fields", "id,name,billingAddress", "-o", output)
    assert (r.exit_code, r.stdout) == (2, ""), r
    if output != "jsonl":
        assert r.stderr.strip() == CLIENTS


def test_fields_a_list_item_carries_still_work(sandbox: Any, cli: Any) -> None:
    client_id, _ = add_client(sandbox, 3)
    cli.login_as(sandbox.url, *ADMIN)
    r = cli("sites", "list", "--client", client_id, "--fields", "id,name,assessmentRequired", "-o", "csv")
    assert r.exit_code == 0, r
    assert r.stdout.splitlines()[0] == "id,name,assessmentRequired"
    assert len(r.stdout.splitlines()) == 4
