"""LibreOffice Calc, headless, as the spreadsheet a person opens wfctl's files with (issue 21 §4).

    calc = Calc(profile_dir)
    calc.save_as(files, "csv-utf8", out_dir)   # one soffice call for every file: opened and saved again

Modes: `csv-utf8` (the import dialog's UTF-8 defaults: every number-like cell becomes a number; saved as
CSV UTF-8), `csv-default` (opened in Calc's default charset, Windows-1252, saved as CSV UTF-8, as a
person does who saves "CSV UTF-8"), `csv-text` (opened as UTF-8 with every column as text: the way out
docs/csv.md gives; `csv-text-xlsx` saves it as a workbook), `xlsx` (a workbook opened and saved as a
workbook), `book-csv` (a workbook, or a CSV in the default charset, saved as CSV UTF-8) and `csv-1252`
(opened as UTF-8, saved as Windows-1252: Excel's plain "CSV"). `locale` is the person's (`de_DE.UTF-8`;
Calc has its own locale data).
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
    # opened in Calc's defaults (a workbook as it is, a CSV in the default charset) and saved as CSV UTF-8
    "book-csv": (None, CSV_OUT),
    # opened as UTF-8, saved as Windows-1252: Excel's "CSV (Comma delimited)" (issue 33 §1)
    "csv-1252": ("CSV:44,34,76,1", "csv:Text - txt - csv (StarCalc):44,34,1,1"),
    # opened as UTF-8 with text columns (as `csv-text`), saved as a workbook (issue 43: a long cell cut)
    "csv-text-xlsx": ("CSV:44,34,76,1," + "/".join(f"{i}/2" for i in range(1, 13)), "xlsx:Calc MS Excel 2007 XML"),
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

    def save_as(self, files: list[Path], mode: str, out_dir: Path, *, locale: str = "C.UTF-8") -> list[Path]:
        """Open each file in Calc and save it again into `out_dir` (same names); the saved files. `locale`:
        the person's (`de_DE.UTF-8`: numbers, dates and booleans read and written as in German)."""
        infilter, convert = FILTERS[mode]
        out_dir.mkdir(parents=True, exist_ok=True)
        argv = [self.binary, f"-env:UserInstallation={self.profile.as_uri()}", "--headless", "--norestore"]
        if infilter:
            argv.append(f"--infilter={infilter}")
        argv += ["--convert-to", convert, "--outdir", str(out_dir), *map(str, files)]
        env = {**os.environ, "HOME": str(self.profile), "LANG": locale, "LC_ALL": locale}
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
        extension = ".xlsx" if mode.endswith("xlsx") else ".csv"
        assert len({f.stem for f in files}) == len(files), "one name a file: Calc saves each as its stem"
        saved = [out_dir / (f.stem + extension) for f in files]
        missing = [p for p in saved if not p.exists()]
        assert not missing, f"soffice saved no {missing}: {r.stdout}{r.stderr}"
        return saved
