#!/usr/bin/env python3
"""Move wfctl's modules into packages named for what they hold (issue 46), and rewrite every reference.

    python3 tools/relayout.py            # from the repository root, on a clean tree; then commit the result

Deterministic and idempotent: a module already at its new place is skipped, and a reference already
rewritten matches no old name, so running it again on a tree (or on main after other branches merged)
changes only what still names an old place. It:

1. `git mv`s each module of MOVES whose old file exists, creating the new packages with an EMPTY
   `__init__.py` (no imports: `wfctl --version` and a Tab press load nothing more);
2. rewrites `from <package> import <module>` statements that name a moved module (one statement per
   new package, `as <old name>` where the module was renamed), the `_LAZY` table of `wfctl/api/__init__.py`,
   then every dotted name (`wfctl.bulk.journal`: imports, strings, monkeypatch targets, `-m` arguments)
   and every path (`wfctl/bulk/journal.py`) in the files of REWRITE_ROOTS;
3. sorts the imports of the Python files it changed (`ruff check --select I --fix`, when ruff is found);
4. lists, and exits 1 on, any module left in a folder the map empties (a module added there since the map
   was written: map it here and run again), and warns of modules in the folders it thins that are neither
   moved nor named in STAYS, and of references to the emptied packages themselves (hand edits).

It needs only python3 and git (ruff optional).
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

# --------------------------------------------------------------------------------------------------------
# The map: old dotted module -> new dotted module. Only data above the line of dashes below.
# --------------------------------------------------------------------------------------------------------


def _group(package: str, olds: str, renames: dict[str, str] | None = None) -> dict[str, str]:
    """Each old module (space-separated) into `package`, under its own last name unless renamed."""
    renames = renames or {}
    return {old: f"{package}.{renames.get(old, old.rpartition('.')[2])}" for old in olds.split()}


MOVES: dict[str, str] = {
    # the command line and its fast paths: the entry, the root app, the one parse, help and Tab answers
    **_group("wfctl.cmdline", "wfctl.cli wfctl.main wfctl.startup wfctl.argv wfctl.helpindex "
             "wfctl.completeanswer wfctl.indexbuilder wfctl.coercion wfctl.completion_cache "
             "wfctl.help_format wfctl.typercompat", {"wfctl.cli": "app"}),
    # every way a record leaves the program: formats, tables, streams, queries, progress
    **_group("wfctl.render", "wfctl.output wfctl.tables wfctl.streams wfctl.shaped wfctl.shaping "
             "wfctl.query wfctl.querybinding wfctl.jqlib wfctl.yamltext wfctl.progress"),
    # text for a person, shared by bulk and rendering alike (below both)
    **_group("wfctl.text", "wfctl.safetext wfctl.changes"),
    # the SDK: the wire (httpx transport, TLS, retries, limits, origins, the lean writer, answers)
    **_group("wfctl.api.net", "wfctl.api.transport wfctl.api.tls wfctl.api.retry wfctl.api.limits "
             "wfctl.api.origin wfctl.api.lean wfctl.api.responses wfctl.api.redact"),
    # the SDK: a login (token sources, the pair, where it is kept)
    **_group("wfctl.api.session", "wfctl.api.auth wfctl.api.tokens wfctl.api.tokenpair "
             "wfctl.api.tokenvalues wfctl.api.store wfctl.api.keyringsplit wfctl.api.credprocess "
             "wfctl.api.tokenhelper wfctl.winacl"),
    # the SDK: records (definitions, models, the rules of a write, pages, references, merge)
    **_group("wfctl.api.records", "wfctl.api.models wfctl.api.resources wfctl.api.recordmethods "
             "wfctl.api.recordrules wfctl.api.pagination wfctl.api.pagereader wfctl.api.page "
             "wfctl.api.ordered wfctl.api.listcheck wfctl.api.refs wfctl.api.writes wfctl.api.updates "
             "wfctl.api.merge wfctl.api.writelog wfctl.api.branchfilter"),
    # the SDK: the domain's planners (rates, bans)
    **_group("wfctl.api.domain", "wfctl.api.rates wfctl.api.ratecalc wfctl.api.rateapply "
             "wfctl.api.ratereads wfctl.api.bans wfctl.api.banapply wfctl.api.banreads"),
    # files: the CSV format, CSV and workbook reading and writing, what a spreadsheet does to a file
    **_group("wfctl.files", "wfctl.csvformat wfctl.bulk.errors wfctl.bulk.files wfctl.bulk.reader "
             "wfctl.bulk.readings wfctl.bulk.workbook wfctl.bulk.sheetxml wfctl.bulk.sheetwriter "
             "wfctl.bulk.cellformat wfctl.bulk.typedtext wfctl.bulk.damage wfctl.bulk.suspects "
             "wfctl.bulk.spool"),
    # plans: an import planned into a value, its scope and kinds, the site actions a run is made of
    **_group("wfctl.plans", "wfctl.bulk.plan wfctl.bulk.planning wfctl.bulk.prepare wfctl.bulk.savedplan "
             "wfctl.bulk.scope wfctl.bulk.lookup wfctl.bulk.renames wfctl.bulk.newrows "
             "wfctl.bulk.validation wfctl.bulk.fastcheck wfctl.bulk.kinds wfctl.bulk.importtypes "
             "wfctl.bulk.siteaction wfctl.bulk.rateset wfctl.bulk.banset wfctl.bulk.prune"),
    # runs: the one executor, the run session (record, journal, lock), undo, an import and an export run
    **_group("wfctl.runs", "wfctl.bulk.engine wfctl.bulk.sending wfctl.bulk.groupwrite wfctl.bulk.journal "
             "wfctl.bulk.runjournal wfctl.bulk.runs wfctl.bulk.runfiles wfctl.bulk.runrecord "
             "wfctl.bulk.undo wfctl.bulk.undoer wfctl.bulk.skipped wfctl.bulk.importer "
             "wfctl.bulk.exporter wfctl.bulk.journalentry wfctl.bulk.journalread"),
    # views: what a plan, a journal or a diff says to a person or a program
    **_group("wfctl.views", "wfctl.bulk.importview wfctl.bulk.driftview wfctl.bulk.shortview "
             "wfctl.bulk.report"),
    # the editor: the YAML buffer, where it is kept, the run of an edit of many sites
    **_group("wfctl.editor", "wfctl.bulk.editdoc wfctl.bulk.editstore wfctl.bulk.editrun"),
    # compare: a file (or another profile) against the service
    **_group("wfctl.compare", "wfctl.bulk.drift wfctl.bulk.crossprofile"),
    # the CLI side of a run, out of commands/: a verb parses its options and calls one of these
    **_group("wfctl.drivers", "wfctl.commands.bulkrun wfctl.commands.prunerun wfctl.commands.siterun "
             "wfctl.commands.driftrun wfctl.commands.editing wfctl.commands.editstream "
             "wfctl.commands.exportrun wfctl.commands.list_edits wfctl.commands.sitescope "
             "wfctl.commands.renamecheck wfctl.commands.findings wfctl.commands.prompts wfctl.commands.recordrun "
             "wfctl.execsetup wfctl.execrun "
             "wfctl.commands.bans.run wfctl.commands.rates.run wfctl.commands.rates.common",
             {"wfctl.commands.bans.run": "bansrun", "wfctl.commands.rates.run": "ratesrun",
              "wfctl.commands.rates.common": "ratescommon"}),
}

#: near-synonym modules merged by idea, or renamed so the difference is plain (issue 46, second pass):
#: old dotted module -> new. A merge (several olds, one new) is made by hand first (the olds' code in the new
#: module, the olds removed); this map then rewrites the references, and a rename is a move like the above.
#: An entry of MOVES whose new module is named here goes straight to its final place.
MERGES: dict[str, str] = {
    "wfctl.plans.rateset": "wfctl.plans.siteaction",  # the actions of rates set and bans: one site action
    "wfctl.plans.banset": "wfctl.plans.siteaction",
    "wfctl.runs.runrecord": "wfctl.runs.session",  # what a run is, where its journal lives, its lock
    "wfctl.runs.runfiles": "wfctl.runs.session",
    "wfctl.runs.runjournal": "wfctl.runs.importer",  # which journal an import writes: the import run's
    "wfctl.plans.plan": "wfctl.views.planview",  # each row's change, for a person and a program: a view
    "wfctl.plans.planning": "wfctl.plans.importplan",  # an import's plan as a value
    "wfctl.runs.runs": "wfctl.runs.runlist",  # the runs of a profile, found and summed up
    "wfctl.render.shaping": "wfctl.render.sortcolumns",  # --sort-by and --columns (shaped.py: the queries)
    "wfctl.files.readings": "wfctl.files.sheetreadings",  # how a spreadsheet reads text (reader.py: CSV input)
    "wfctl.files.suspects": "wfctl.files.createdamage",  # a create's cells checked (damage.py: an update's)
    "wfctl.plans.prepare": "wfctl.plans.readyplan",  # a plan made ready to run: prepared, or saved and run as
    "wfctl.plans.savedplan": "wfctl.plans.readyplan",  # reviewed
}
MOVES = {old: MERGES.get(new, new) for old, new in MOVES.items()} | MERGES

#: folders the map empties: a module left in one after the moves is one the map does not know (exit 1)
EMPTIED = ["wfctl/bulk"]

#: modules that stay where they are in the folders the map thins; any other module there is warned of
STAYS = {
    "wfctl": "__init__ __main__ clierror config context dirs errors exit_codes factory fsutil history profiles",
    "wfctl/api": "__init__ client compat errors runsupport",
}

#: where references are rewritten (files, or folders walked for text files)
REWRITE_ROOTS = ["wfctl", "tests", "bench", "docs", "examples", "README.md", "pyproject.toml", ".importlinter", "dev.py",
                 ".ci", "completions"]

# --------------------------------------------------------------------------------------------------------

ROOT = Path.cwd()
SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
SKIP_SUFFIXES = {".pyc", ".png", ".jpg", ".xlsx", ".ods", ".zip", ".gz", ".db", ".sqlite"}
LINE_LENGTH = 110


def path_of(dotted: str) -> Path:
    return Path(*dotted.split(".")).with_suffix(".py")


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def check_map() -> None:
    """Refuse a map that could not be run twice: a new name an old one would match again, or a clash."""
    news = [new for new in MOVES.values() if new not in MERGES.values()]
    if len(set(news)) != len(news):
        sys.exit("relayout: two old modules map to one new module")
    for new in news:
        if _dotted_pattern().search(new) or _path_pattern().search(str(path_of(new))):
            sys.exit(f"relayout: the new name {new} contains an old name: the rewrite would not be idempotent")
        for old in MOVES:
            if new.startswith(old + "."):
                sys.exit(f"relayout: the new name {new} is under the old module {old}")


# ---- 1. the moves --------------------------------------------------------------------------------------


def ensure_package(folder: Path) -> None:
    """`folder` and its parents up to wfctl/ are packages: each gets an empty __init__.py if it has none."""
    for part in [folder, *folder.parents]:
        if part == ROOT or part.name == "" or not (ROOT / part).is_relative_to(ROOT / "wfctl"):
            break
        init = ROOT / part / "__init__.py"
        if not init.exists():
            (ROOT / part).mkdir(parents=True, exist_ok=True)
            init.write_text("", encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))


def move_modules() -> int:
    moved = 0
    for old, new in MOVES.items():
        source, target = ROOT / path_of(old), ROOT / path_of(new)
        if not source.exists():
            continue
        if target.exists():
            sys.exit(f"relayout: both {path_of(old)} and {path_of(new)} exist: merge them by hand first")
        ensure_package(path_of(new).parent)
        git("mv", str(path_of(old)), str(path_of(new)))
        moved += 1
    for folder in EMPTIED:
        left = [p for p in (ROOT / folder).glob("*") if p.name not in ("__init__.py", "__pycache__")]
        init = ROOT / folder / "__init__.py"
        if not left and init.exists():
            git("rm", "-q", str(init.relative_to(ROOT)))
        if (ROOT / folder).is_dir() and not any(p.name != "__pycache__" for p in (ROOT / folder).iterdir()):
            shutil.rmtree(ROOT / folder)
    return moved


# ---- 2. the references ---------------------------------------------------------------------------------


@functools.cache
def _dotted_pattern() -> re.Pattern[str]:
    names = sorted(MOVES, key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")(?!\w)")


@functools.cache
def _path_pattern() -> re.Pattern[str]:
    paths = sorted((str(path_of(old).with_suffix("")) for old in MOVES), key=len, reverse=True)
    return re.compile(r"(?<![\w./-])(" + "|".join(re.escape(p) for p in paths) + r")(\.py(?!\w)|(?![\w/.]))")


PATHS = {str(path_of(old).with_suffix("")): str(path_of(new).with_suffix("")) for old, new in MOVES.items()}


def rewrite_names(text: str) -> str:
    text = _dotted_pattern().sub(lambda m: MOVES[m.group(1)], text)
    return _path_pattern().sub(lambda m: PATHS[m.group(1)] + m.group(2), text)


def _statement(indent: str, module: str, names: list[tuple[str, str | None]]) -> str:
    parts = [f"{name} as {alias}" if alias else name for name, alias in names]
    one = f"{indent}from {module} import {', '.join(parts)}"
    if len(one) <= LINE_LENGTH:
        return one
    inner = "".join(f"{indent}    {part},\n" for part in parts)
    return f"{indent}from {module} import (\n{inner}{indent})"


def rewrite_from_imports(text: str, where: Path) -> str:
    """`from wfctl.bulk import journal, runs` -> `from wfctl.runs import journal, runs`, per new package."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        if not any(f"{node.module}.{alias.name}" in MOVES for alias in node.names):
            continue
        groups: dict[str, list[tuple[str, str | None]]] = {}
        for alias in node.names:
            new = MOVES.get(f"{node.module}.{alias.name}")
            if new is None:
                groups.setdefault(node.module, []).append((alias.name, alias.asname))
                continue
            package, _, name = new.rpartition(".")
            asname = alias.asname or (alias.name if name != alias.name else None)
            groups.setdefault(package, []).append((name, asname))
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
        segment = text[start:end]
        if "#" in segment:
            print(f"relayout: {where}:{node.lineno}: a comment inside the import is dropped; check it",
                  file=sys.stderr)
        indent = " " * node.col_offset
        replacement = "\n".join(_statement(indent, module, names) for module, names in groups.items())
        edits.append((start, end, replacement[len(indent):]))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


_TEXT_IMPORT = re.compile(r"(?:(?<=\\n)|(?<![\w.]))from (wfctl(?:\.\w+)*) import (\w+(?: as \w+)?(?:, *\w+(?: as \w+)?)*)")


def rewrite_text_imports(text: str) -> str:
    """The same, on one line, where `ast` does not look: code in a string (`python -c`), in the docs."""
    def moved(match: re.Match[str]) -> str:
        module, names = match.group(1), [n.strip() for n in match.group(2).split(",")]
        if not any(f"{module}.{n.split(' as ')[0]}" in MOVES for n in names):
            return match.group(0)
        groups: dict[str, list[str]] = {}
        for entry in names:
            name, _, alias = entry.partition(" as ")
            new = MOVES.get(f"{module}.{name}")
            if new is None:
                groups.setdefault(module, []).append(entry)
                continue
            package, _, base = new.rpartition(".")
            alias = alias or (name if base != name else "")
            groups.setdefault(package, []).append(f"{base} as {alias}" if alias else base)
        return "; ".join(f"from {m} import {', '.join(n)}" for m, n in groups.items())

    return _TEXT_IMPORT.sub(moved, text)


def rewrite_lazy_table(text: str) -> str:
    """wfctl/api/__init__.py's `_LAZY` names modules relative to wfctl.api: `"auth"` -> `"session.auth"`."""
    def moved(match: re.Match[str]) -> str:
        new = MOVES.get(f"wfctl.api.{match.group(1)}")
        return f'"{new.removeprefix("wfctl.api.")}"' if new else match.group(0)

    found = re.search(r"^_LAZY = \{.*?^\}", text, re.M | re.S)
    if not found:
        return text
    table = re.sub(r'(?<=: )"([a-z_.]+)"', moved, found.group(0))
    return text[: found.start()] + table + text[found.end():]


def text_files() -> list[Path]:
    found: list[Path] = []
    for root in REWRITE_ROOTS:
        path = ROOT / root
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            for file in sorted(path.rglob("*")):
                if (file.is_file() and not SKIP_DIRS.intersection(file.relative_to(ROOT).parts)
                        and file.suffix not in SKIP_SUFFIXES):
                    found.append(file)
    return found


def rewrite_references() -> list[Path]:
    changed: list[Path] = []
    for file in text_files():
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = text
        if file.suffix == ".py":
            new = rewrite_from_imports(new, file.relative_to(ROOT))
        if file.relative_to(ROOT) == Path("wfctl/api/__init__.py"):
            new = rewrite_lazy_table(new)
        new = rewrite_names(rewrite_text_imports(new))
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(file)
    return changed


def sort_imports(files: list[Path]) -> None:
    python = [str(f.relative_to(ROOT)) for f in files if f.suffix == ".py"]
    ruff = next((str(c) for c in (ROOT / ".venv" / "bin" / "ruff", shutil.which("ruff")) if c and Path(c).exists()),
                None)
    if not python:
        return
    if ruff is None:
        print("relayout: ruff not found: run `ruff check --select I --fix wfctl tests bench`", file=sys.stderr)
        return
    subprocess.run([ruff, "check", "-q", "--select", "I", "--fix", *python], cwd=ROOT, check=False)


# ---- 4. what the map does not know ---------------------------------------------------------------------


def leftovers() -> tuple[list[str], list[str], list[str]]:
    """Modules left in emptied folders (errors), unknown modules in thinned folders and references to the
    emptied packages themselves (warnings)."""
    errors = [str(p.relative_to(ROOT)) for folder in EMPTIED for p in sorted((ROOT / folder).rglob("*.py"))
              if p.name != "__init__.py"]
    warnings = []
    for folder, names in STAYS.items():
        known = set(names.split())
        warnings += [str(p.relative_to(ROOT)) for p in sorted((ROOT / folder).glob("*.py"))
                     if p.stem not in known]
    emptied = re.compile("|".join(rf"(?<![\w.]){re.escape(f.replace('/', '.'))}(?![\w])|(?<![\w./]){re.escape(f)}/"
                                  for f in EMPTIED))
    references = []
    for file in text_files():
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if emptied.search(line):
                references.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    return errors, warnings, references


def main() -> int:
    if not (ROOT / "wfctl" / "__init__.py").exists() or not (ROOT / ".git").exists():
        sys.exit("relayout: run me from the repository root")
    check_map()
    moved = move_modules()
    changed = rewrite_references()
    sort_imports(changed)
    print(f"relayout: {moved} modules moved, {len(changed)} files rewritten", file=sys.stderr)
    errors, warnings, references = leftovers()
    for path in warnings:
        print(f"relayout: warning: {path} is neither moved nor in STAYS: where does it belong?", file=sys.stderr)
    for line in references:
        print(f"relayout: warning: names an emptied package: {line}", file=sys.stderr)
    for path in errors:
        print(f"relayout: error: {path} is left in a folder the map empties: add it to MOVES", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
