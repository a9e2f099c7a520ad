"""`wfctl sites|branches|clients|agency edit`: a record (or every site of a client) in the person's editor.

The loop: write the buffer (kept under the state folder until the service has it: wfctl.editor.editstore),
open the editor, read the buffer back (wfctl.editor.editdoc) and check it with the update's rules; a problem
reopens it with the message above its line, the text kept. Then the record is read again and the edit
merged into it (wfctl.api.records.merge): another writer's change that does not overlap is kept and said; one that
overlaps reopens the buffer with both values (`--force` writes it as typed). The change is shown as
`update --dry-run` shows it and, on a terminal, asked for (`--yes` in scripts). One record is written
through the SDK's update (wfctl.api.records.updates: the PUT-clearing deployments of G13 lose nothing); a client's
sites are a journalled run on the one executor (wfctl.editor.editrun), which `wfctl imports undo` takes back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wfctl.clierror import Declined
from wfctl.drivers.invocation import resolve_in
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.drivers.asked import OutputOptions
    from wfctl.editor.editdoc import Shape
    from wfctl.editor.editstore import Buffer

#: A list's entry, as a message names it.
ENTRY_LABELS = {"rates": "rate", "departments": "department", "bannedWorkers": "banned worker"}

#: The editor used when neither $VISUAL nor $EDITOR is set, in this order (the first found).
DEFAULT_EDITORS = ("notepad",) if sys.platform == "win32" else ("vi", "nano")


@dataclass
class Session:
    """One edit: what it edits, how it is named to the person, and the command that reopens it."""

    app: AppContext
    kind: str
    key: str
    title: str
    command: str
    force: bool
    yes: bool
    max_change: Any = None  # a site's edit: the largest share (a Decimal percentage) a rate may move by


@dataclass(frozen=True)
class EditOptions:
    """What an edit is asked: the record of `kind` (`ref`; the agency: None), or with `scope` and no `ref`
    every site of that client; `max_change` (sites): --max-change, the largest move of a rate; `offered`:
    the options of the command (an ambiguous name says which one tells it apart)."""

    kind: str
    ref: str | None
    output: OutputOptions
    recover: bool = False
    yes: bool = False
    force: bool = False
    scope: str | None = None
    max_change: str | None = None
    offered: frozenset[str] = frozenset()


def edit(app: AppContext, opts: EditOptions) -> int:
    """Run one edit (a plain function of the options and the app's IO and client); the exit code."""
    kind, ref, scope, output, max_change = opts.kind, opts.ref, opts.scope, opts.output, opts.max_change
    recover, yes, force = opts.recover, opts.yes, opts.force
    from wfctl.api.domain.ratecalc import MAX_CHANGE, RateError, parse_percent
    from wfctl.api.records.resources import RESOURCES

    try:
        limit = MAX_CHANGE if max_change is None else parse_percent(max_change, "--max-change")
    except RateError as exc:
        raise CliError(str(exc)) from None
    from wfctl.editor.editdoc import shape_of
    from wfctl.editor.editstore import Buffer

    out = output.writer(app, kind)
    api = app.client
    plural = "agency" if kind == "agency" else RESOURCES[kind].plural
    stream = kind == "site" and ref is None
    if stream:
        client_id = resolve_in(app.client, "client", str(scope), offered=opts.offered)
        named = one_line(str(app.client.get_record("client", client_id).get("name") or ""))
        key, title = f"client-{client_id}", f"the sites of client \"{named}\" ({client_id})"
        command = f"wfctl sites edit --client {client_id}"
    elif kind == "agency":
        key, title, command = "agency", "the agency", "wfctl agency edit"
    else:
        owner = RESOURCES[kind].parent
        parent = resolve_in(app.client, owner, scope, offered=opts.offered) if scope and owner else None
        key = resolve_in(app.client, kind, str(ref), parent=parent, offered=opts.offered)
        title, command = f"{kind} {key}", f"wfctl {plural} edit {key}"
    session = Session(app, kind, key, title, command, force, yes, limit if kind == "site" else None)
    profile = app.settings.profile
    if recover:
        buffer = Buffer.newest(profile, kind, key)
        if buffer is None:
            raise CliError(f"no unsent edit of {title} to recover", ExitCode.NOT_FOUND)
        text, bases = buffer.text(), buffer.bases()
        app.io.note(f"reopening your unsent edit of {title}")
    else:
        earlier = Buffer.newest(profile, kind, key)
        if earlier is not None:
            app.io.note(f"note: an unsent edit of {title} is kept ({earlier.path}); `{command} --recover` reopens it")
        bases = _read_sites(app, key.removeprefix("client-")) if stream else _read(api, kind, key)
        if not bases:
            raise CliError(f"nothing to edit: {title.removeprefix('the sites of ')} has no sites", ExitCode.NOT_FOUND)
        text = _render(shape_of(kind), bases, session, stream)
        buffer = Buffer(profile, kind, key)
    if not stream and bases:
        session.title = _named(kind, bases[0])
    return _loop(session, out, buffer, text, bases, stream)


def _loop(session: Session, out: Any, buffer: Buffer, text: str, bases: list[dict[str, Any]], stream: bool) -> int:
    from wfctl.api.records.merge import changed, three_way
    from wfctl.editor import editdoc

    app, shape = session.app, editdoc.shape_of(session.kind)
    editor = _editor(app)
    while True:
        buffer.save(text, bases)
        shown = text
        _open(editor, str(buffer.path), session)
        text = buffer.text()
        clean = editdoc.without_marks(text)
        if editdoc.is_empty(clean):
            buffer.remove()
            app.io.write_err("Edit cancelled (the file was emptied); nothing was sent.\n")
            return 0
        pairs, problems = _read_back(shape, clean, bases, stream, session)
        if problems:
            if text == shown and editdoc.ERROR_MARK in shown:  # reopened with problems, closed unchanged: stop
                buffer.save(text, bases)
                raise CliError(f"the edit still has {len(problems)} problem{'s' if len(problems) != 1 else ''} "
                               f"({one_line(problems[0].message)}); your text is kept: `{session.command} --recover` "
                               "reopens it")
            text = editdoc.annotate(clean, problems)
            app.io.note(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in the edit: reopening it")
            continue
        pairs = [(base, mine) for base, mine in pairs if changed(shape.writable, base, mine)]
        if not pairs:
            buffer.remove()
            app.io.write_err("no changes\n")
            return 0
        currents = _read_again(app, session.kind, [_id_of(base) for base, _ in pairs], stream)
        merges = [(base, mine, currents[_id_of(base)], three_way(shape.writable, base, mine, currents[_id_of(base)]))
                  for base, mine in pairs]
        conflicted = [m for m in merges if m[3].conflicts]
        if conflicted and not session.force:
            bases, text = _reopen_with_conflicts(session, shape, bases, merges, stream)
            continue
        buffer.save(text, bases)
        return _send(session, out, buffer, shape, merges, stream)


def _read_back(shape: Shape, text: str, bases: list[dict[str, Any]], stream: bool,
               session: Session) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[Any]]:
    """(base, mine) for each record of the buffer, and the problems (a rate moved past --max-change among them)."""
    from wfctl.editor import editdoc

    try:
        docs = editdoc.documents(text)
    except editdoc.BufferProblems as exc:
        return [], exc.problems
    problems: list[Any] = []
    pairs = []
    by_id = {_id_of(base): base for base in bases}
    seen: set[str] = set()
    for index, doc in enumerate(docs):
        if stream:
            record_id = str(doc.values.get("id") or "")
            base = by_id.get(record_id)
            if base is None:
                problems.append(editdoc.Problem(doc.lines.get("id", doc.line), f"id: {record_id or '(none)'} is not one "
                                                "of this client's sites (an edit creates and moves nothing)"))
                continue
            if record_id in seen:
                problems.append(editdoc.Problem(doc.lines.get("id", doc.line), f"id: site {record_id} is given twice"))
                continue
            seen.add(record_id)
        elif index:
            problems.append(editdoc.Problem(doc.line, "one record only: remove this document (and its ---)"))
            continue
        else:
            base = bases[0]
        mine, found = editdoc.read_record(shape, doc, base)
        problems.extend(found)
        if session.max_change is not None and not found:
            problems.extend(_rates_moved(doc, base, mine, session))
        pairs.append((base, mine))
    return pairs, problems


def _rates_moved(doc: Any, base: dict[str, Any], mine: dict[str, Any], session: Session) -> list[Any]:
    """A problem at each rate that moves by more than --max-change (issue 49: `1225.00` typed for `12.25` was
    sent), saying how to send it on purpose."""
    import math

    from wfctl.api.domain.ratecalc import rates_moved
    from wfctl.editor import editdoc

    problems = []
    new = list(mine.get("rates") or [])
    for change, share in rates_moved(base.get("rates") or [], new, session.max_change):
        index = next(i for i, rate in enumerate(new) if rate.get("skill") == change.skill)
        allows = f"{math.ceil(share)}%" if share.is_finite() else "a larger share"
        problems.append(editdoc.Problem(doc.lines.get(f"rates[{index}]", doc.line), (
            f"rates: {change.skill} {change.old:.2f} -> {change.new:.2f} moves the rate by "
            f"{'more than from 0' if not share.is_finite() else f'{share:.0f}%'}, more than {session.max_change:g}%: "
            f"a slip? To send it on purpose: `{session.command} --recover --max-change {allows}`")))
    return problems


def _reopen_with_conflicts(session: Session, shape: Shape, bases: list[dict[str, Any]], merges: list[Any],
                           stream: bool) -> tuple[list[dict[str, Any]], str]:
    """The buffer again from the merged records, each overlap said above its field with the other value;
    its base is now the record as it is (saving it unchanged keeps the values you typed)."""
    from wfctl.api.records.recordrules import natural_key
    from wfctl.editor.editdoc import note_key, scalar

    app = session.app
    now = {_id_of(current): current for _, _, current, _ in merges}
    merged = {_id_of(current): {**current, **merge.merged} for _, _, current, merge in merges}
    records = [merged.get(_id_of(base), base) for base in bases]
    new_bases = [now.get(_id_of(base), base) for base in bases]
    notes: dict[int, dict[str, list[str]]] = {}
    count = 0
    for index, record in enumerate(records):
        for _, _, current, merge in merges:
            if _id_of(current) != _id_of(record):
                continue
            for c in merge.conflicts:
                count += 1
                what = f"{ENTRY_LABELS.get(c.field, c.field)} {c.key}" if c.key else c.field
                theirs = "removed" if c.theirs is None else _value_text(c.field, c.theirs, scalar)
                where = note_key(c.field, natural_key(c.key) if c.key is not None else None)
                notes.setdefault(index, {}).setdefault(where, []).append(
                    f"{what} was changed on the service since you opened it: theirs {theirs}; yours is below "
                    "(save as it is to keep yours)")
    app.io.write_err(f"{session.title} changed on the service while you edited it: {count} overlapping "
                     f"change{'s' if count != 1 else ''}; reopening with both values\n")
    return new_bases, _render(shape, records, session, stream, notes)


def _value_text(field: str, value: Any, scalar: Any) -> str:
    from wfctl.text.changes import field_text

    if isinstance(value, dict):
        return field_text(field, [value])
    return scalar(value)


def _send(session: Session, out: Any, buffer: Buffer, shape: Shape, merges: list[Any], stream: bool) -> int:
    from wfctl.api.records.merge import changed
    from wfctl.api.records.recordrules import changed_fields
    from wfctl.text.changes import lines

    app = session.app
    for _base, mine, current, merge in merges:
        target = mine if session.force else merge.merged
        diff = changed_fields(current, {k: target.get(k) for k in changed(shape.writable, current, target)})
        where = _named(session.kind, current)
        count = f"{len(diff)} field{'s' if len(diff) != 1 else ''} would change" if diff else "no change"
        app.io.write_err(f"{where}: {count}\n" + "".join(f"  {line}\n" for line in lines(session.kind, diff)))
        if merge.taken and not session.force:
            app.io.write_err(f"  merged, changed on the service since you opened it (kept): "
                             f"{'; '.join(lines(session.kind, merge.taken))}\n")
        if merge.conflicts and session.force:
            app.io.write_err(f"  --force: overwrites the service's change to "
                             f"{', '.join(dict.fromkeys(c.field for c in merge.conflicts))}\n")
    if not session.yes:
        if not app.io.can_prompt:
            raise CliError(f"no terminal to ask on; pass --yes (your text is kept: `{session.command} --recover` "
                           "reopens it)")
        from wfctl.drivers.prompts import confirm

        if not confirm("Apply? [y/N]: ", app.io):
            app.io.write_err(f"Not changed; your text is kept: `{session.command} --recover` reopens it.\n")
            raise Declined("not changed", ExitCode.USAGE)
    if stream:
        from wfctl.drivers.editstream import run_stream

        code = run_stream(app, out, shape, merges, key=session.key, command=session.command, force=session.force)
        buffer.remove()
        return code
    base, mine, current, _ = merges[0]
    record = _write(session, shape, base, mine, current)
    buffer.remove()
    out.record(record, session.kind)
    return 0


def _write(session: Session, shape: Shape, base: dict[str, Any], mine: dict[str, Any],
           current: dict[str, Any]) -> dict[str, Any]:
    from wfctl.api.records.merge import changed, three_way
    from wfctl.api.records.recordrules import restorable

    api = session.app.client

    def wanted(record: dict[str, Any]) -> dict[str, Any]:
        now = mine if session.force else three_way(shape.writable, base, mine, record).merged
        return {name: restorable(name, now.get(name)) for name in changed(shape.writable, record, now)}

    if session.kind == "agency":
        return dict(api.update_agency(wanted(current)))
    return dict(api.update_record(session.kind, session.key, wanted, seen=current))


# -- the editor --------------------------------------------------------------------------------
def _editor(app: AppContext) -> str:
    """$VISUAL, else $EDITOR, else the first of DEFAULT_EDITORS found (said once on stderr)."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    for name in DEFAULT_EDITORS:
        if shutil.which(name):
            app.io.note(f"opening {name} (set $EDITOR or $VISUAL to use another editor)")
            return name
    raise CliError("no editor found: set $EDITOR (e.g. export EDITOR=nano)")


def _open(editor: str, path: str, session: Session) -> None:
    """Run the editor on `path` as a shell would (`$EDITOR` may carry options: `code --wait`)."""
    if sys.platform == "win32":
        import shlex

        args = [*shlex.split(editor, posix=False), path]
    else:
        args = ["/bin/sh", "-c", f'{editor} "$@"', editor, path]
    sys.stdout.flush()
    sys.stderr.flush()
    terminal = None
    if not sys.stdout.isatty() and sys.platform != "win32":  # `edit -o json > out.json`: the editor still
        try:                                                    # draws on the terminal, as git's does
            terminal = open("/dev/tty", "r+b", buffering=0)  # noqa: SIM115 (closed below)
        except OSError:
            terminal = None
    try:
        code = subprocess.call(args, stdin=terminal, stdout=terminal)
    except OSError as exc:
        raise CliError(f"cannot run the editor {editor!r}: {exc.strerror or exc}; your text is kept: "
                       f"`{session.command} --recover` reopens it") from None
    finally:
        if terminal is not None:
            terminal.close()
    if code != 0:
        raise CliError(f"the editor {one_line(editor)!r} exited with {code}; nothing was sent; your text is kept: "
                       f"`{session.command} --recover` reopens it")


# -- helpers -----------------------------------------------------------------------------------
#: Sites read at once by `sites edit --client` (as `export` reads them).
READ_CONCURRENCY = 16


def _read(api: Any, kind: str, key: str) -> list[dict[str, Any]]:
    if kind == "agency":
        return [dict(api.get_agency())]
    return [api.get_record(kind, key)]


def _read_sites(app: AppContext, client_id: str) -> list[dict[str, Any]]:
    """Every site of the client, whole, read as `export` reads them (READ_CONCURRENCY at once, the export's
    progress line on a terminal): one at a time, 599 sites over a 50 ms link took 34 s of a blank screen."""
    from wfctl.render.progress import reading
    from wfctl.runs.exporter import full_records

    with reading(app.client, "reading sites", "sites", shown=app.io.stderr_is_tty) as (reader, on_record):
        sites = []
        for site in full_records(reader, "site", [client_id], READ_CONCURRENCY):
            sites.append(site)
            on_record()
    return sites


def _read_again(app: AppContext, kind: str, ids: list[str], stream: bool) -> dict[str, dict[str, Any]]:
    """id -> the record as the service holds it now, of each record the person changed (a client's sites:
    READ_CONCURRENCY at once, with a progress line on a terminal)."""
    from wfctl.api.records.ordered import ordered_map
    from wfctl.render.progress import counting

    api = app.client
    if not stream:
        return {ids[0]: _read(api, kind, ids[0] or "agency")[0]}
    read = {}
    with counting("reading sites again", "sites", shown=app.io.stderr_is_tty, total=len(ids)) as progress:
        for site_id, site in zip(ids, ordered_map(lambda i: api.get_record(kind, i), ids, READ_CONCURRENCY,
                                                   name="wfctl-edit"), strict=True):
            read[site_id] = site
            if progress is not None:
                progress.advance()
    return read


def _render(shape: Shape, records: list[dict[str, Any]], session: Session, stream: bool,
            notes: dict[int, dict[str, list[str]]] | None = None) -> str:
    from wfctl.editor.editdoc import render

    what = session.title.replace("the sites", f"the {len(records)} sites") if stream else \
        _named(session.kind, records[0]) if records else session.title
    fixed = {"site": "id and clientId", "client": "id and branchId", "branch": "id"}.get(session.kind)
    verb = "wfctl agency edit" if session.kind == "agency" else " ".join(session.command.split()[:3])
    header = [f"{verb}: {what}",
              "Change the values, save and close: the change is shown and asked for before anything is sent.",
              "One list entry a line: `- <skill>: <rate>`, `- <department>: {contactPerson: <name>}`, `- <worker-id>`.",
              "'' clears a text; a field left out keeps its value; lines starting with # are comments (read-only).",
              *([f"{fixed} cannot change (moving a {session.kind} is not an edit)."] if fixed else []),
              *(["A site left out of the stream is left as it is."] if stream else []),
              "Empty the file to cancel. Until it is sent, `--recover` reopens what you typed."]
    return render(shape, records, header, notes, _parent_names(session, records))


def _parent_names(session: Session, records: list[dict[str, Any]]) -> dict[str, str]:
    """Each record's parent id -> `client Pennine Foods Ltd`, written beside the id as `sites get` shows it
    (one GET a parent; a parent that cannot be read is left unnamed)."""
    from wfctl.api.errors import ApiError
    from wfctl.api.records.resources import RESOURCES

    spec = RESOURCES.get(session.kind)
    if spec is None or not spec.parent or not spec.parent_field:
        return {}
    names: dict[str, str] = {}
    for parent_id in dict.fromkeys(str(record.get(spec.parent_field) or "") for record in records):
        try:
            name = session.app.client.get_record(spec.parent, parent_id).get("name") if parent_id else None
        except ApiError:
            continue
        if name:
            names[parent_id] = f"{spec.parent} {one_line(str(name))}"
    return names


def _id_of(record: dict[str, Any]) -> str:
    return str(record.get("id") or "")


def _named(kind: str, record: dict[str, Any]) -> str:
    name = one_line(str(record.get("name") or ""))
    record_id = _id_of(record)
    if kind == "agency":
        return f"agency \"{name}\""
    return f"{kind} \"{name}\" ({record_id})" if name else f"{kind} {record_id}"
