"""Completion of resource ids (`wfctl sites get <TAB>`) from a short-lived local cache.

Only a shell asking for completions runs this code: the callbacks are plain functions that typer
calls while completing, so a command that is not completing pays nothing. When the cache is older
than `TTL` seconds, the ids are fetched again, time-boxed to `FETCH_SECONDS` in a daemon thread (a
slow or unreachable service gives the cached or no candidates, never a hanging shell).

Cache file: $XDG_CACHE_HOME/wfctl/ids-<hash of profile and url>.json, {kind: {"at": t, "items": [[id, name], ...],
"more": true when the list stopped at MAX_ITEMS}}.

A record may be given by name too (wfctl.api.refs): a word typed that begins a name is completed with the
name (its id as the description in zsh and fish; in bash only a name of one word, which needs no quoting).
Profiles (`-p`) come from the config file, run ids (`imports show|undo`) from the profile's journals.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

TTL = 120.0
FETCH_SECONDS = 2.0
MAX_ITEMS = 500


def complete_branch_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "branch", incomplete)


def complete_client_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "client", incomplete)


def complete_site_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "site", incomplete)


def complete_profiles(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The profiles of the config file (`-p <TAB>`), each with its service URL."""
    try:
        from wfctl.config import read_document

        doc = read_document()
    except Exception:  # a broken config file: no candidates, never a traceback in the shell
        return []
    found = doc.get("profiles")
    profiles: dict[str, Any] = found if isinstance(found, dict) else {}
    return [(str(name), str((values or {}).get("base_url") or "") if isinstance(values, dict) else "")
            for name, values in sorted(profiles.items()) if str(name).startswith(incomplete)]


def complete_run_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The runs of the profile (`imports show|undo <TAB>`), newest first, each with its file, start and state."""
    root = ctx.find_root() if ctx is not None else None
    params = getattr(root, "params", None) or {}
    try:
        from wfctl.bulk.journal import runs_dir
        from wfctl.bulk.undo import load_runs

        profile = params.get("profile") or os.environ.get("WFCTL_PROFILE") or _default_profile()
        runs = load_runs(runs_dir(profile))
    except Exception:
        return []
    out = []
    for run in runs:
        if not run.id.startswith(incomplete):
            continue
        what = f"undo of {run.undo_of}" if run.undo_of else os.path.basename(str(run.header.get("path") or ""))
        out.append((run.id, " ".join(part for part in (run.kind, what, run.started, run.state) if part)))
    return out


def cache_file(profile: str | None, base_url: str | None) -> Path:
    import hashlib

    key = f"{profile or os.environ.get('WFCTL_PROFILE', '')}|{base_url or os.environ.get('WFCTL_BASE_URL', '')}"
    from wfctl.dirs import cache_dir

    return cache_dir() / f"ids-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def remember(path: Path, kind: str, items: list[tuple[str, str]], *, more: bool = False) -> None:
    """Store the ids of `kind` (written atomically, 0600: names of clients are business data); `more`:
    the list stopped at MAX_ITEMS."""
    data = _read(path)
    data[kind] = {"at": time.time(), "items": [list(item) for item in items[:MAX_ITEMS]],
                  "more": bool(more or len(items) > MAX_ITEMS)}
    from wfctl.fsutil import write_private_file

    write_private_file(path, json.dumps(data).encode("utf-8"))


def cached(path: Path, kind: str, *, max_age: float | None = TTL) -> list[tuple[str, str]] | None:
    """The cached ids of `kind`, or None when missing or older than max_age."""
    entry = _read(path).get(kind)
    if not isinstance(entry, dict):
        return None
    if max_age is not None and time.time() - float(entry.get("at", 0)) > max_age:
        return None
    return [(str(item[0]), str(item[1])) for item in entry.get("items", []) if len(item) == 2]


def stopped_early(path: Path, kind: str) -> bool:
    """Whether the cached list of `kind` stopped at MAX_ITEMS (there are more records)."""
    entry = _read(path).get(kind)
    return isinstance(entry, dict) and bool(entry.get("more"))


def _complete(ctx: Any, kind: str, incomplete: str) -> list[tuple[str, str]]:
    root = ctx.find_root() if ctx is not None else None
    params = getattr(root, "params", None) or {}
    path = cache_file(params.get("profile"), params.get("base_url"))
    items = cached(path, kind, max_age=TTL)
    if items is None:
        fetched = _fetch(params, kind, ctx)
        items = fetched or cached(path, kind, max_age=None) or []
        if fetched:
            with contextlib.suppress(OSError):
                remember(path, kind, fetched, more=len(fetched) >= MAX_ITEMS)
    out = [(ident, name) for ident, name in items if ident.startswith(incomplete)]
    if incomplete:  # a name typed (the commands take names): the names it begins
        bash = os.environ.get("_WFCTL_COMPLETE", "").endswith("bash")
        out += [(name, ident) for ident, name in items
                if name.startswith(incomplete) and not (bash and not _one_word(name))]
    if out and stopped_early(path, kind):  # say it: the record wanted may be beyond the limit
        value, text = out[-1]
        out[-1] = (value, f"{text} (the first {MAX_ITEMS} {kind} records only: type more of the id or name)")
    return out


def _one_word(name: str) -> bool:
    """A name bash can insert as it is (no space, quote or other character the shell reads)."""
    import re

    return bool(re.fullmatch(r"[\w.@+-]+", name))


def _default_profile() -> str:
    try:
        from wfctl.config import load_settings

        return str(load_settings().profile)
    except Exception:
        return "default"


def _fetch(params: dict[str, Any], kind: str, ctx: Any) -> list[tuple[str, str]] | None:
    result: list[tuple[str, str]] = []
    done = threading.Event()

    def work() -> None:
        try:
            from wfctl.context import AppContext, GlobalOptions

            app = AppContext(GlobalOptions(profile=params.get("profile"), base_url=params.get("base_url")))
            client = app.client
            for record in _records(client, kind, ctx):
                result.append((str(record.get("id")), str(record.get("name") or "")))
                if len(result) >= MAX_ITEMS:  # `remember` marks the list as stopped early
                    break
        except Exception:  # completion must never print a traceback into the shell
            pass
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    done.wait(FETCH_SECONDS)
    return list(result) if done.is_set() else None


def _records(client: Any, kind: str, ctx: Any) -> Any:
    if kind == "branch":
        yield from client.iter_branches()
        return
    if kind == "client":
        yield from client.iter_clients()
        return
    client_id = (getattr(ctx, "params", None) or {}).get("client_id")
    client_ids = [client_id] if client_id else [c.get("id") for c in client.iter_clients()]
    for cid in client_ids:
        yield from client.iter_sites(cid)


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
