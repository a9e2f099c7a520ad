"""`wfctl api` on every deployment, every error body form (G10) through the CLI and the SDK, and logins
that answer without expiresIn (G2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.cli import Cli
from tests.fixtures.sandbox import ADMIN
from tests.matrix.conftest import ERROR_FORMS, FOR_CREATES, FOR_LISTS, FOR_RECORDS, Deployment, Run, unique


@pytest.mark.parametrize("deployment", FOR_LISTS, indirect=True)
def test_api_paginate_follows_every_page(deployment: Deployment, run: Run) -> None:
    client = deployment.client()
    for _ in range(5):
        deployment.site(client["id"])
    result = run("api", "GET", f"/api/clients/{client['id']}/sites", "--paginate", "-f", "pageSize=2", "-o", "json")
    assert result.exit_code == 0, result
    assert [row["id"] for row in json.loads(result.stdout)] == [
        row["id"] for row in deployment.all(f"/api/clients/{client['id']}/sites")]


@pytest.mark.parametrize("deployment", FOR_CREATES, indirect=True)
def test_api_post_is_applied_once(deployment: Deployment, run: Run) -> None:
    name = unique("Branch")
    result = run("api", "POST", "/api/branches", "-f", f"name={name}")
    held = deployment.named("/api/branches", name)
    assert len(held) == 1, result
    # A raw call cannot know the record's natural key: an answer that never came is a network failure.
    if "drop-create-answer" in deployment.quirks:
        assert result.exit_code == 7, result
    else:
        assert result.exit_code == 0, result
        assert json.loads(result.stdout)["id"] == held[0]["id"]


@pytest.mark.parametrize("deployment", FOR_RECORDS, indirect=True)
def test_api_put_and_delete_send_exactly_what_they_are_given(deployment: Deployment, run: Run) -> None:
    branch = deployment.branch()
    before = deployment.get("branches", branch["id"])
    assert before is not None
    result = run("api", "PUT", f"/api/branches/{branch['id']}", "-f", f"name={branch['name']}", "-f", "phone=0999")
    assert result.exit_code == 0, result
    cleared = dict.fromkeys(("address", "email"), "") if "put-clears" in deployment.quirks else {}
    assert deployment.get("branches", branch["id"]) == {**before, "phone": "0999", **cleared}
    deleted = run("api", "DELETE", f"/api/branches/{branch['id']}")
    assert deleted.exit_code == 0, deleted
    assert deployment.get("branches", branch["id"]) is None


@pytest.mark.parametrize("deployment", ERROR_FORMS, indirect=True)
@pytest.mark.parametrize(("args", "code", "status"), [
    (("branches", "get", "00000000-0000-4000-8000-000000000000"), 4, "404"),  # a whole id: sent as it is
    (("api", "GET", "/api/sites/no-such-site"), 4, "404"),
    (("clients", "create", "--name", "Dup", "--branch", "{branch}"), 5, "409"),
    (("branches", "delete", "{branch}", "--yes"), 5, "409"),
], ids=["get-404", "api-404", "create-409", "delete-409"])
def test_every_error_form_is_one_line_with_the_status(deployment: Deployment, run: Run, args: tuple[str, ...],
                                                      code: int, status: str) -> None:
    branch = deployment.branch()
    deployment.client(branch["id"], name="Dup")
    result = run(*(arg.format(branch=branch["id"]) for arg in args))
    assert result.exit_code == code, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and status in lines[0], result
    assert "<" not in lines[0], result  # no HTML tags
    assert result.stdout == ""


@pytest.mark.parametrize("deployment", ERROR_FORMS, indirect=True)
def test_every_error_form_reaches_the_sdk_as_its_error(deployment: Deployment, sdk: Any) -> None:
    from wfctl.api import Conflict, NotFound

    with pytest.raises(NotFound) as missing:
        sdk.get_site("no-such-site")
    assert missing.value.status == 404 and "\n" not in str(missing.value)
    branch = deployment.branch()
    with pytest.raises(Conflict) as duplicate:
        sdk.create_branch({"name": branch["name"]})
    assert duplicate.value.status == 409


@pytest.mark.parametrize("deployment", ["no-expires-in"], indirect=True)
def test_a_login_without_expires_in_works_and_refreshes(deployment: Deployment, cli: Cli) -> None:
    login = cli.login_as(deployment.url, *ADMIN)
    assert login.exit_code == 0, login
    status = cli("auth", "status")
    assert status.exit_code == 0, status
    listed = cli("branches", "list", "-o", "json")
    assert listed.exit_code == 0, listed
    assert [row["id"] for row in json.loads(listed.stdout)] == [row["id"] for row in deployment.all("/api/branches")][:10]
