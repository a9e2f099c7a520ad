"""Helpers of the `wfctl imports` tests: runs made by real imports, and what the server holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def runs(cli: Any) -> list[dict[str, Any]]:
    """`wfctl imports list -o json`, newest first."""
    r = cli("imports", "list", "-o", "json")
    assert r.exit_code == 0, r
    return list(json.loads(r.stdout))


def import_file(cli: Any, kind: str, path: Path, text: str, *args: str) -> str:
    """Import `text` (written to `path`) with `wfctl <kind> import`; returns the run's id."""
    path.write_text(text, encoding="utf-8")
    r = cli(kind, "import", str(path), *args)
    assert r.exit_code == 0, r
    newest = runs(cli)[0]
    assert newest["file"] == str(path) and newest["state"] == "complete", newest
    return str(newest["run"])


def sites_of(cli: Any, client_id: str) -> dict[str, dict[str, Any]]:
    """The client's sites, by name."""
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return {site["name"]: site for site in json.loads(r.stdout)}


def get(cli: Any, kind: str, record_id: str) -> dict[str, Any] | None:
    """The record, or None when the service answers 404."""
    r = cli(kind, "get", record_id, "-o", "json")
    if r.exit_code == 4:
        return None
    assert r.exit_code == 0, r
    return dict(json.loads(r.stdout))
