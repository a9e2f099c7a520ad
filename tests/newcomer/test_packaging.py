"""Install: the wheel carries py.typed, the completions and the sandbox extra; one version source;
an installed wfctl works as `wfctl` and as `python -m wfctl`. The wheel is the session's (`wheel`,
tests/newcomer/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import wfctl
from wfctl.commands.completion import FILE_NAMES


@pytest.mark.slow
def test_wheel_carries_py_typed_completions_and_the_sandbox_extra(wheel: Path) -> None:
    assert wheel.name.startswith(f"wfctl-{wfctl.__version__}-"), "the version has one source: wfctl.__version__"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "wfctl/py.typed" in names
    for name in FILE_NAMES.values():
        assert f"wfctl/completions/{name}" in names
    assert "wfctl/sandbox/app.py" in names
    assert "Provides-Extra: sandbox" in metadata
    assert 'extra == "sandbox"' in metadata
    assert f"Version: {wfctl.__version__}" in metadata
    assert "wfctl = wfctl.cmdline.main:main" in entry_points


@pytest.mark.slow
def test_installed_wheel_runs_as_wfctl_and_python_m_wfctl(wheel: Path, uv: list[str], tmp_path: Path) -> None:
    """What `pipx install .` does: a fresh virtual environment with wfctl and its dependencies (installed
    by uv: the same wheel and metadata as pip reads, in seconds rather than half a minute)."""
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    for argv in ([*uv, "venv", "-q", "--python", sys.executable, str(venv)],
                 [*uv, "pip", "install", "-q", "--python", str(python), str(wheel)]):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stderr[-3000:]
    for argv in ([str(venv / "bin" / "wfctl"), "--version"], [str(python), "-m", "wfctl", "--version"]):
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
        assert run.returncode == 0 and run.stdout == f"wfctl {wfctl.__version__}\n", run
    run = subprocess.run([str(venv / "bin" / "wfctl"), "doctor", "--help"], capture_output=True, text=True,
                         timeout=60, cwd=str(tmp_path))
    assert run.returncode == 0 and "Examples:" in run.stdout, run
    import importlib.util

    spec = subprocess.run([str(python), "-c", "import importlib.resources as r; "
                           "print(r.files('wfctl').joinpath('completions/wfctl.bash').read_text()[:40])"],
                          capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert "_wfctl_completion" in spec.stdout, spec
    assert importlib.util.find_spec("wfctl") is not None
