"""Round trips as a property (Hypothesis): for generated sites (unicode, formula-like text, nested lists
holding `|`, `:`, `=`, `\\` and `[`, empty values), on the default sandbox and on one whose PUT clears:

- `sites export` -> `sites import --on-existing update` -> `sites export` is byte-identical, and the
  server holds exactly what it held;
- `sites list -o csv` -> `sites import --on-existing update` changes nothing the server holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.cli import Cli, Result
from tests.matrix.conftest import Deployment

# Letters of several scripts, spaces inside, and every character the CSV format escapes or a
# spreadsheet runs as a formula.
ALPHABET = "aZ09 éßΩ漢€😀=+-@|:\\[]'\",;"
SPECIAL = st.sampled_from(["=SUM(A1)", "+44 113 496 0000", "-1", "@home", "[1,2]", "a|b", "k:v", "x=y", "back\\slash"])


def _text(min_size: int = 0, max_size: int = 24) -> st.SearchStrategy[str]:
    # The service trims strings (G11): generate them already trimmed.
    raw = st.one_of(SPECIAL, st.text(alphabet=ALPHABET, min_size=min_size, max_size=max_size))
    return raw.map(str.strip).filter(lambda s: len(s) >= min_size)


EMAIL = st.one_of(st.just(""), st.sampled_from(["ann@example.com", "o'neil+ops@example.co.uk", "x@y.zz"]))
RATE = st.builds(lambda skill, cents: {"skill": skill, "hourlyRate": cents / 100}, _text(1),
                 st.integers(min_value=0, max_value=99_999))
DEPARTMENT = st.builds(lambda name, person, email: {"name": name, "contactPerson": person, "email": email},
                       _text(1), _text(), EMAIL)
SITE = st.fixed_dictionaries({
    "name": _text(1),
    "address": _text(),
    "phone": _text(),
    "email": EMAIL,
    "assessmentRequired": st.booleans(),
    "rates": st.lists(RATE, max_size=3, unique_by=lambda r: r["skill"].casefold()),
    "departments": st.lists(DEPARTMENT, max_size=3),
    "bannedWorkers": st.lists(_text(1), max_size=3, unique=True),
})
SITES = st.lists(SITE, min_size=1, max_size=3, unique_by=lambda s: s["name"].casefold())


def test_export_import_export_and_list_csv_import_change_nothing(
        deployments: Callable[[str], Deployment], cli: Cli, tmp_path: Path) -> None:
    # One run of examples draws the deployment too: both are covered within one bounded budget.
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(sites=SITES, name=st.sampled_from(["default", "put-clears"]))
    def round_trip(sites: list[dict[str, Any]], name: str) -> None:
        deployment = deployments(name)

        def run(*args: str) -> Result:
            return cli(*args, env={"WFCTL_BASE_URL": deployment.url, "WFCTL_ACCESS_TOKEN": deployment.token})

        client = deployment.client()
        ids = [deployment.site(client["id"], **site)["id"] for site in sites]
        held = [deployment.get("sites", i) for i in ids]
        file = tmp_path / "sites.csv"

        exported = run("sites", "export", "--client", client["id"])
        assert exported.exit_code == 0, exported
        file.write_text(exported.stdout, encoding="utf-8")
        imported = run("sites", "import", str(file), "--on-existing", "update")
        assert imported.exit_code == 0, imported
        assert [deployment.get("sites", i) for i in ids] == held, exported.stdout
        again = run("sites", "export", "--client", client["id"])
        assert again.stdout == exported.stdout

        listed = run("sites", "list", "--client", client["id"], "-o", "csv")
        assert listed.exit_code == 0, listed
        file.write_text(listed.stdout, encoding="utf-8")
        imported = run("sites", "import", str(file), "--on-existing", "update")
        assert imported.exit_code == 0, imported
        assert [deployment.get("sites", i) for i in ids] == held, listed.stdout

    round_trip()
