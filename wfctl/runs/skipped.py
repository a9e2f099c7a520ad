"""What an import's skipped rows leave unsent (issue 30 §5): of the rows skipped because their record
exists (`--on-existing skip`, the default), how many hold values the service does not, so that an edited
export imported without `--on-existing update` says its edits were not sent instead of dropping them in
silence.

A row is compared with the record it was matched to (by id or by name), field by field, as an update
would be: first with the list item already read; a kind whose list items lack fields the row carries (a
site's rates, departments, banned workers) reads the full record, only for rows whose listed fields are
all equal, at most `concurrency` at a time.
"""

from __future__ import annotations

from typing import Any

from wfctl.api.records.ordered import ordered_map
from wfctl.api.records.recordrules import changed_fields, natural_key, writable_changes
from wfctl.api.records.resources import RESOURCES


def count(plan: Any, journal: Any, api: Any, options: Any) -> tuple[int, int]:
    """(rows skipped that differ from their record, rows whose record could not be read to tell): of
    `plan`'s rows (planning.ImportPlan), those `journal` says were skipped; `api` reads a record."""
    from wfctl.api.errors import ApiError

    kind = options.kind
    lacking = RESOURCES[kind].not_in_list_items
    differ = 0
    to_read: list[tuple[str, dict[str, Any]]] = []
    for planned in plan.rows():
        record, body = planned.existing, planned.body
        if record is None or journal.status(planned.row) != "skipped":
            continue
        change = writable_changes(kind, body)
        if not planned.by_id and natural_key(change.get("name")) == natural_key(record.get("name")):
            change.pop("name", None)  # found by its name, which is not a rename
        listed = {k: v for k, v in change.items() if k not in lacking}
        if changed_fields(record, listed):
            differ += 1
        elif len(listed) < len(change):
            to_read.append((str(record.get("id", "")), change))
    if not to_read:
        return differ, 0

    def read(item: tuple[str, dict[str, Any]]) -> bool | None:
        try:
            return bool(changed_fields(api.get_record(kind, item[0]), item[1]))
        except ApiError:
            return None

    answers = list(ordered_map(read, to_read, options.concurrency, name="wfctl-skipped"))
    return differ + answers.count(True), answers.count(None)
