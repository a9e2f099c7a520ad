"""Fixtures of the newcomer tests: wfctl's wheel, built once a run and shared (packaging, lowest
dependencies; by every parallel worker), and uv, which installs it into fresh virtual environments in seconds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.newcomer.helpers import REPO_ROOT


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel` of the checkout, built once a run from a copy of its sources: no build/ or *.egg-info
    lands in the checkout. The parallel workers of one run share it (the first to ask builds it, under a
    lock, in the run's temporary directory; the others wait for it)."""
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's, above each worker's own
    work = shared / "wfctl-wheel"
    with FileLock(str(shared / "wfctl-wheel.lock")):
        found = sorted((work / "dist").glob("wfctl-*.whl"))
        if found:
            return found[0]
        src, out = work / "src", work / "dist"
        shutil.rmtree(work, ignore_errors=True)  # a build cut short
        src.mkdir(parents=True)
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
