"""One way out, one way to ask (issue 31 §3), read with `ast`:

- a command writes through the program's streams (`wfctl.render.streams.IO`: `io.write`, `io.note`, `io.warn`,
  `io.write_err`) and the output module, never with `print()`, `typer.echo`/`click.echo` or
  `sys.stdout.write`/`sys.stderr.write` of its own (style.md 3: no `print()`);
- which formats exist, and which of them are for a program, is said once, in `wfctl.render.output` (`FORMATS`,
  `is_machine` / `Output.machine`, `Output.tabular`): a literal naming two formats or more
  (`in ("json", "jsonl")`, a second list of formats) anywhere else in wfctl is a second answer that the
  next format (`-o yaml`) would have to find.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.layers.imports import PACKAGE, modules
from wfctl.render.output import FORMATS

COMMANDS = "wfctl.commands"
OUTPUT_MODULE = "wfctl.render.output"
ECHOES = {("typer", "echo"), ("typer", "secho"), ("click", "echo"), ("click", "secho")}


def direct_writes(tree: ast.AST) -> list[str]:
    """Where `tree` writes to stdout or stderr without the program's streams, as `line: what`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            what = "print()"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "sys" \
                and node.value.attr in ("stdout", "stderr") and node.attr == "write":
            what = f"sys.{node.value.attr}.write"
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and (node.value.id, node.attr) in ECHOES:
            what = f"{node.value.id}.{node.attr}"
        elif isinstance(node, ast.ImportFrom) and node.module in ("typer", "click", "sys"):
            names = [alias.name for alias in node.names
                     if (node.module, alias.name) in ECHOES or alias.name in ("stdout", "stderr")]
            what = f"from {node.module} import {', '.join(names)}" if names else None
        if what is not None:
            found.append((node.lineno, what))
    return [f"{line}: {what}" for line, what in sorted(found)]


def format_lists(tree: ast.AST) -> list[str]:
    """Literal tuples, lists, sets and dicts in `tree` that name two formats or more, as `line: the literal`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [key for key in node.keys if key is not None]
        else:
            continue
        named = [item.value for item in items if isinstance(item, ast.Constant) and item.value in FORMATS]
        if len(named) >= 2:
            found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {text}" for line, text in sorted(found)]


def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_commands_write_through_the_programs_streams_only():
    offences = [f"{path.relative_to(PACKAGE.parent)}:{where}" for module, path in modules().items()
                if module == COMMANDS or module.startswith(COMMANDS + ".") for where in direct_writes(_tree(path))]
    assert offences == [], "write through wfctl.render.streams.IO (app.io.write, .note, .warn, .write_err) instead"


def test_the_formats_are_named_in_the_output_module_only():
    offences = [f"{path.relative_to(PACKAGE.parent)}:{where}" for module, path in modules().items()
                if module != OUTPUT_MODULE for where in format_lists(_tree(path))]
    assert offences == [], "ask wfctl.render.output: FORMATS, is_machine(), Output.machine or Output.tabular"


def test_the_checks_find_what_they_forbid():
    tree = ast.parse(
        "import sys, typer, click\n"
        "from typer import echo\n"
        "print('x')\n"
        "sys.stderr.write('x')\n"
        "plan.write(sys.stdout.write)\n"
        "typer.echo('x', err=True)\n"
        "click.echo('x')\n"
        "if fmt in ('json', 'jsonl'): pass\n"
        "if fmt not in ['table', 'wide']: pass\n"
        "KINDS = ('json', 'csv', 'yaml')\n"
        "if word in ('-o', '--output') or fmt == 'json' or fmt in ('json',): pass\n"
        "app.io.write('x'); app.io.write_err('x')\n")
    assert direct_writes(tree) == ["2: from typer import echo", "3: print()", "4: sys.stderr.write",
                                   "5: sys.stdout.write", "6: typer.echo", "7: click.echo"]
    assert format_lists(tree) == ["8: ('json', 'jsonl')", "9: ['table', 'wide']", "10: ('json', 'csv', 'yaml')"]


def test_every_output_option_and_the_config_offer_the_one_list():
    """-o's choices on every command as the help index records them (its completion is answered from
    them), its help, and the `output` setting's check all come from wfctl.render.output.FORMATS."""
    from wfctl.cmdline.indexbuilder import build_index
    from wfctl.config import KEYS

    def options(node, path):
        for param in node["params"]:
            if param["name"] == "output":
                yield path, param
        for name, sub in (node["commands"] or {}).items():
            yield from options(sub, f"{path} {name}")

    found = list(options(build_index()["tree"], "wfctl"))
    assert len(found) > 30
    for path, param in found:
        assert param["completes"] == ["choices", {"values": list(FORMATS), "case_sensitive": True}], path
        assert all(name in param["help"] for name in FORMATS), path
    assert KEYS["output"].choices == tuple(FORMATS)
