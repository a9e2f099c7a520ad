"""The options of every `import` and `export` command, declared once (typer only: `--help` stays fast)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any, TypeVar

import typer

from wfctl.cmdline.completion_cache import complete_on_existing
from wfctl.commands.optiongroup import option_group
from wfctl.commands.output_options import OUTPUT_PANEL
from wfctl.drivers.asked import DIFF_ASKED as DIFF_ASKED
from wfctl.drivers.asked import DiffAsked

F = TypeVar("F", bound=Callable[..., Any])
#: The groups' values (ImportRun, PruneLimits, DiffAsked) are namespaces, not dataclasses: a dataclass is
#: made by compiling its methods, at the start of every command of the group (README, Performance).
INPUT_PANEL = "Input"
RUN_PANEL = "Run"

File = Annotated[str, typer.Argument(help="Workbook (.xlsx) or CSV file to import ('-' reads stdin). Its format: "
                                      "wfctl help csv.", metavar="FILE|-")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Validate and print the plan (to create, to update, "
                                      "unchanged, invalid); send nothing.", rich_help_panel=RUN_PANEL)]
OnExisting = Annotated[str, typer.Option(
    "--on-existing", help="A row whose record exists (same name): skip it, update it, or fail before sending.",
    rich_help_panel=RUN_PANEL, metavar="skip|update|fail", autocompletion=complete_on_existing)]
Concurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Requests in flight at once.",
                                          rich_help_panel=RUN_PANEL, min=1, max=256)]
SkipInvalid = Annotated[bool, typer.Option("--skip-invalid", help="Import the valid rows even when others "
                                           "are invalid (exit 10).", rich_help_panel=RUN_PANEL)]
Report = Annotated[str | None, typer.Option("--report", help="Write every input row with status, id and "
                                               "error columns to this CSV file.", rich_help_panel=OUTPUT_PANEL,
                                               metavar="FILE")]
Journal = Annotated[str | None, typer.Option("--journal", help="Where to record each row's outcome (to "
                                                "resume a killed run); default: under $XDG_STATE_HOME/wfctl.",
                                                rich_help_panel=RUN_PANEL, metavar="FILE")]
Delimiter = Annotated[str | None, typer.Option("--delimiter", help="Cell delimiter (default: ';' or ',', "
                                                  "whichever the header uses).", rich_help_panel=INPUT_PANEL,
                                                  metavar="C")]
Sheet = Annotated[str | None, typer.Option("--sheet", help="The workbook's sheet to read, by name or number "
                                             "from 1 (default: the first).", rich_help_panel=INPUT_PANEL,
                                             metavar="NAME|N")]
IgnoreColumns = Annotated[str | None, typer.Option(
    "--ignore-columns", help="Columns of your own to leave unread (e.g. Notes), comma-separated; any other "
    "column the format does not know is refused.", rich_help_panel=INPUT_PANEL, metavar="<a,b>")]
IgnoreIds = Annotated[bool, typer.Option(
    "--ignore-ids", help="Match rows by name only, ignoring an id column, and put them under --client/--branch "
    "whatever their parent columns say: to copy records exported from another parent (a row that carries an "
    "id is otherwise that record).", rich_help_panel=RUN_PANEL)]
AcceptSpreadsheetChanges = Annotated[bool, typer.Option(
    "--accept-spreadsheet-changes", help="Send changes that look like a spreadsheet's doing (leading zeros "
    "dropped, digits past the 15th zeroed, UTF-8 read as Windows-1252); without it they stop the run.",
    rich_help_panel=RUN_PANEL)]
AcceptRow = Annotated[list[int] | None, typer.Option(
    "--accept-row", help="Send this row's changes that look like a spreadsheet's doing, as they are (the row "
    "number the message names; repeat it for more rows): a deliberate `0427 -> 427`.",
    rich_help_panel=RUN_PANEL, metavar="N", min=1)]
ExportFile = Annotated[str | None, typer.Option("--file", "-f", help="Write to this file instead of stdout, whole "
                                                   "or not at all: a workbook when its name ends in .xlsx, else CSV "
                                                   "with a BOM (none with WFCTL_CSV=plain), or what -o json, jsonl "
                                                   "or yaml prints.",
                                                   rich_help_panel=OUTPUT_PANEL, metavar="FILE")]
ExportConcurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Full records read at once.",
                                                rich_help_panel=RUN_PANEL, min=1, max=64)]
DiffFile = Annotated[str | None, typer.Argument(
    help="Workbook (.xlsx) or CSV file, as export writes it ('-' reads stdin); none with --from-profile.",
    metavar="FILE|-", show_default=False)]
IgnoreFields = Annotated[str | None, typer.Option(
    "--ignore-fields", help="Fields not compared, comma-separated (e.g. phone,email).",
    rich_help_panel=INPUT_PANEL, metavar="<a,b>")]
Markdown = Annotated[bool, typer.Option(
    "--markdown", help="Print the differences as a Markdown table (for a pull request), then the counts.",
    rich_help_panel=OUTPUT_PANEL)]
FromProfile = Annotated[str | None, typer.Option(
    "--from-profile", help="Compare with (copy from) the same scope in this profile's deployment: the parent "
    "is looked up by the same reference in each profile, records are matched by name.",
    rich_help_panel=INPUT_PANEL, metavar="PROFILE")]
Map = Annotated[list[str] | None, typer.Option(
    "--map", help="With --from-profile: in column FIELD, replace every FROM by TO (a substring; repeatable), "
    "e.g. email:@staging.example=@example.com.", rich_help_panel=INPUT_PANEL, metavar="FIELD:FROM=TO")]
DiffConcurrency = Annotated[int, typer.Option("--concurrency", "-j", help="Requests in flight at once.",
                                              rich_help_panel=RUN_PANEL, min=1, max=64)]
PRUNE_PANEL = "Prune (delete what the file lacks)"
Prune = Annotated[bool, typer.Option(
    "--prune", help="Also delete the records in the declared scope that no row of the file keeps. Needs a "
    "scope (--client, --branch, --all-clients; clients: --branch, --all-branches; branches: the agency); "
    "lists every delete first and asks (--yes in scripts).", rich_help_panel=PRUNE_PANEL)]
MaxDeletes = Annotated[int, typer.Option(
    "--max-deletes", help="Refuse (exit 12) a prune of more records than this.", rich_help_panel=PRUNE_PANEL,
    min=0, metavar="N")]
MaxDeleteShare = Annotated[str, typer.Option(
    "--max-delete-share", help="Refuse (exit 12) a prune of a larger share of the scope's records: a percent "
    "(25%) or a fraction (0.25).", rich_help_panel=PRUNE_PANEL, metavar="SHARE")]
AllowDeletes = Annotated[int | None, typer.Option(
    "--allow-deletes", help="Go past the limits when the plan deletes exactly N records (the number it showed); "
    "any other number refuses.", rich_help_panel=PRUNE_PANEL, min=0, metavar="N")]
SkipMisplaced = Annotated[bool, typer.Option(
    "--skip-misplaced", help="With --prune: where the service lists records of another parent in the scope "
    "(their own clientId or branchId names it), leave them out and delete only what is proven, instead of "
    "stopping (exit 1). Each is named.", rich_help_panel=PRUNE_PANEL)]
Yes = Annotated[bool, typer.Option("--yes", "-y", help="Prune without asking (scripts); without a terminal "
                                   "to ask on, a prune needs it.", rich_help_panel=PRUNE_PANEL)]
PlanOut = Annotated[str | None, typer.Option(
    "--plan-out", help="With --dry-run: write the reviewed plan (creates, updates, deletes, each record as "
    "read) to this JSON file, for `import --plan`.", rich_help_panel=PRUNE_PANEL, metavar="FILE")]
PlanIn = Annotated[str | None, typer.Option(
    "--plan", help="Run exactly the plan --plan-out wrote, with the same FILE (unchanged since): nothing is "
    "planned again; each record the plan targets is read again, and one changed since refuses the run (exit 5).",
    rich_help_panel=PRUNE_PANEL, metavar="FILE")]
AllClients = Annotated[bool, typer.Option(
    "--all-clients", help="With --prune: the scope is every client (rows name their client).",
    rich_help_panel=PRUNE_PANEL)]
AllBranches = Annotated[bool, typer.Option(
    "--all-branches", help="With --prune: the scope is every branch (rows name their branch).",
    rich_help_panel=PRUNE_PANEL)]


class ImportRun(SimpleNamespace):
    """What an `import`'s run options asked for (--dry-run ... --prune, in --help's order)."""

    dry_run: bool = False
    on_existing: str = "skip"
    concurrency: int = 8
    skip_invalid: bool = False
    report: str | None = None
    journal: str | None = None
    delimiter: str | None = None
    sheet: str | None = None
    ignore_columns: str | None = None
    accept_spreadsheet_changes: bool = False
    accept_row: list[int] | None = None
    ignore_ids: bool = False
    prune: bool = False


class PruneLimits(SimpleNamespace):
    """What an `import`'s prune limits asked for (--max-deletes ... --plan, after the kind's scope options)."""

    max_deletes: int = 10
    max_delete_share: str = "25%"
    allow_deletes: int | None = None
    skip_misplaced: bool = False
    yes: bool = False
    plan_out: str | None = None
    plan: str | None = None


_RUN_OPTIONS = {"dry_run": DryRun, "on_existing": OnExisting, "concurrency": Concurrency, "skip_invalid": SkipInvalid,
                "report": Report, "journal": Journal, "delimiter": Delimiter, "sheet": Sheet,
                "ignore_columns": IgnoreColumns, "accept_spreadsheet_changes": AcceptSpreadsheetChanges,
                "accept_row": AcceptRow,
                "ignore_ids": IgnoreIds, "prune": Prune}
_LIMIT_OPTIONS = {"max_deletes": MaxDeletes, "max_delete_share": MaxDeleteShare, "allow_deletes": AllowDeletes,
                  "skip_misplaced": SkipMisplaced, "yes": Yes, "plan_out": PlanOut, "plan": PlanIn}
#: The defaults of the groups (a command's `run` and `limits` parameters).
IMPORT_RUN = ImportRun()
PRUNE_LIMITS = PruneLimits()


def _group(kind: type, options: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    defaults = kind()
    return {name: (option, getattr(defaults, name)) for name, option in options.items()}


def takes_import_run() -> Callable[[F], F]:
    """Give an `import` command the run options in place of its parameter `run: ImportRun = IMPORT_RUN`."""
    return option_group("run", _group(ImportRun, _RUN_OPTIONS), lambda values, ctx: ImportRun(**values))


def takes_prune_limits() -> Callable[[F], F]:
    """Give an `import` command the prune limits in place of its parameter `limits: PruneLimits = PRUNE_LIMITS`."""
    return option_group("limits", _group(PruneLimits, _LIMIT_OPTIONS), lambda values, ctx: PruneLimits(**values))


_DIFF_OPTIONS = {"from_profile": FromProfile, "field_map": Map, "ignore_fields": IgnoreFields, "ignore_ids": IgnoreIds,
                 "delimiter": Delimiter, "sheet": Sheet, "ignore_columns": IgnoreColumns, "concurrency": DiffConcurrency,
                 "markdown": Markdown}


def takes_diff_options() -> Callable[[F], F]:
    """Give a `diff` command its options in place of its parameter `asked: DiffAsked = DIFF_ASKED`."""
    return option_group("asked", _group(DiffAsked, _DIFF_OPTIONS), lambda values, ctx: DiffAsked(**values))
