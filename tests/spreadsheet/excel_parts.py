"""Workbooks written part by part as Excel writes them (issue 33 §2): the shapes openpyxl and XlsxWriter
cannot be made to write (the 1904 date system, a cell of type `e`, a formula with no value, a custom
number format on a number cell), so the reader is tested on what Excel saves.

    book = excel_book(path, rows, formats={164: "00000000000"}, date1904=True)

`rows` is a list of rows, each a list of cells: a str is a shared string (as Excel keeps text), a bool a
boolean, None no cell, and a `Cell` anything else (a number in a style, an error, a formula).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


@dataclass
class Cell:
    value: str | None = None  # the <v> text (None: no <v>)
    style: int | None = None  # index into cellXfs
    kind: str | None = None  # the t attribute
    formula: str | None = None  # the <f> text


def excel_book(path: Path, rows: list[list[object]], *, formats: dict[int, str] | None = None,
               styles: list[int] | None = None, date1904: bool = False) -> Path:
    """A workbook of one sheet "Sites". `formats`: custom number formats by id (164 up); `styles`: the
    numFmtId of each cellXfs entry after the first (General), so `Cell(style=1)` is the first of them."""
    strings: list[str] = []
    index: dict[str, int] = {}
    xml_rows = []
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, value in enumerate(row):
            ref = f"{chr(65 + c)}{r}"
            if value is None:
                continue
            if isinstance(value, bool):
                cells.append(f'<c r="{ref}" t="b"><v>{int(value)}</v></c>')
            elif isinstance(value, str):
                if value not in index:
                    index[value] = len(strings)
                    strings.append(value)
                cells.append(f'<c r="{ref}" t="s"><v>{index[value]}</v></c>')
            else:
                assert isinstance(value, Cell)
                attributes = f' r="{ref}"' + (f' s="{value.style}"' if value.style is not None else "") + (
                    f' t="{value.kind}"' if value.kind else "")
                inner = (f"<f>{escape(value.formula)}</f>" if value.formula is not None else "") + (
                    f"<v>{escape(value.value)}</v>" if value.value is not None else "")
                cells.append(f"<c{attributes}>{inner}</c>")
        xml_rows.append(f'<row r="{r}" spans="1:{max(len(row), 1)}">{"".join(cells)}</row>')
    width = max((len(row) for row in rows), default=1)
    last = f"{chr(64 + max(width, 1))}{max(len(rows), 1)}"  # the used range, as Excel writes it
    custom = formats or {}
    xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'] + [
        f'<xf numFmtId="{n}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
        for n in styles or []]
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.'
            'spreadsheetml.styles+xml"/>'
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.sharedStrings+xml"/></Types>'),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        "xl/workbook.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            f'<workbook xmlns="{MAIN}" xmlns:r="{RELS}">'
            + ('<workbookPr date1904="1" defaultThemeVersion="166925"/>' if date1904
               else '<workbookPr defaultThemeVersion="166925"/>')
            + '<sheets><sheet name="Sites" sheetId="1" r:id="rId1"/></sheets><calcPr calcId="191029"/></workbook>'),
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{RELS}/worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId2" Type="{RELS}/styles" Target="styles.xml"/>'
            f'<Relationship Id="rId3" Type="{RELS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>'),
        "xl/styles.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            f'<styleSheet xmlns="{MAIN}">'
            + (f'<numFmts count="{len(custom)}">' + "".join(
                f'<numFmt numFmtId="{n}" formatCode="{escape(code, {chr(34): "&quot;"})}"/>'
                for n, code in custom.items()) + "</numFmts>" if custom else "")
            + '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
            '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/>'
            '</fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
            '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
            f'<cellXfs count="{len(xfs)}">{"".join(xfs)}</cellXfs>'
            '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'),
        "xl/sharedStrings.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            f'<sst xmlns="{MAIN}" count="{len(strings)}" uniqueCount="{len(strings)}">'
            + "".join(f'<si><t xml:space="preserve">{escape(s)}</t></si>' for s in strings) + "</sst>"),
        "xl/worksheets/sheet1.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
            f'<worksheet xmlns="{MAIN}" xmlns:r="{RELS}"><dimension ref="A1:{last}"/>'
            f'<sheetData>{"".join(xml_rows)}</sheetData></worksheet>'),
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text.encode("utf-8"))
    return path
