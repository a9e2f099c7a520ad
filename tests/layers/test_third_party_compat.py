"""Third-party internals in one place (issue 22 §5): typer's and click's private names only in
wfctl/cmdline/typercompat.py, other libraries' private names used by the SDK only in wfctl/api/compat.py, and
every one of them there on the installed versions (the upper bounds in pyproject.toml are what this
suite has proved)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "wfctl"
PRIVATE_MODULES = ("typer._", "click")  # typer's private modules and click (vendored or not)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
            # `from typer import _completion_classes` names a private module as well
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                         if alias.name.startswith("_"))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def test_typer_and_click_internals_are_named_in_one_module_only() -> None:
    offenders = [f"{path.relative_to(ROOT.parent)}:{line} imports {module}"
                 for path in sorted(ROOT.rglob("*.py")) if path.name != "typercompat.py"
                 for line, module in _imports(path) if module.startswith(PRIVATE_MODULES)]
    assert offenders == []


def test_private_attributes_of_other_libraries_are_named_in_the_compat_module_only() -> None:
    names = ("_keyring_backend", "_network_backend", "httpx._main")
    offenders = [f"{path.relative_to(ROOT.parent)} names {name}"
                 for path in sorted(ROOT.rglob("*.py")) if path.name not in ("compat.py",)
                 for name in names if name in path.read_text(encoding="utf-8")]
    assert offenders == []


@pytest.mark.parametrize("name", sorted(__import__("wfctl.cmdline.typercompat", fromlist=["NAMES"]).NAMES))
def test_every_typer_name_is_there_on_the_installed_typer(name: str) -> None:
    from wfctl.cmdline import typercompat

    module, attribute, _ = typercompat.NAMES[name]
    found = importlib.import_module(module)  # the private module itself, not a fallback
    assert not attribute or hasattr(found, attribute), f"typer moved {module}.{attribute}: update wfctl.cmdline.typercompat"
    assert typercompat.resolve(name) is not None


def test_the_sdk_compat_names_are_there_on_the_installed_libraries() -> None:
    import httpx
    import keyring.core

    from wfctl.api import compat

    transport = httpx.HTTPTransport()
    assert compat.pool_backend(transport) is not None, "httpcore moved the pool's _network_backend"
    assert hasattr(keyring.core, "_keyring_backend"), "keyring moved core._keyring_backend"
    transport.close()


def test_importing_the_compat_module_loads_no_typer() -> None:
    import subprocess
    import sys

    code = "import sys, wfctl.cmdline.typercompat; print('typer' in sys.modules, 'typer._click' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
