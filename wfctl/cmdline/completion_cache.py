"""Completion of resource ids (`wfctl sites get <TAB>`) from a short-lived local cache.

Only a shell asking for completions runs this code: the callbacks are plain functions that typer
calls while completing, so a command that is not completing pays nothing. When the cache is older
than `TTL` seconds, the ids are fetched again, time-boxed to `FETCH_SECONDS` in a daemon thread (a
slow or unreachable service gives the cached or no candidates, never a hanging shell).

Cache file: $XDG_CACHE_HOME/wfctl/ids-<hash of profile and url>.json, {kind: {"at": t, "items": [[id, name], ...],
"more": true when the list stopped at MAX_ITEMS}}.

A record may be given by name too (wfctl.api.records.refs): a word typed that begins a name is completed with the
name (its id as the description in zsh and fish; bash's script quotes a name with a space as it inserts it).
Nothing typed, zsh and fish offer the ids with their names beside them; bash, which shows no descriptions,
offers the names (an id where the name is blank or another record's too).
A cached list holds up to MAX_ITEMS records; an answer offers at most SHOWN of them, and says when there are
more (in bash, where candidates have no descriptions, as a candidate of its own that cannot be inserted).
Profiles (`-p`) come from the config file, run ids (`imports show|undo`) from the profile's journals, skills
(`--skill`) from the sites read within the time box; option values with a fixed set of choices (`--on-existing`,
`config set <key> <value>`) from their definitions, so that no value completes to a file name. `--fields`,
`--sort-by` and `--columns` complete the fields of the command's records, the last item of a comma-separated
list (`--columns` its `HEADER=SOURCE` source and `rate:<skill>` too).
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
#: Records of one kind kept in the cache (an id past the first few hundred still completes).
MAX_ITEMS = 10_000
#: Candidates offered in one answer (bash asks "Display all N possibilities?" past its own limit).
SHOWN = 500
#: What `--on-existing` takes, and what each does.
ON_EXISTING = (("skip", "leave a row whose record exists as it is"),
               ("update", "change the record to what the row says"),
               ("fail", "stop before sending anything when any row's record exists"))


def complete_branch_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "branch", incomplete)


def complete_client_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "client", incomplete)


def complete_site_ids(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return _complete(ctx, "site", incomplete)


def complete_skills(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The skills of the agency's sites (`rates set --skill <TAB>`), as far as they were read within the time
    box, matched case-insensitively; each with the number of sites that have it."""
    return _complete(ctx, "skill", incomplete)


def complete_fields(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """`--fields id,na<TAB>`: the fields of the command's records, the last item of a comma-separated list
    completed (the items before it kept)."""
    return _listed(incomplete, lambda item: [(name, "") for name in _command_fields(ctx) if name.startswith(item)])


def complete_sort_keys(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """`--sort-by -na<TAB>`: the fields, each item of the list with its leading `-` (descending) kept."""
    def keys(item: str) -> list[tuple[str, str]]:
        sign, typed = ("-", item[1:]) if item.startswith("-") else ("", item)
        return [(sign + name, "descending" if sign else "") for name in _command_fields(ctx)
                if name.startswith(typed)]

    return _listed(incomplete, keys)


def complete_columns(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """`--columns Site=na<TAB>`: each item's source (after `HEADER=`, or the item itself) completed to a field
    or a pseudo-column (`rate:<skill>` with the skills of the sites, `banned:count`, `dept:`)."""
    def sources(item: str) -> list[tuple[str, str]]:
        header, sep, typed = item.rpartition("=")
        head = header + sep
        if typed.startswith("rate:"):
            return [(f"{head}rate:{skill}", sites) for skill, sites in _complete(ctx, "skill", typed[5:])]
        found = [(head + name, "") for name in _command_fields(ctx) if name.startswith(typed)]
        found += [(head + pseudo, text) for pseudo, text in PSEUDO_COLUMNS if pseudo.startswith(typed)]
        return found

    return _listed(incomplete, sources)


#: The pseudo-columns of --columns (wfctl.render.sortcolumns), as completion offers them.
PSEUDO_COLUMNS = (("rate:", "a site's rate for a skill: rate:<skill>"), ("banned:count", "workers the site bans"),
                  ("dept:", "a department's field: dept:<name>.<field>"))


def complete_on_existing(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    return [(value, text) for value, text in ON_EXISTING if value.startswith(incomplete)]


def complete_divisions(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """`calendar weeks --division <TAB>`: the UK's bank-holiday divisions."""
    from wfctl.payroll.bankholidays import DIVISIONS

    return [(name, "") for name in DIVISIONS if name.startswith(incomplete)]


def complete_audit_checks(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """`audit --only|--skip <TAB>`: the checks, each with what it finds."""
    from wfctl.payroll.audit import CHECKS

    return [(name, text) for name, text in CHECKS.items() if name.startswith(incomplete)]


def complete_config_keys(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The settings `config get|set|unset` take, each with its help line."""
    from wfctl.config import KEYS

    return [(key.name, key.help) for key in KEYS.values() if key.name.startswith(incomplete)]


def complete_config_values(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The values of the setting given before (`config set output <TAB>`): its choices, true/false for a
    flag; nothing for free text; a file for a path (an empty answer: the shell's own file names)."""
    from wfctl.config import KEYS

    key = KEYS.get(str((getattr(ctx, "params", None) or {}).get("key") or ""))
    if key is None:
        return []
    choices = key.choices or (("true", "false") if key.kind == "bool" else ())
    return [(choice, "") for choice in choices if choice.startswith(incomplete)]


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
        from wfctl.runs.journal import runs_dir
        from wfctl.runs.undo import load_runs

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
    bash = os.environ.get("_WFCTL_COMPLETE", "").endswith("bash")
    if kind == "skill":
        out = [(skill, sites) for skill, sites in items if skill.startswith(incomplete)]
    elif bash and not incomplete:  # no descriptions in bash: what a person recognises, the names
        out = _names_else_ids(items)
    else:
        out = [(ident, name) for ident, name in items if ident.startswith(incomplete)]
        if incomplete:  # a name typed (the commands take names): the names it begins
            out += [(name, ident) for ident, name in items if name.startswith(incomplete)]
    more = len(out) > SHOWN
    if more:
        out = out[:SHOWN]
    if out and (more or stopped_early(path, kind)):  # say it: the record wanted may be beyond the limit
        note = (f"the first {len(out)} {kind} records only: type more of the id or name" if more else
                f"the first {MAX_ITEMS} {kind} records only: type more of the id or name")
        if bash:  # no descriptions in bash: a candidate of its own (beginning with what was typed, as every
            out.append((f"{incomplete} ({note})", ""))  # candidate must), listed but never inserted alone
        else:
            value, text = out[-1]
            out[-1] = (value, f"{text} ({note})")
    return out


def _names_else_ids(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each record by its name (the commands take names), or by its id where the name is blank or another
    record's too (client names repeat across branches: the id is then the one word that names it)."""
    counts: dict[str, int] = {}
    for _, name in items:
        counts[name.casefold()] = counts.get(name.casefold(), 0) + 1
    return [(name, ident) if name.strip() and counts[name.casefold()] == 1 else (ident, name)
            for ident, name in items]


def _listed(incomplete: str, complete: Any) -> list[tuple[str, str]]:
    """A comma-separated list's last item completed by `complete(item)`, the items before it kept as typed."""
    done, comma, item = incomplete.rpartition(",")
    before = done + comma
    return [(before + value, text) for value, text in complete(item)]


def _command_fields(ctx: Any) -> tuple[str, ...]:
    """The fields of the records the command being completed shows (`wfctl sites list`: a site's), from its
    command path, else from the words the shell hands over (the fast path's context carries no path)."""
    from wfctl.api.records.resources import RESOURCES, record_fields

    path = str(getattr(ctx, "command_path", "") or "")
    words = path.split() or (os.environ.get("COMP_WORDS") or os.environ.get("_TYPER_COMPLETE_ARGS") or "").split()
    by_plural = {spec.plural: kind for kind, spec in RESOURCES.items()}
    for word in words[1:]:
        kind = by_plural.get(word) or ("agency" if word == "agency" else None)
        if kind is not None:
            try:
                return tuple(record_fields(kind))
            except Exception:  # a kind with no fields: nothing to offer
                return ()
    return ()


def _default_profile() -> str:
    try:
        from wfctl.config import load_settings

        return str(load_settings().profile)
    except Exception:
        return "default"


def _fetch(params: dict[str, Any], kind: str, ctx: Any) -> list[tuple[str, str]] | None:
    """The (id, name) of the records of `kind`, read within FETCH_SECONDS; None when the read did not end in
    time (the cached or no candidates then). Skills: (skill, "N sites") of the sites read in that time."""
    result: list[tuple[str, str]] = []
    skills: dict[str, int] = {}
    done = threading.Event()

    def work() -> None:
        try:
            from wfctl.context import AppContext, GlobalOptions

            app = AppContext(GlobalOptions(profile=params.get("profile"), base_url=params.get("base_url")))
            client = app.client
            if kind == "skill":
                _read_skills(client, skills)
                return
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
    if kind == "skill":  # what was read in time serves: a skill is seldom at one site only
        return [(skill, f"{count} site{'s' if count != 1 else ''}") for skill, count in sorted(dict(skills).items())]
    return list(result) if done.is_set() else None


def _read_skills(client: Any, skills: dict[str, int]) -> None:
    """Count each skill of the agency's sites into `skills`, site by site (read as the rates commands read)."""
    from wfctl.api.domain.ratereads import clients_in_scope, read_sites

    for site, _ in read_sites(client, clients_in_scope(client, all_clients=True)):
        for rate in site.get("rates") or []:
            if isinstance(rate, dict) and str(rate.get("skill") or "").strip():
                skill = str(rate["skill"]).strip()
                skills[skill] = skills.get(skill, 0) + 1


def _records(client: Any, kind: str, ctx: Any) -> Any:
    """Every record of `kind`: a nested kind's under the parent the command line gives (`<parent>_id`),
    else under each parent in turn (every client's sites). UnknownKind for a kind no definition names."""
    from wfctl.api.records.resources import resource

    spec = resource(kind)
    if not spec.nested:
        yield from client.iter_records(kind)
        return
    parent_id = (getattr(ctx, "params", None) or {}).get(f"{spec.parent}_id")
    parent_ids = [parent_id] if parent_id else [p.get("id") for p in _records(client, str(spec.parent), None)]
    for pid in parent_ids:
        yield from client.iter_records(kind, pid)


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
