"""Helpers of the end-to-end bulk tests: fresh clients, generated site files, comparable exports."""

from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path
from typing import Any

SITE_HEADER = "name,address,phone,email,assessmentRequired,rates,departments,bannedWorkers"


def new_client(cli: Any, name: str | None = None) -> str:
    """A new, empty client in the first branch; returns its id."""
    r = cli("branches", "list", "-o", "json")
    assert r.exit_code == 0, r
    branch = json.loads(r.stdout)[0]["id"]
    r = cli("clients", "create", "--branch", branch, "--name", name or f"Bulk {uuid.uuid4().hex[:10]}",
            "-o", "json")
    assert r.exit_code == 0, r
    return str(json.loads(r.stdout)["id"])


def client_with_sites(cli: Any, tmp_path: Path, text: str | bytes, name: str = "seed.csv") -> str:
    """A new client holding the sites of the CSV `text` (bytes written as given), imported; its id."""
    cid = new_client(cli)
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    r = cli("sites", "import", str(path), "--client", cid)
    assert r.exit_code == 0, r
    return cid


def exported_to(cli: Any, client_id: str, path: Path) -> Path:
    """`sites export --client <id> -f PATH` (its format by the name's ending): it succeeds; returns PATH."""
    r = cli("sites", "export", "--client", client_id, "-f", str(path))
    assert r.exit_code == 0, r
    return path


def site_rows(count: int, prefix: str = "Site") -> str:
    """`count` sites with every field, tricky values included (formulas, +44 phones, escapes)."""
    lines = [SITE_HEADER]
    for i in range(count):
        name = f"{prefix} {i:05d}" if i % 7 else f"={prefix}{i}"
        rates = f"Forklift Driver={10 + i % 9}.{i % 100:02d}|Picker\\|Packer={11 + i % 3}.5"
        departments = f"Goods In:Ann Lee:ann{i}@example.com|Night\\: Shift:Bo:" if i % 2 else ""
        banned = f"W-{i}|W-{i + 1}" if i % 3 else ""
        address = f'"{i} Dock Road\nHull, HU1 {i % 10}AA"'
        lines.append(f"{name},{address},'+44 1482 {i:06d},site{i}@example.com,{'true' if i % 2 else 'false'},"
                     f"{rates},{departments},{banned}")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def export_rows(cli: Any, client_id: str) -> list[dict[str, str]]:
    """The export of a client as dicts, without id and clientId, sorted by name."""
    r = cli("sites", "export", "--client", client_id)
    assert r.exit_code == 0, r
    rows = list(csv.DictReader(io.StringIO(r.stdout, newline="")))
    for row in rows:
        row.pop("clientId")
        row.pop("id")
    return sorted(rows, key=lambda row: row["name"])


def without_ids(exported: str) -> str:
    """An export without its id column: what copies records into another parent (a row that carries
    an id is that record, which belongs to the parent it was exported from)."""
    rows = list(csv.reader(io.StringIO(exported.lstrip("\ufeff"), newline="")))
    assert rows[0][0] == "id", rows[0]
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(row[1:] for row in rows)
    return out.getvalue()


def site_names(cli: Any, client_id: str) -> list[str]:
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return sorted(s["name"] for s in json.loads(r.stdout))
