"""What the `diff` and `copy` commands of every group share (issue 32 §1, §3): the scope resolved, the
other profile's scope exported, the drift computed (wfctl.compare.drift) and shown, the copy run as an
import. The logic is wfctl.compare's; this is its CLI side (options checked, progress, the exit code)."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode

if TYPE_CHECKING:
    from wfctl.compare.crossprofile import FieldMap
    from wfctl.compare.drift import Drift
    from wfctl.context import AppContext
    from wfctl.drivers.asked import DiffAsked, OutputOptions


@dataclass(frozen=True)
class ScopeArgs:
    """The scope options as given: `--client` (repeatable), `--branch`, `--all-clients`."""

    clients: tuple[str, ...] = ()
    branch: str | None = None
    all_clients: bool = False


@dataclass
class ReadOptions:
    """How the file is read, and the diff's own options."""

    delimiter: str | None = None
    sheet: str | None = None
    ignore_ids: bool = False
    ignore_fields: str | None = None
    concurrency: int = 16
    maps: list[str] = field(default_factory=list)
    ignore_columns: str | None = None


def diff_file(app: AppContext, kind: str, file: str | None, scope_args: ScopeArgs, asked: DiffAsked,
              output: OutputOptions) -> int:
    """`<kind> diff` as its option groups ask (`run_diff`)."""
    reading = ReadOptions(asked.delimiter, asked.sheet, asked.ignore_ids, asked.ignore_fields, asked.concurrency,
                          list(asked.field_map or ()), asked.ignore_columns)
    return run_diff(app, kind, file, scope_args, reading, from_profile=asked.from_profile, output=output.format,
                    markdown=asked.markdown)


def run_diff(app: AppContext, kind: str, file: str | None, scope_args: ScopeArgs, reading: ReadOptions, *,
             from_profile: str | None, output: str | None, markdown: bool) -> int:
    """`<kind> diff`: 0 when the file (or the other profile's scope) equals the service within the scope,
    1 when something differs; an error is 2 or its own code, never 1 (a CI drift check reads 1 as drift)."""
    from wfctl.drivers.findings import one_means_found

    with one_means_found():
        return _run_diff(app, kind, file, scope_args, reading, from_profile=from_profile, output=output,
                         markdown=markdown)


def _run_diff(app: AppContext, kind: str, file: str | None, scope_args: ScopeArgs, reading: ReadOptions, *,
              from_profile: str | None, output: str | None, markdown: bool) -> int:
    from wfctl.compare.drift import check_ignored
    from wfctl.render.output import is_machine

    fmt = app.output_format(output)
    if markdown and is_machine(fmt):
        raise CliError(f"--markdown and -o {fmt} are two outputs; give one")
    try:
        ignored = check_ignored(kind, (reading.ignore_fields or "").split(","))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if reading.maps and not from_profile:
        raise CliError("--map changes what another profile holds: give --from-profile too")
    if from_profile is not None:
        if file is not None:
            raise CliError("give a FILE or --from-profile, not both")
        with _other_profile_file(app, kind, from_profile, scope_args, reading) as (path, parent_id, _):
            reading.ignore_ids = True
            scope = _scope(app, kind, scope_args)  # the same parent here (names match, ids differ)
            found = _drift(app, kind, path, parent_id, scope, reading, ignored)
        # two profiles, no file: each side named by its profile, and no row of the file no one sees
        found.sides, found.rows_said = (f"profile {from_profile}", f"profile {app.settings.profile}"), False
    else:
        if file is None:
            raise CliError(f"give the FILE to compare (or --from-profile PROFILE); e.g. "
                           f"wfctl {_plural(kind)} diff {_plural(kind)}.csv")
        scope = _scope(app, kind, scope_args)
        found = _drift(app, kind, file, _single_parent(kind, scope_args, scope), scope, reading, ignored)
    _show(app, found, fmt, markdown)
    if found.failed:
        for row, name, error in found.failed[:50]:
            app.io.write_err(f"row {row}: {name}: could not be read to compare: {error}\n")
        count = len(found.failed)
        raise CliError(f"{count} record{'s' if count != 1 else ''} could not be read to compare; the diff is "
                       "not complete", ExitCode.NETWORK)
    return 1 if found.differs else 0


def _drift(app: AppContext, kind: str, path: str, parent_id: str | None, scope: Any, reading: ReadOptions,
           ignored: tuple[str, ...]) -> Drift:
    from wfctl.api.records.resources import resource
    from wfctl.compare.drift import drift
    from wfctl.drivers.bulkrun import list_problems, stopped_error
    from wfctl.files.reader import CsvInput
    from wfctl.plans.importtypes import column_names
    from wfctl.render.progress import Progress
    from wfctl.runs.importer import Options, Stopped, ValidationStopped

    api = app.client
    with CsvInput(path, delimiter=reading.delimiter, sheet=reading.sheet, plural=resource(kind).plural) as source:
        for note in source.notes:
            app.io.write_err(note + "\n")
        options = Options(kind=kind, parent_id=parent_id, concurrency=reading.concurrency,
                          target=str(getattr(api, "base_url", "") or ""), profile=app.settings.profile,
                          file_path=source.display if path == "-" else os.path.abspath(path),
                          ignore_ids=reading.ignore_ids, ignore_columns=column_names(reading.ignore_columns),
                          **_scoped(scope))
        progress = Progress(f"comparing {os.path.basename(source.display)}", terminal=app.io.stderr_is_tty)
        finished = False
        try:
            found = drift(api, source, options, ignore_fields=ignored, progress=progress.advance,
                          on_total=lambda total, done: progress.start(total, done), note=app.io.note)
            finished = True
        except ValidationStopped as stop:
            progress.stop(clear=True)
            problems = None
            if app.json_errors():  # -o json: the problems go in the one error object, as an import's do
                problems = [{"row": p.row or None, "line": p.line, "column": p.column or None, "message": p.message}
                            for p in stop.summary.problems]
            else:
                list_problems(app.io.write_err, stop.summary.problems)
            invalid = stop.summary.invalid
            raise CliError(f"{invalid} of {stop.summary.rows} rows {'is' if invalid == 1 else 'are'} invalid; "
                           "nothing was compared (fix them in the file and run again)" if invalid else
                           f"{source.display}: the columns are not right; nothing was compared",
                           errors=problems) from None
        except Stopped as stop:
            if stop.cause == "interrupted":
                raise CliError("interrupted: nothing was compared", ExitCode.INTERRUPTED) from None
            raise stopped_error(stop.cause, stop.message, "nothing was compared") from None
        finally:
            progress.stop(clear=not finished)
    return found


def _scoped(scope: Any) -> dict[str, Any]:
    """The import options' `scope` (wfctl.plans.scope): every parent in scope, and the records under it."""
    return {"scope": scope} if scope is not None else {}


def _show(app: AppContext, found: Drift, fmt: str, markdown: bool) -> None:
    from wfctl.render.output import markdown_table
    from wfctl.views import driftview

    io = app.io
    if markdown:
        header, rows = driftview.markdown_rows(found)
        io.write((markdown_table(header, rows) + "\n" if rows else "") + driftview.summary_line(found) + "\n")
    elif (out := app.output(fmt)).structured or out.shaped:
        summary = driftview.summary_object(found)
        out.run_rows(found.records, summary, key="records", as_json=functools.partial(driftview.record_object, found))
        if fmt == "jsonl":
            out.line(summary)
    else:
        driftview.write_text(io.write, found, terminal=io.stdout_is_tty)


def _scope(app: AppContext, kind: str, scope_args: ScopeArgs) -> Any:
    """The scope of a diff from a file (wfctl.plans.scope.resolve_scope): a kind with a parent needs one."""
    from wfctl.plans.scope import resolve_scope

    every = scope_args.all_clients or (kind == "client" and not scope_args.branch)  # clients: default every one
    return resolve_scope(app.client, kind, clients=scope_args.clients, branch=scope_args.branch, all_clients=every)


def _single_parent(kind: str, scope_args: ScopeArgs, scope: Any) -> str | None:
    """The parent every row goes to, as `import --client/--branch` puts them: one --client of sites, the
    --branch of clients; else None (rows name their own parent)."""
    if kind == "site" and len(scope_args.clients) == 1 and scope.parent_ids:
        return str(scope.parent_ids[0])
    if kind == "client" and scope_args.branch and scope.parent_ids:
        return str(scope.parent_ids[0])
    return None


def _plural(kind: str) -> str:
    from wfctl.plans.kinds import KINDS

    return KINDS[kind].plural


# -- profile to profile ------------------------------------------------------------------------------


@contextlib.contextmanager
def _other_profile_file(app: AppContext, kind: str, from_profile: str, scope_args: ScopeArgs,
                        reading: ReadOptions) -> Iterator[tuple[str, str | None, Any]]:
    """The other profile's scope exported (maps applied) to a temporary file, the parent its rows go to in
    this profile, and the look-up of a copied record in the other profile (crossprofile.SourceCheck); the
    file is removed at the end. Refused when both profiles are one service and scope."""
    from wfctl.compare.crossprofile import FieldMap, export_scope

    try:
        maps: list[FieldMap] = [FieldMap.parse(text, kind) for text in reading.maps]
    except ValueError as exc:
        raise CliError(str(exc)) from None
    from wfctl.compare.crossprofile import SourceCheck

    source_api, source_parent, target_parent, label = resolve_pair(app, kind, from_profile, scope_args)
    folder = tempfile.mkdtemp(prefix="wfctl-copy-")
    try:
        from wfctl.render.progress import reading as counted_read

        plural = _plural(kind)
        with counted_read(source_api, f"reading {plural} of profile {from_profile}", plural,
                          shown=app.io.stderr_is_tty) as (reader, on_record):  # as export shows its read
            path, _ = export_scope(reader, kind, [source_parent], folder, label, maps=maps,
                                   concurrency=reading.concurrency, on_record=on_record)
        yield path, target_parent, SourceCheck(source_api, kind, source_parent, app.settings.profile, from_profile,
                                               str(getattr(app.client, "base_url", "") or ""))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def resolve_pair(app: AppContext, kind: str, from_profile: str, scope_args: ScopeArgs
                 ) -> tuple[Any, str | None, str | None, str]:
    """(the other profile's client, its parent id, this profile's parent id, a label naming the copy):
    the parent named by the same reference in each profile (ids differ between deployments)."""
    from wfctl.api.records.refs import resolve
    from wfctl.plans.kinds import KINDS

    spec = KINDS[kind]
    if from_profile == app.settings.profile:
        raise CliError(f"--from-profile {from_profile} is the profile in use; name another")
    ref = _one_parent_ref(kind, scope_args)
    source_api = _profile_client(app, from_profile)
    source_parent = target_parent = None
    if spec.parent and ref is not None:
        source_parent = _in_profile(from_profile, lambda: resolve(source_api, spec.parent, ref))
        target_parent = _in_profile(app.settings.profile, lambda: resolve(app.client, spec.parent, ref))
    if _same_service(source_api, app.client) and source_parent == target_parent:
        raise CliError(f"profiles {from_profile} and {app.settings.profile} are the same service and agency, "
                       f"and this is the same scope: nothing to compare or copy")
    label = f"{from_profile}-{spec.plural}" + (f"-{ref}" if ref else "")
    return source_api, source_parent, target_parent, label


def _in_profile(profile: str, look_up: Any) -> Any:
    """`look_up()`, a reference looked up in one of two profiles: a name neither matches nor tells apart
    says which profile (`profile staging: no client 'Penine Foods Ltd'; did you mean ...`), its exit code kept."""
    from wfctl.api.records.refs import AmbiguousReference, NoSuchRecord
    from wfctl.errors import exit_code_for

    try:
        return look_up()
    except (NoSuchRecord, AmbiguousReference) as exc:
        raise CliError(f"profile {profile}: {exc.one_line()}", exit_code_for(exc)) from None


def _one_parent_ref(kind: str, scope_args: ScopeArgs) -> str | None:
    """The one parent of a copy between profiles: --client REF for sites, --branch REF for clients (rows
    are matched by name, and a row's parent id means nothing in the other deployment); branches: none."""
    if kind == "site":
        if len(scope_args.clients) != 1 or scope_args.branch or scope_args.all_clients:
            raise CliError("with --from-profile, give one --client <ref>: it is looked up by that reference in "
                           "each profile")
        return scope_args.clients[0]
    if kind == "client":
        if not scope_args.branch:
            raise CliError("with --from-profile, give --branch <ref>: it is looked up by that reference in "
                           "each profile")
        return scope_args.branch
    return None


def _profile_client(app: AppContext, profile: str) -> Any:
    """The Client of another profile (its own URL and login)."""
    from wfctl.config import load_settings
    from wfctl.errors import unknown_profile_message
    from wfctl.factory import client_for_settings

    missing = unknown_profile_message(profile)
    if missing:
        raise CliError(f"--from-profile: {missing}")
    return client_for_settings(load_settings(profile=profile), verbose=app.options.verbose, warn=app.io.warn)


def _same_service(one: Any, other: Any) -> bool:
    """Whether two clients reach the same agency of the same service (base URL, then the agency's id, or
    its name when it has none)."""
    if str(one.base_url).rstrip("/").lower() != str(other.base_url).rstrip("/").lower():
        return False
    first, second = one.get_agency(), other.get_agency()
    key = "id" if first.get("id") or second.get("id") else "name"
    return bool(first.get(key) == second.get(key))


def run_copy(app: AppContext, kind: str, from_profile: str, scope_args: ScopeArgs, reading: ReadOptions, *,
             dry_run: bool, yes: bool, report: str | None, journal: str | None, output: str | None,
             accept_spreadsheet_changes: bool, prune: dict[str, Any] | None = None) -> int:
    """`<kind> copy --from-profile`: the other profile's scope imported into this one's as `import
    --ignore-ids --on-existing update` imports it (a plan, journalled, resumable, undone by `imports
    undo`). On a terminal the plan is shown and asked about first; elsewhere --yes is needed. `prune`:
    `--prune`'s settings (prunerun.settings, its scope resolved here), or None: nothing is deleted."""
    from wfctl.drivers.bulkrun import run_import

    if not dry_run and not yes and not app.io.can_prompt:
        raise CliError(f"refusing to copy into profile {app.settings.profile} without confirmation: no terminal "
                       "to ask on; pass --yes (or --dry-run to see the plan)")
    with _other_profile_file(app, kind, from_profile, scope_args, reading) as (path, parent_id, source):
        from wfctl.compare.crossprofile import row_sources

        # each row's source id journalled (a later copy's prune looks its record up there by it)
        copying: dict[str, Any] = {"row_sources": row_sources(path)}
        if prune is not None:  # the scope here, as `import --prune` declares it; the same guards
            prune = {**prune, "scope": _scope(app, kind, scope_args), "source_check": source}

        def run(plan_only: bool) -> int:
            # the copy's own question was the prune's too: asked once
            pruning = copying if prune is None else {**copying, **prune, "yes": prune["yes"] or not plan_only}
            return run_import(app, kind, path, parent_id=parent_id, dry_run=plan_only, on_existing="update",
                              concurrency=reading.concurrency, report=report, journal=journal, delimiter=None,
                              skip_invalid=False, output=output, ignore_ids=True,
                              accept_spreadsheet_changes=accept_spreadsheet_changes, prune=pruning,
                              named=os.path.basename(path))  # as docs/imports.md names it

        if dry_run or yes:
            return run(dry_run)
        code = run(True)
        if code != 0:
            return code
        from wfctl.drivers.prompts import confirm

        if not confirm(f"Make these changes in profile {app.settings.profile}? [y/N]: ", app.io):
            app.io.write_err("Nothing was sent.\n")
            return int(ExitCode.USAGE)
        return run(False)
