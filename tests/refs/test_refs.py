"""Branches, clients and sites given by id, by the beginning of the id, or by name (issue 24 §1), on a real
sandbox: what the user sees (the records, `no branch 'X'` with exit 4, the candidates with exit 2), and
that a whole id costs no request more than before."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

from tests.messages.helpers import new_client, new_site


def _json(result: Any) -> Any:
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def _branch(cli: Any, name: str) -> dict[str, Any]:
    return next(b for b in _json(cli("branches", "list", "-o", "json")) if b["name"] == name)


def _requests(result: Any) -> list[str]:
    """The requests a `-v` run sent (its `> METHOD URL` lines)."""
    return [line for line in result.stderr.splitlines() if re.match(r"> (GET|PUT|POST|DELETE) ", line)]


def test_a_branch_by_name_exact_or_in_any_case_lists_its_clients(logged_in: Any) -> None:
    branch = _branch(logged_in, "Manchester Central")
    for ref in ("Manchester Central", "manchester central", "  MANCHESTER CENTRAL"):
        names = {c["name"] for c in _json(logged_in("clients", "list", "--branch", ref, "--all", "-o", "json"))}
        assert {"Pennine Foods Ltd", "Irwell Logistics"} <= names, ref
    clients = _json(logged_in("clients", "list", "--branch", "Manchester Central", "--all", "-o", "json"))
    assert {c["branchId"] for c in clients} == {branch["id"]}


@pytest.mark.parametrize("ref", ["Manchester Centrall", "wrong-digit"])
def test_a_branch_that_is_not_there_is_exit_4_never_an_empty_list(logged_in: Any, ref: str) -> None:
    if ref == "wrong-digit":  # a whole id with one digit wrong: taken unread, so the empty list is checked
        real = _branch(logged_in, "Manchester Central")["id"]
        ref = real[:-1] + ("0" if real[-1] != "0" else "1")
    r = logged_in("clients", "list", "--branch", ref)
    # a name a letter off is answered with the nearest (issue 49); a wrong id is not a slip of a name
    hint = "; did you mean 'Manchester Central'?" if ref == "Manchester Centrall" else ""
    assert (r.exit_code, r.stdout, r.stderr) == (4, "", f"error: no branch '{ref}'{hint}\n")
    r = logged_in("clients", "list", "--branch", ref, "-o", "json")
    assert r.exit_code == 4 and r.stdout == ""
    assert json.loads(r.stderr)["error"]["title"] == f"no branch '{ref}'{hint}"


@pytest.mark.parametrize(("args", "message"), [
    (["sites", "list", "--client", "Penine Foods Ltd"], "no client 'Penine Foods Ltd'; did you mean 'Pennine Foods Ltd'?"),
    (["clients", "get", "pennine food ltd"], "no client 'pennine food ltd'; did you mean 'Pennine Foods Ltd'?"),
    (["sites", "list", "--client", "Nothing Like Any Client"], "no client 'Nothing Like Any Client'"),
])
def test_a_misspelt_name_gets_the_nearest(logged_in: Any, args: list[str], message: str) -> None:
    """Issue 49: options, skills, fields and config keys had a did-you-mean; names did not."""
    r = logged_in(*args)
    assert (r.exit_code, r.stdout, r.stderr) == (4, "", f"error: {message}\n")


def test_an_empty_branch_given_by_id_is_an_empty_list(logged_in: Any) -> None:
    name = f"Empty {uuid.uuid4().hex[:8]}"
    branch = _json(logged_in("branches", "create", "--name", name, "--address", "1 A St", "-o", "json"))
    for ref in (branch["id"], name):
        assert _json(logged_in("clients", "list", "--branch", ref, "-o", "json")) == []


def test_get_update_delete_by_name_and_by_the_beginning_of_the_id(logged_in: Any) -> None:
    client_id, client_name, _ = new_client(logged_in)
    site_name = f"Dock {uuid.uuid4().hex[:6]}"
    site_id = new_site(logged_in, client_id, site_name)
    assert _json(logged_in("clients", "get", client_name.upper(), "-o", "json"))["id"] == client_id
    assert _json(logged_in("clients", "get", client_id[:8], "-o", "json"))["id"] == client_id
    assert _json(logged_in("sites", "get", site_name, "-o", "json"))["id"] == site_id
    assert _json(logged_in("sites", "list", "--client", client_name, "-o", "json"))[0]["id"] == site_id
    updated = _json(logged_in("sites", "update", site_name.lower(), "--phone", "0161 496 0999", "-o", "json"))
    assert (updated["id"], updated["phone"]) == (site_id, "0161 496 0999")
    r = logged_in("sites", "delete", site_id[:8], "--yes")
    assert r.exit_code == 0, r
    r = logged_in("sites", "get", site_id, "-o", "json")
    assert r.exit_code == 4


def test_a_site_name_of_two_clients_is_ambiguous_unless_the_client_is_given(logged_in: Any) -> None:
    site_name = f"Gate {uuid.uuid4().hex[:6]}"
    first, first_name, _ = new_client(logged_in)
    second, _, _ = new_client(logged_in)
    one = new_site(logged_in, first, site_name)
    two = new_site(logged_in, second, site_name)
    r = logged_in("sites", "get", site_name)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: '{site_name}' names 2 sites: ")
    assert one in r.stderr and two in r.stderr and f"client '{first_name}'" in r.stderr
    # issue 49: the other way out is named too, where the command takes it
    assert r.stderr.rstrip().endswith("give the id (or more of it), or name its client (--client <client>)")
    assert _json(logged_in("sites", "get", site_name, "--client", first_name, "-o", "json"))["id"] == one
    r = logged_in("sites", "get", "Nothing Like It", "--client", first_name)
    assert (r.exit_code, r.stderr) == (4, f"error: no site 'Nothing Like It' of client {first}\n")


def test_whole_ids_cost_no_request_more(logged_in: Any) -> None:
    client_id, _, _ = new_client(logged_in)
    new_site(logged_in, client_id, "Dock 1")  # an empty list is checked (one GET of its parent): not this one
    branch = _branch(logged_in, "Manchester Central")["id"]
    r = logged_in("-v", "clients", "get", client_id, "-o", "json")
    assert r.exit_code == 0 and len(_requests(r)) == 1, _requests(r)
    r = logged_in("-v", "clients", "list", "--branch", branch, "-o", "json")
    # one list request; a branch with more than a page of clients also gets G9's count check
    # (`/api/clients?pageSize=1`, whether the service applied the filter), which is not the reference's
    listed = [line for line in _requests(r) if "pageSize=1" not in line.split("?", 1)[-1].split("&")]
    assert r.exit_code == 0 and len(listed) == 1, _requests(r)
    r = logged_in("-v", "sites", "list", "--client", client_id, "-o", "json")
    assert r.exit_code == 0 and len(_requests(r)) == 1, _requests(r)
    # a name: the branch list's first page, then the same request as by id
    r = logged_in("-v", "clients", "list", "--branch", "Manchester Central", "-o", "json")
    listed = [line for line in _requests(r) if "pageSize=1" not in line.split("?", 1)[-1].split("&")]
    assert r.exit_code == 0 and len(listed) == 2, _requests(r)


def test_an_export_of_a_branch_that_is_not_there_writes_nothing(logged_in: Any) -> None:
    real = _branch(logged_in, "Manchester Central")["id"]
    wrong = real[:-1] + ("0" if real[-1] != "0" else "1")
    target = logged_in.tmp_path / "clients.csv"
    for ref in ("Manchester Centrall", wrong):
        r = logged_in("clients", "export", "--branch", ref, "--file", str(target))
        hint = "; did you mean 'Manchester Central'?" if ref == "Manchester Centrall" else ""
        assert (r.exit_code, r.stderr) == (4, f"error: no branch '{ref}'{hint}\n")
        assert not target.exists()
        r = logged_in("clients", "export", "--branch", ref)
        assert (r.exit_code, r.stdout) == (4, "")
    r = logged_in("sites", "export", "--client", "No Such Client Ltd")
    assert (r.exit_code, r.stdout, r.stderr) == (4, "", "error: no client 'No Such Client Ltd'\n")


def test_exports_and_imports_take_names(logged_in: Any) -> None:
    r = logged_in("clients", "export", "--branch", "manchester central")
    assert r.exit_code == 0, r
    assert "Irwell Logistics" in r.stdout and "Kirkgate Retail Group" not in r.stdout
    r = logged_in("sites", "export", "--client", "Irwell Logistics")
    assert r.exit_code == 0 and "Rochdale Yard" in r.stdout, r
    client_id, client_name, _ = new_client(logged_in)
    csv_path = logged_in.tmp_path / "sites.csv"
    csv_path.write_text("name,address\nQuay 1,1 Quay St\n", encoding="utf-8")
    r = logged_in("sites", "import", str(csv_path), "--client", client_name)
    assert r.exit_code == 0, r
    assert [s["name"] for s in _json(logged_in("sites", "list", "--client", client_id, "-o", "json"))] == ["Quay 1"]
    r = logged_in("sites", "import", str(csv_path), "--client", "No Such Client Ltd")
    assert (r.exit_code, r.stderr) == (4, "error: no client 'No Such Client Ltd'\n")


def test_create_under_a_parent_given_by_name(logged_in: Any) -> None:
    name = f"Harbour {uuid.uuid4().hex[:8]}"
    created = _json(logged_in("clients", "create", "--branch", "Leeds Riverside", "--name", name, "-o", "json"))
    assert created["branchId"] == _branch(logged_in, "Leeds Riverside")["id"]
    site = _json(logged_in("sites", "create", "--client", name, "--name", "Yard", "-o", "json"))
    assert site["clientId"] == created["id"]


def test_a_beginning_of_an_id_too_short_says_how_long_it_must_be(logged_in: Any) -> None:
    """Issue 36: `sites get 7b0` said only `no site '7b0'`."""
    client_id, _, _ = new_client(logged_in)
    site_id = new_site(logged_in, client_id, f"Dock {uuid.uuid4().hex[:6]}")
    r = logged_in("sites", "get", site_id[:3], "--client", client_id)
    assert (r.exit_code, r.stdout) == (4, ""), r
    assert r.stderr == (f"error: no site '{site_id[:3]}' of client {client_id}; an id begins with it, but the "
                        "beginning of an id needs at least 4 characters\n"), r
    assert _json(logged_in("sites", "get", site_id[:4], "--client", client_id, "-o", "json"))["id"] == site_id
    r = logged_in("sites", "get", "zz9", "--client", client_id)  # no id begins with it: no hint
    assert r.stderr == f"error: no site 'zz9' of client {client_id}\n", r


def test_a_whole_id_of_another_kind_says_whose_id_it_is(logged_in: Any) -> None:
    """Issue 49: `sites get <a client's id>` was the service's bare 404."""
    client, _, _ = new_client(logged_in)
    r = logged_in("sites", "get", client)
    assert (r.exit_code, r.stdout, r.stderr) == (
        4, "", f"error: no site {client}: it is a client's id (`wfctl clients get {client}`)\n")
    branch = _branch(logged_in, "Manchester Central")["id"]
    r = logged_in("clients", "get", branch)
    assert (r.exit_code, r.stderr) == (4, f"error: no client {branch}: it is a branch's id (`wfctl branches get "
                                          f"{branch}`)\n")
    missing = str(uuid.uuid4())
    r = logged_in("sites", "get", missing)
    assert (r.exit_code, r.stderr) == (4, f"error: Not Found: site {missing} not found (HTTP 404)\n")
