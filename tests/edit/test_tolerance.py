"""`agency edit` on a deployment that does not offer agency updates (G6: the PUT answers 405): said as
`agency update` says it, nothing sent, the text kept for `--recover`."""

from __future__ import annotations

from typing import Any

from tests.fixtures.sandbox import ADMIN


def test_agency_edit_where_the_deployment_has_no_agency_update(cli: Any, sandbox_factory: Any, editor: Any) -> None:
    odd = sandbox_factory(quirks=["no-agency-update"])
    assert cli.login_as(odd.url, *ADMIN).exit_code == 0
    editor.steps({"replace": [["phone: ", "phone: 0161 496 0999\n# was: "]]})
    r = cli("agency", "edit", "--yes", env=editor.env)
    assert r.exit_code != 0
    assert r.stderr.splitlines()[-1] == "error: this deployment does not offer agency updates (HTTP 405)"
    editor.steps({})
    r = cli("agency", "edit", "--recover", "--yes", env=editor.env)
    assert "phone: 0161 496 0999\n" in editor.seen(0)
