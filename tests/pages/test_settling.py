"""A read that feeds a delete, on a list that changes while it is read (wfctl.api.records.listcheck.read_whole): read
again, a bounded number of times, and taken only when proven. The sandbox plays the list that settles
(`churn-pages`: tests/bulk/test_lying_lists.py); a list that changes on every read in another way is a
sequence of answers no server gives on demand, so these give the reads' pages as values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from wfctl.api.errors import ListingUntrue
from wfctl.api.records.listcheck import READS, read_whole
from wfctl.api.records.page import Page


class Reads:
    """A Client's `list_records`, each whole read given as one page of `rows` with `count`."""

    def __init__(self, *reads: tuple[list[str], int]) -> None:
        self.reads = list(reads)
        self.done = 0

    def list_records(self, kind: str, parent_id: str | None, **_: Any) -> Iterator[Page]:
        ids, count = self.reads[min(self.done, len(self.reads) - 1)]
        self.done += 1
        rows = [{"id": i, "name": i, "clientId": parent_id} for i in ids]
        yield Page(rows, 1, 100, 1, count, raw={"totalRecordCount": count})


def test_a_whole_read_is_read_once() -> None:
    reads = Reads((["a", "b"], 2))
    assert [r["id"] for r in read_whole(reads, "site", "c1").records] == ["a", "b"] and reads.done == 1


def test_two_reads_whose_common_records_number_the_count_are_the_proven_set() -> None:
    reads = Reads((["a", "b", "c", "a2"], 3), (["b", "c", "a2", "b2"], 3))  # a re-made as a2, then b as b2
    listing = read_whole(reads, "site", "c1")
    assert [r["id"] for r in listing.records] == ["b", "c", "a2"] and [r["id"] for r in listing.young] == ["b2"]
    assert reads.done == 2


def test_a_later_read_whole_by_itself_is_taken() -> None:
    reads = Reads((["a", "b", "c"], 2), (["b", "c"], 2))
    assert [r["id"] for r in read_whole(reads, "site", "c1").records] == ["b", "c"] and reads.done == 2


def test_a_list_that_never_settles_is_given_up_after_its_reads() -> None:
    reads = Reads((["a", "b", "c"], 2), (["d", "e", "f"], 2), (["g", "h", "i"], 2), (["j", "k"], 2))
    with pytest.raises(ListingUntrue) as caught:
        read_whole(reads, "site", "c1", where="client Acme")
    assert reads.done == READS == 3
    assert caught.value.title == ("the listing of sites under client Acme was long: it gave 3 records where its "
                                  "count (totalRecordCount) says 2 (records were added or deleted while it was "
                                  "read); nothing was deleted on its word")


def test_a_short_read_is_not_read_again() -> None:
    reads = Reads((["a"], 2), (["a", "b"], 2))
    with pytest.raises(ListingUntrue, match="was short"):
        read_whole(reads, "site", "c1")
    assert reads.done == 1  # records left out: the listing's own lie, which a second read repeats
