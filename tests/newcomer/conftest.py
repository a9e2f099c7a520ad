"""Fixtures of the newcomer tests: wfctl's wheel, built once per session and shared (packaging, lowest
dependencies), and uv, which installs it into fresh virtual environments in seconds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.newcomer.helpers import REPO_ROOT


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel` of the checkout, built from a copy of its sources: no build/ or *.egg-info lands in the
    checkout, and tests building at once in parallel workers never share a build directory."""
    work = tmp_path_factory.mktemp("wheel")
    src, out = work / "src", work / "dist"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "wfctl", src / "wfctl", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = out.glob("wfctl-*.whl")
    return path


@pytest.fixture(scope="session")
def uv() -> list[str]:
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    pytest.importorskip("uv", reason="uv (pip install uv, in wfctl[dev]) installs into fresh environments")
    return [sys.executable, "-m", "uv"]
