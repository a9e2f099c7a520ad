"""The run halves of the record verbs (`branches`, `clients`, `sites`: list, get, create, update, delete;
`agency show`): each a plain function of an options dataclass and an `IO` (gh's `listRun(&opts)`). No click,
no process streams: `wfctl.commands.recordverbs` parses a command line into the options and calls one; a
test calls them with a recorded `wfctl.render.streams.TestIO` (tests/fast/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as default
from typing import TYPE_CHECKING, Any

from wfctl.api.records.resources import RESOURCES
from wfctl.clierror import CliError, Declined
from wfctl.exit_codes import ExitCode
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from wfctl.api.client import Page
    from wfctl.drivers.asked import OutputOptions
    from wfctl.render.output import Output
    from wfctl.render.streams import IO


@dataclass(frozen=True, kw_only=True)
class RecordRun:
    """What a record verb's run is given besides its own options (gh's Factory fields)."""

    kind: str
    client: Callable[[], Any]  # the Client, built when the run first needs it
    format: str = "table"  # the output format, resolved (-o, WFCTL_OUTPUT, the profile's, table)
    output: OutputOptions | None = None  # --fields and the query options (None: none given)
    offered: frozenset[str] = frozenset()  # the command's options (`--branch`): a message may name one


@dataclass(frozen=True, kw_only=True)
class ListOptions(RecordRun):
    parent: str | None = None
    page: int | None = None
    page_size: int | None = None
    all_pages: bool = False
    limit: int | None = None


@dataclass(frozen=True, kw_only=True)
class GetOptions(RecordRun):
    record_id: str
    scope: str | None = None  # a site's --client: a name is looked for among that client's sites


@dataclass(frozen=True, kw_only=True)
class CreateOptions(RecordRun):
    changes: dict[str, Any]
    parent: str | None = None
    from_file: str | None = None
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class UpdateOptions(RecordRun):
    record_id: str
    changes: dict[str, Any]
    from_file: str | None = None
    dry_run: bool = False
    edits: dict[str, list[str]] = default(default_factory=dict)  # a site's list edits (--add-banned-worker...)
    scope: str | None = None


@dataclass(frozen=True, kw_only=True)
class DeleteOptions(RecordRun):
    record_id: str
    yes: bool = False
    dry_run: bool = False
    scope: str | None = None


@dataclass(frozen=True, kw_only=True)
class ShowAgencyOptions(RecordRun):
    kind: str = "agency"
    remember: Callable[[dict[str, Any]], None] = lambda record: None  # the calendar commands' copy


OPTION_FOR = {"name": "--name", "address": "--address", "phone": "--phone", "email": "--email",
              "branchId": "--branch", "clientId": "--client", "billingAddress": "--billing-address",
              "assessmentRequired": "--assessment-required", "rates": "--rate", "departments": "--department",
              "bannedWorkers": "--banned-worker", "workWeekStart": "--work-week-start",
              "calendarYearStart": "--calendar-year-start", "holidayYearStart": "--holiday-year-start",
              "holidayCapHours": "--holiday-cap-hours"}



# -- the verbs ---------------------------------------------------------------------------------
def run_list(opts: ListOptions, io: IO) -> None:
    """`<kind>s list`: a page, or every page from --page on, written as each arrives."""
    kind, page_size, limit = opts.kind, opts.page_size, opts.limit
    out = writer(opts, io, kind)
    _refuse_fields_not_listed(kind, out.fields)
    asked = page_size  # the user's --page-size: a service that serves fewer a page (G7: 100) is said
    if limit is not None and page_size is None and not opts.all_pages:
        page_size = min(limit, 100)
    shape = _shape(opts)
    more = opts.all_pages or limit is not None or shape.whole  # --sort-by, --jq: the answer needs every page
    client = opts.client()
    spec = RESOURCES[kind]
    given = _required(opts.parent, f"--{spec.parent}") if spec.nested else opts.parent  # a site: within its client
    parent = _resolve(opts, spec.parent, given) if given and spec.parent else None
    pages: Iterable[Page] = client.list_records(kind, parent, page=opts.page, page_size=page_size, all_pages=more,
                                                limit=limit)
    if parent and given and spec.parent and spec.parent_field:
        if not spec.nested:  # G9: a branch's clients only, even where the service ignores branchId
            pages = _only(pages, spec.parent_field, parent)
        pages = _existing_parent(client, pages, spec.parent, parent, given)
    if shape and shape.needs & set(spec.not_in_list_items):
        pages = _full_records(client, kind, pages)  # --columns rate:..., --sort-by banned:count: list items lack them
    out.pages(_capped_said(io, pages, asked), kind, limit=limit)


def _full_records(client: Any, kind: str, pages: Iterable[Page]) -> Iterator[Page]:
    """Each page with its records read whole (16 at once, in order), as `rates list` reads sites; a record
    deleted since it was listed is left out."""
    from wfctl.api.errors import NotFound
    from wfctl.api.records.ordered import ordered_map

    def full(row: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return dict(client.get_record(kind, str(row["id"])))
        except NotFound:
            return None

    for page in pages:
        page.data = [record for record in ordered_map(full, page.data, 16) if record is not None]
        yield page


def _capped_said(io: Any, pages: Iterable[Page], asked: int | None) -> Iterator[Page]:
    """`pages`; a note on a terminal when the first holds fewer records a page than --page-size asked for and
    more records than it holds (`--page-size 1000` became 100 in silence)."""
    for index, page in enumerate(pages):
        if index == 0 and asked and page.page_size < asked and page.total_record_count > page.page_size:
            io.note(f"--page-size {asked}: the service serves at most {page.page_size} records a page")
        yield page


def _existing_parent(client: Any, pages: Iterable[Page], kind: str, parent: str, given: str) -> Iterator[Page]:
    """`pages`, unless the parent `given` (resolved to the id `parent`) names no record: then `no branch
    'X'` (exit 4), never an empty list. Checked only when the list is empty (a whole id, taken unread:
    one GET then; a name was found in a list already)."""
    from wfctl.api.errors import NotFound
    from wfctl.api.records.refs import NoSuchRecord, require

    iterator = iter(pages)
    try:
        first = next(iterator)
    except NotFound:  # the service's 404 for the parent's collection
        raise NoSuchRecord(kind, given) from None
    except StopIteration:
        return
    if first.total_record_count == 0 and not first.data:
        require(client, kind, parent, given)
    yield first
    yield from iterator


def _refuse_fields_not_listed(kind: str, fields: list[str] | None) -> None:
    """A list item lacks some fields (the full record has them): an empty column for them would read as
    "none", and an import of the file would clear them. Exit 2, pointing at what has them."""
    missing = [name for name in fields or [] if name in RESOURCES[kind].not_in_list_items]
    if missing:
        plural = RESOURCES[kind].plural
        raise CliError(f"--fields {','.join(missing)}: a {kind} list does not carry "
                       f"{'it' if len(missing) == 1 else 'them'}; use `wfctl {plural} export` (every field of "
                       f"every {kind}) or `wfctl {plural} get <id>`")


def run_get(opts: GetOptions, io: IO) -> None:
    """`<kind>s get`: the whole record; on a terminal's table, its parent's name after the parent's id."""
    kind = opts.kind
    out = writer(opts, io, kind)
    record_id = _resolved(opts, opts.record_id, opts.scope)
    client = opts.client()
    record = _read_or_say_its_kind(client, kind, record_id)
    parent_field = RESOURCES[kind].parent_field
    if out.tabular and io.stdout_is_tty and parent_field and record.get(parent_field):
        record = _with_parent_name(client, kind, record, parent_field)
    out.record(record, kind)


def _read_or_say_its_kind(client: Any, kind: str, record_id: str) -> dict[str, Any]:
    """The record; a whole id of another kind's record (a client's id given to `sites get`) is said so, exit 4."""
    from wfctl.api.errors import NotFound
    from wfctl.api.records.refs import is_whole_id, kind_of

    try:
        return dict(client.get_record(kind, record_id))
    except NotFound:
        other = kind_of(client, record_id, besides=kind) if is_whole_id(record_id) else None
        if other is None:
            raise
    raise CliError(f"no {kind} {record_id}: it is a {other}'s id (`wfctl {RESOURCES[other].plural} get {record_id}`)",
                   ExitCode.NOT_FOUND)


def _with_parent_name(client: Any, kind: str, record: dict[str, Any], parent_field: str) -> dict[str, Any]:
    """`record` with its parent's name after the parent's id (`client name  Pennine Foods Ltd`), as a person
    reads it on a terminal (one GET more; as it was when the parent cannot be read)."""
    from wfctl.api.errors import ApiError

    parent = str(RESOURCES[kind].parent)
    try:
        name = client.get_record(parent, str(record[parent_field])).get("name")
    except ApiError:
        return record
    out: dict[str, Any] = {}
    for key, value in record.items():
        out[key] = value
        if key == parent_field and name:
            out[f"{parent}Name"] = name
    return out


def run_create(opts: CreateOptions, io: IO) -> None:
    """`<kind>s create`: the fields checked here, then sent once (a lost answer is found again: G20)."""
    kind, parent, from_file = opts.kind, opts.parent, opts.from_file
    out = writer(opts, io, kind)
    spec = RESOURCES[kind]
    changes = _decode_lists(opts.changes)
    given = _given(changes)
    values, file_id = read_record_file(from_file, io.stdin) if from_file else ({}, "")
    if file_id:  # the file is that record: a create would make a second one
        raise CliError(f"--from-file {from_file} is {kind} {file_id}: `wfctl {spec.plural} update {file_id} "
                       f"--from-file {from_file}` changes it; to create a new {kind} from it, remove its \"id\"")
    if spec.parent_field:
        parent = parent or values.get(spec.parent_field)
        values.pop(spec.parent_field, None)
        if spec.parent_in_body and spec.parent and parent:
            parent = _resolve(opts, spec.parent, str(parent))
            values[spec.parent_field] = parent
            given.add(spec.parent_field)
    values.update({k: v for k, v in changes.items() if v is not None})
    body = validate_body(kind, "create", values, given)
    if spec.nested and spec.parent:  # a site is created under its client
        parent = _resolve(opts, spec.parent, _required(parent, f"--{spec.parent}"))
    path = spec.collection_path(parent)
    if opts.dry_run:
        _dry_run(out, "POST", path, body, kind)
        return
    outcome = opts.client().create_outcome(kind, parent, body)
    if outcome.made and not outcome.sure:
        from wfctl.api.records.writes import UNSURE

        io.note(f"note: the {kind} was {UNSURE}")
    out.record(outcome.created(kind, body), kind)


def run_update(opts: UpdateOptions, io: IO) -> None:
    """`<kind>s update`. `edits` are the site's list edits (--add-banned-worker, --set-rate, ...), applied to
    the current lists; everything else replaces the field it names."""
    from wfctl.api.records.recordrules import changed_fields, update_body
    from wfctl.text.changes import as_json, lines

    kind, from_file = opts.kind, opts.from_file
    out = writer(opts, io, kind)
    spec = RESOURCES[kind]
    changes = _decode_lists(opts.changes)
    given = _given(changes)
    values, file_id = read_record_file(from_file, io.stdin) if from_file else ({}, "")
    if spec.parent_field:
        values.pop(spec.parent_field, None)  # a record's parent is not changed by update
    values.update({k: v for k, v in changes.items() if v is not None})
    edits = {k: v for k, v in opts.edits.items() if v}
    if not values and not edits:
        raise CliError(f"nothing to update: give a field option ({', '.join(OPTION_FOR[f] for f in spec.writable)}) "
                       "or --from-file")
    fixed = validate_body(kind, "update", values, given) if values else {}
    client = opts.client()
    record_id = _resolved(opts, opts.record_id, opts.scope)
    if file_id and file_id != record_id:  # another record's file: it would copy that one's fields over this
        raise CliError(f"--from-file {from_file} is {kind} {file_id}, not {record_id}: give that id, or remove "
                       "the file's \"id\" to use its fields for this one")
    current = client.get_record(kind, record_id)

    def edit(record: dict[str, Any]) -> dict[str, Any]:
        """The changes to `record`: the list edits are made again to each new state of it."""
        if not edits:
            return fixed
        from wfctl.drivers.list_edits import apply, say, validated

        told = apply(record, fixed, edits, again=record is not current, note=lambda text: say(text, io))
        return {**fixed, **validated(kind, record, told, edits)}

    body = edit(current)
    if spec.list_fields:  # what a replacing option drops is said, as a list edit's surprises are (issue 36)
        from wfctl.drivers.list_edits import dropped, say

        for text in dropped(current, fixed):
            say(text, io)
    if opts.dry_run:
        from wfctl.api.records.updates import put_body

        path = spec.record_path(record_id)
        diff = changed_fields(current, update_body(kind, current, body))
        if out.structured:
            out.value({"dryRun": True, "method": "PUT", "path": path,
                       "body": put_body(client.put_clears, kind, current, body), "changes": as_json(diff)})
            return
        summary = "no change" if not diff else f"{len(diff)} field{'s' if len(diff) != 1 else ''} would change"
        out.result({"dryRun": True, "message": f"dry run: would send PUT {path} (nothing sent): {summary}"})
        io.write("".join(f"  {line}\n" for line in lines(kind, diff)))
        return
    # No `current`: the record is read again just before the write (a list edit is made to that copy);
    # `seen`: a field moved since the first read is said where the whole record has to be sent (G13).
    out.record(client.update_record(kind, record_id, edit, seen=current), kind)


def run_delete(opts: DeleteOptions, io: IO) -> None:
    """`<kind>s delete`: asked on a terminal (--yes: not asked), refused without one."""
    from wfctl.drivers.prompts import confirm

    kind, yes = opts.kind, opts.yes
    out = writer(opts, io)
    record_id = _resolved(opts, opts.record_id, opts.scope)
    path = RESOURCES[kind].record_path(record_id)
    if opts.dry_run:
        _dry_run(out, "DELETE", path, None, kind)
        return
    if not yes and not io.can_prompt:
        raise CliError(f"refusing to delete {kind} {record_id} without confirmation: "
                       "no terminal to ask on; pass --yes")
    said = out.format == "table" and io.stdout_is_tty  # a person reads the outcome: name the record
    client = opts.client()
    record = client.get_record(kind, record_id) if not yes or said else None  # a 404 ends here, exit 4
    if not yes and not confirm(f"Delete {_named(kind, record_id, record)}{_of_parent(client, kind, record)}"
                               "? [y/N]: ", io):
        # the user's answer, not a failure: no "error:", exit 2 (issue 11, as gh)
        io.write_err("Not deleted.\n")
        raise Declined("not deleted", ExitCode.USAGE)
    answer = client.delete_record(kind, record_id) or {"status": "success", "message": f"{kind} deleted"}
    if said:
        io.write(f"Deleted {_named(kind, record_id, record)}\n")
    else:
        out.result(answer)  # json: the service's {status, message}; a pipe: its message, as before


def _named(kind: str, record_id: str, record: dict[str, Any] | None) -> str:
    """site "Dock 4" (629bac2d…): the name whole, the id shortened (the prompt is for a person)."""
    short = record_id if len(record_id) <= 9 else record_id[:8] + "…"
    name = (record or {}).get("name")
    if not name:
        return f"{kind} {one_line(record_id)}"
    return f"{kind} \"{one_line(str(name))}\" ({one_line(short)})"


def _of_parent(client: Any, kind: str, record: dict[str, Any] | None) -> str:
    """ of client Pennine Foods (a site), of branch Leeds (a client), nothing for a branch; nothing
    either when the parent cannot be read (the prompt still names the record)."""
    parent, field = RESOURCES[kind].parent, RESOURCES[kind].parent_field
    if parent is None or field is None or not record or not record.get(field):
        return ""
    from wfctl.api.errors import ApiError

    try:
        name = client.get_record(parent, str(record[field])).get("name")
    except ApiError:
        return ""
    return f" of {parent} {one_line(str(name))}" if name else ""


def run_show_agency(opts: ShowAgencyOptions, io: IO) -> None:
    """`agency show`: the agency of the account logged in with."""
    out = writer(opts, io, "agency")
    record = opts.client().get_agency()
    opts.remember(record)
    out.record(record, kind="agency")


# -- helpers -----------------------------------------------------------------------------------
def writer(opts: RecordRun, io: IO, kind: str | None = None) -> Output:
    """The run's Output on `io`: its format, --fields of a `kind` record checked (exit 2), its query options."""
    from wfctl.render.output import Output as Writer

    fields = opts.output.fields if opts.output else None
    shape = _shape(opts)
    if not shape:
        return Writer(io, opts.format, fields=fields, kind=kind)
    from wfctl.render.shaped import ShapedOutput

    return ShapedOutput(io, opts.format, shape, fields=fields, kind=kind)


def _shape(opts: RecordRun) -> Any:
    from wfctl.render.shaped import Shape

    return opts.output.shape if opts.output else Shape()


def _resolve(opts: RecordRun, kind: str, ref: str, *, parent: str | None = None) -> str:
    from wfctl.drivers.invocation import resolve_in

    return resolve_in(opts.client(), kind, ref, parent=parent, offered=opts.offered)


def _resolved(opts: RecordRun, ref: str, scope: str | None) -> str:
    """The id `ref` names (wfctl.api.records.refs); `scope` (a site's --client) narrows a name to that client's."""
    owner = RESOURCES[opts.kind].parent
    parent = _resolve(opts, owner, scope) if scope and owner else None
    return _resolve(opts, opts.kind, ref, parent=parent)


def _decode_lists(changes: dict[str, Any]) -> dict[str, Any]:
    """--rate SKILL=RATE and --department NAME[:CONTACT[:EMAIL]] values as the service's objects
    (the cell syntax of the CSV format, escapes included); an empty list means "not given"."""
    from wfctl.files import csvformat

    decoded = dict(changes)
    for field, decode in (("rates", csvformat.decode_rates), ("departments", csvformat.decode_departments)):
        items: list[Any] = []
        for value in changes.get(field) or []:
            try:
                items.extend(decode(value))
            except csvformat.CellError as exc:
                raise CliError(f"{OPTION_FOR[field]}: {exc}", title="invalid input",
                               errors={field: [str(exc)]}) from None
        decoded[field] = items or None
    if "bannedWorkers" in changes:
        decoded["bannedWorkers"] = list(changes["bannedWorkers"] or []) or None
    return decoded


def _given(changes: dict[str, Any]) -> set[str]:
    return {field for field, value in changes.items() if value is not None}


def _required(value: str | None, option: str) -> str:
    if not value:
        raise CliError(f"missing option {option}")
    return value


def _only(pages: Iterable[Page], field: str, value: str) -> Iterator[Page]:
    for page in pages:
        page.data = [row for row in page.data if row.get(field) == value]
        yield page


def read_record_file(path: str, stdin: Any = None) -> tuple[dict[str, Any], str]:
    """The record in a --from-file JSON file (`-` is stdin: `stdin`, else the process's), without the
    read-only fields of `get -o json`, and the id it carries ("" when none): a file that carries an id is
    that record (as an import row)."""
    from wfctl.drivers.invocation import read_json_input

    values = read_json_input(path, "--from-file", stdin)
    if not isinstance(values, dict):
        raise CliError(f"--from-file {path}: expected a JSON object with the record's fields")
    from wfctl.api.records.recordrules import READ_ONLY

    record_id = values.get("id")
    return {k: v for k, v in values.items() if k not in READ_ONLY}, "" if record_id in (None, "") else str(record_id)


def validate_body(kind: str, action: str, values: dict[str, Any], given: set[str]) -> dict[str, Any]:
    """The JSON body, checked with the service's field rules (G11); a problem names its option (the one
    wording of a pydantic error for a command line; `given`: the fields given by an option, not a file)."""
    from pydantic import ValidationError

    from wfctl.api.records.models import WRITE_MODELS, field_errors

    try:
        return WRITE_MODELS[(kind, action)].model_validate(values).body()
    except ValidationError as exc:
        errors = field_errors(exc)
    parts = []
    for location, messages in errors.items():
        field = location.split(".")[0].split("[")[0]
        if field in given:
            where = OPTION_FOR[field]
        elif field in values:
            where = f"--from-file: {location}"
        elif field in OPTION_FOR and messages == ["is required"]:  # a required option nobody gave: as click says it
            parts.append(f"missing option {OPTION_FOR[field]}")
            continue
        else:
            where = OPTION_FOR.get(field, field)
        parts.append(f"{where}: {'; '.join(messages)}")
    raise CliError("; ".join(parts), title="invalid input", errors=errors)


def _dry_run(out: Any, method: str, path: str, body: dict[str, Any] | None, kind: str) -> None:
    if out.structured:
        out.value({"dryRun": True, "method": method, "path": path, "body": body})
        return
    out.result({"dryRun": True, "message": f"dry run: would send {method} {path} (nothing sent)"})
    if body is not None:
        out.record(body, kind)
