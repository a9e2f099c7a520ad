"""LibreOffice Calc, headless, as the spreadsheet a person opens wfctl's files with (issue 21 §4).

    calc = Calc(profile_dir)
    calc.save_as(files, "csv-utf8", out_dir)   # one soffice call for every file: opened and saved again

Modes: `csv-utf8` (the import dialog's UTF-8 defaults: every number-like cell becomes a number; saved as
CSV UTF-8), `csv-default` (opened in Calc's default charset, Windows-1252, saved as CSV UTF-8, as a
person does who saves "CSV UTF-8"), `csv-text` (opened as UTF-8 with every column as text: the way out
docs/csv.md gives) and `xlsx` (a workbook opened and saved as a workbook).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import require_component

CSV_OUT = "csv:Text - txt - csv (StarCalc):44,34,76,1"
# CSV import filter options: separator 44 (,), text delimiter 34 ("), charset 76 (UTF-8), first line 1,
# then column formats (2: text) for as many columns as a site has
FILTERS = {
    "csv-utf8": ("CSV:44,34,76,1", CSV_OUT),
    "csv-default": (None, CSV_OUT),
    "csv-text": ("CSV:44,34,76,1," + "/".join(f"{i}/2" for i in range(1, 13)), CSV_OUT),
    "xlsx": (None, "xlsx:Calc MS Excel 2007 XML"),
}


def soffice() -> str:
    path = shutil.which("soffice") or shutil.which("libreoffice")
    require_component("soffice (libreoffice-calc-nogui)", path is not None)
    assert path is not None
    return path


class Calc:
    def __init__(self, profile: Path) -> None:
        self.binary = soffice()
        self.profile = profile

    def save_as(self, files: list[Path], mode: str, out_dir: Path) -> list[Path]:
        """Open each file in Calc and save it again into `out_dir` (same names); the saved files."""
        infilter, convert = FILTERS[mode]
        out_dir.mkdir(parents=True, exist_ok=True)
        argv = [self.binary, f"-env:UserInstallation={self.profile.as_uri()}", "--headless", "--norestore"]
        if infilter:
            argv.append(f"--infilter={infilter}")
        argv += ["--convert-to", convert, "--outdir", str(out_dir), *map(str, files)]
        env = {**os.environ, "HOME": str(self.profile), "LANG": "C.UTF-8"}
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
        extension = ".xlsx" if mode == "xlsx" else ".csv"
        saved = [out_dir / (f.stem + extension) for f in files]
        missing = [p for p in saved if not p.exists()]
        assert not missing, f"soffice saved no {missing}: {r.stdout}{r.stderr}"
        return saved
