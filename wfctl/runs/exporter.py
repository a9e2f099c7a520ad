"""Bulk export: every record of a kind in the import format, with full records read concurrently."""

from __future__ import annotations

import csv
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from wfctl.api.errors import NotFound
from wfctl.files import csvformat
from wfctl.files.files import atomic_binary_file, atomic_text_file
from wfctl.plans.kinds import KINDS
from wfctl.text.safetext import one_line

#: Full records read at once (the export commands' default, 16: issue 17).
EXPORT_CONCURRENCY = 16


def export(api: Any, kind: str, out: IO[str], *, parent_ids: Iterable[str | None],
           concurrency: int = EXPORT_CONCURRENCY, on_record: Callable[[], None] | None = None,
           bom: bool | None = None, proven: bool = False) -> int:
    """Write the header and one line per record of each parent (None: no parent); returns the count.
    `on_record` is called after each record written (the progress line). `bom`: start with a UTF-8
    byte order mark; None: when `out` writes to the start of a regular file. `proven`: each parent's
    listing is proven whole before a line is written (a copy's source, whose rows decide deletes:
    wfctl.api.records.listcheck.read_whole; ListingUntrue otherwise)."""
    columns = csvformat.export_columns(kind)
    if bom or (bom is None and _regular_file_at_start(out)):
        # `export > sites.csv`: a spreadsheet opens the file with the BOM as UTF-8 (docs/csv.md); a pipe
        # (`export | import -`, `| grep`) and a file appended to (`>>`) get none
        out.write("\ufeff")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    return _write_records(api, kind, writer.writerow, parent_ids, concurrency, on_record, proven=proven)


def _write_records(api: Any, kind: str, write_row: Callable[[list[str]], Any], parent_ids: Iterable[str | None],
                   concurrency: int, on_record: Callable[[], None] | None, *, protect: bool = True,
                   proven: bool = False) -> int:
    """Each record's cells to `write_row`; `protect`: a cell a spreadsheet would run as a formula gets its
    `'` (CSV); a workbook's text cells run nothing, and get none (issue 33 §4)."""
    columns = csvformat.export_columns(kind)
    count = 0
    for record in full_records(api, kind, parent_ids, concurrency, proven=proven):
        write_row(csvformat.encode_record(kind, record, columns, protect=protect))
        count += 1
        if on_record is not None:
            on_record()
    return count


def full_records(api: Any, kind: str, parent_ids: Iterable[str | None],
                 concurrency: int = EXPORT_CONCURRENCY, *, proven: bool = False) -> Iterator[dict[str, Any]]:
    """Every record of each parent (None: no parent), read whole, in the service's order, memory bounded
    (what an export writes, and what `export --jq` queries); a record listed twice is written once.
    `proven`: see `export`."""
    spec = KINDS[kind]

    def summaries() -> Iterator[dict[str, Any]]:
        if proven:
            from wfctl.api.records.listcheck import read_whole

            for parent in parent_ids:
                listing = read_whole(api, kind, parent, concurrency=max(1, concurrency // 2))
                yield from listing.records
                yield from listing.young  # created while it was read: kept as the source's, never left out
            return
        parents = iter(parent_ids)
        first = next(parents, _NONE)
        second = next(parents, _NONE)
        if second is _NONE:  # one parent (or none): its pages stream, several at a time
            if first is not _NONE:
                yield from spec.iter_existing(api, first)
            return
        # many parents (--all-clients): their lists are read several parents at once, in order
        listed = _ordered_map(lambda parent: list(spec.iter_existing(api, parent)),
                              itertools.chain((first, second), parents), max(1, concurrency // 2))
        for rows in listed:
            yield from rows

    def full(summary: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return spec.get(api, str(summary["id"]))
        except NotFound:  # listed, then deleted before it was read: the rest is still worth having
            sys.stderr.write(f"{kind} {one_line(str(summary.get('name')))} ({one_line(str(summary['id']))}) "
                             "was deleted while the export ran: skipped\n")
            return None

    records: Iterable[dict[str, Any] | None] = summaries()
    if not spec.list_is_full:
        records = _ordered_map(full, records, concurrency, ramp=True)  # `| head -1`: a few reads, not 32
    # a listing that lies may give one record under two parents: written once. The ids' hashes are kept, not
    # the ids (about 50 bytes a record where an id's text takes twice that: 100,000 sites, 5 MB)
    given: set[int] = set()
    for record in records:
        if record is None:
            continue
        key = hash(str(record.get("id")))
        if key not in given:
            given.add(key)
            yield record


def export_to_file(api: Any, kind: str, path: str, *, parent_ids: Iterable[str | None],
                   concurrency: int = EXPORT_CONCURRENCY, on_record: Callable[[], None] | None = None,
                   fmt: str | None = None, bom: bool = True) -> int:
    """`export` to the file `path`, with a UTF-8 BOM (so a spreadsheet reads the characters right; `bom`
    False: none, byte for byte what a pipe gets), or a
    workbook when `path` ends in .xlsx (or `fmt` is "xlsx"); written whole or not at all: a failure
    leaves no partial file and an existing one as it was. Call files.check_writable(path) before anything
    is fetched."""
    from wfctl.files import workbook

    if fmt == "xlsx" or (fmt is None and workbook.is_workbook_name(path)):
        with atomic_binary_file(path) as temporary:
            sheet = workbook.SheetWriter(temporary, csvformat.export_columns(kind),
                                         bool_columns=csvformat.BOOL_COLUMNS, record=kind)
            count = _write_records(api, kind, sheet.write, parent_ids, concurrency, on_record, protect=False)
            sheet.close()
            return count
    with atomic_text_file(path, bom=bom) as out:
        return export(api, kind, out, parent_ids=parent_ids, concurrency=concurrency, on_record=on_record,
                      bom=False)  # the file's encoding writes it


_NONE: Any = object()


def _regular_file_at_start(out: IO[str]) -> bool:
    """Whether `out` writes to the start of a regular file (`> FILE`), not a pipe, terminal or `>>`."""
    import os
    import stat

    try:
        fd = out.fileno()
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.lseek(fd, 0, os.SEEK_CUR) == 0 and out.tell() == 0
    except (AttributeError, OSError, ValueError):
        return False


def _ordered_map(fn: Any, items: Iterable[Any], concurrency: int, *, ramp: bool = False) -> Iterator[Any]:
    from wfctl.api.records.ordered import ordered_map

    return ordered_map(fn, items, concurrency, name="wfctl-export", ramp=ramp)
