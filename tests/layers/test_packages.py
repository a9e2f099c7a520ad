"""The tree shows the layers (issue 46): each package a layer of `.importlinter` names says in its docstring
what it holds, and imports nothing (a package's import is paid by every run that reaches one of its
modules: `wfctl --version` and a Tab press among them); no module is left in the folder the relayout
emptied (`wfctl/bulk/`)."""

from __future__ import annotations

import ast
import configparser
from pathlib import Path

import wfctl

PACKAGE = Path(wfctl.__file__).parent
ROOT = PACKAGE.parent


def layer_packages() -> list[str]:
    """Every wfctl package a layers contract of .importlinter names (its `containers` prefixed)."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    found: list[str] = []
    for section in config.sections():
        if config[section].get("type") != "layers":
            continue
        containers = config[section].get("containers", "").split() or [""]
        for line in config[section]["layers"].split("\n"):
            for name in line.replace("|", ":").split(":"):
                for container in containers:
                    if name.strip():
                        found.append(f"{container}.{name.strip()}" if container else name.strip())
    return found


def test_the_contracts_name_the_new_layers():
    expected = {"wfctl.commands", "wfctl.drivers", "wfctl.runs", "wfctl.plans", "wfctl.views", "wfctl.editor",
                "wfctl.compare", "wfctl.render", "wfctl.files", "wfctl.text", "wfctl.api.domain",
                "wfctl.api.records", "wfctl.api.session", "wfctl.api.net"}
    assert expected - set(layer_packages()) == set()


def test_each_layer_package_says_what_it_holds_and_imports_nothing():
    packages = [*layer_packages(), "wfctl.cmdline"]
    problems = []
    for package in packages:
        if package in ("wfctl.api", "wfctl.commands", "wfctl.payroll"):
            continue  # the SDK's front door, the command groups and payroll have their own __init__ rules
        init = ROOT / Path(*package.split(".")) / "__init__.py"
        assert init.exists(), f"{package} is not a package"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        if not ast.get_docstring(tree):
            problems.append(f"{package}: no docstring")
        if any(isinstance(node, ast.Import | ast.ImportFrom) for node in ast.walk(tree)):
            problems.append(f"{package}: imports in __init__.py")
    assert problems == []


def test_no_module_is_left_in_the_emptied_bulk_folder():
    assert not (PACKAGE / "bulk").exists() or not list((PACKAGE / "bulk").rglob("*.py"))
