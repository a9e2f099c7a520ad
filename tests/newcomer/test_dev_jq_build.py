"""`dev.py` installs the jq package's libjq built with -O2 where a C compiler is (issue 44), from a folder of
its own keyed by the version and the interpreter; on a machine with only python3, PyPI's wheel stays and
one line says so."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.newcomer.helpers import REPO_ROOT


def _jq_wheel(tmp_path: Path, path: str, version: str = "1.13.0") -> subprocess.CompletedProcess[str]:
    script = f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); import dev; print(dev.jq_wheel({version!r}, " \
             f"__import__('pathlib').Path(sys.executable)))"
    env = {"PATH": path, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)


def test_without_a_c_compiler_the_pypi_wheel_stays_with_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = _jq_wheel(tmp_path, str(empty))
    assert (done.returncode, done.stdout) == (0, "None\n"), done
    assert done.stderr == ("dev.py: no C compiler: the jq package's wheel from PyPI stays (libjq unoptimised, "
                           "`wfctl jq` 1.5-2x slower)\n")


def test_a_built_wheel_is_taken_from_its_folder_without_building_again(tmp_path: Path) -> None:
    folder = (tmp_path / "cache" / "wfctl-dev"
              / f"jq-1.13.0-O2-{sys.implementation.cache_tag}-{sysconfig.get_platform()}")
    folder.mkdir(parents=True)
    wheel = folder / "jq-1.13.0-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"")
    done = _jq_wheel(tmp_path, str(tmp_path / "bin"))  # no compiler on PATH: nothing could be built
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{wheel}\n", ""), done
