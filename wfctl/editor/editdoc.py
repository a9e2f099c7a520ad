"""The YAML a person edits in `wfctl <group> edit`: a record written out, and read back into the fields of
an update, checked with the update's rules (the write models, wfctl.api.records.models), each problem tied to the
line it is about.

    # wfctl sites edit: site "Dock 4" (629bac2d-...) ...
    id: 629bac2d-...
    clientId: 9a1c...
    name: Dock 4
    rates:
    - Forklift Driver: 13.25
    departments:
    - Goods In: {contactPerson: Ann Lee, email: ann@example.com}
    bannedWorkers:
    - W-1
    # createdOn: 2026-11-02T09:14:00Z

One list entry a line; read-only fields are comments. Read back, every scalar is text (a loader without
YAML's implicit types: `0427`, `yes` and `1e3` stay what was typed) until the write model converts what
is a number or a boolean. PyYAML loads only here, when an edit runs: `--help`, `--version` and Tab
never pay its import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from wfctl.api.records.recordrules import LIST_FIELDS

#: Comment lines wfctl adds when it reopens a buffer; taken out again before the text is read.
ERROR_MARK = "# ERROR: "
CONFLICT_MARK = "# CONFLICT: "
_MARKS = (ERROR_MARK, CONFLICT_MARK)
#: A text written without quotes reads back as the same text (and no YAML reader retypes it).
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9 _.,()/&+@'-]*$")
_STR = "tag:yaml.org,2002:str"


@dataclass(frozen=True)
class Shape:
    """What a buffer holds of a kind: the fields it may change, those shown that may not (`fixed`: the id
    and the parent), and how moving the record is said."""

    kind: str
    writable: tuple[str, ...]
    fixed: tuple[str, ...] = ()


@dataclass
class Problem:
    """A message about the buffer at `line` (1-based; 0: the top of the file)."""

    line: int
    message: str


@dataclass
class Document:
    """One record of the buffer: its values as typed (text), and the line of each field and list entry."""

    values: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)
    line: int = 1


class BufferProblems(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def shape_of(kind: str) -> Shape:
    if kind == "agency":
        return Shape("agency", ("name", "email", "phone", "workWeekStart", "calendarYearStart", "holidayYearStart",
                                "holidayCapHours"))
    from wfctl.api.records.resources import RESOURCES

    spec = RESOURCES[kind]
    return Shape(kind, spec.writable, ("id", *((spec.parent_field,) if spec.parent_field else ())))


# -- writing -----------------------------------------------------------------------------------
def render(shape: Shape, records: list[dict[str, Any]], header: list[str],
           notes: dict[int, dict[str, list[str]]] | None = None, named: dict[str, str] | None = None) -> str:
    """The buffer: the `header` lines as comments, then each record (`---` between two); `notes[i][field]`
    are CONFLICT comments written above that field of the i-th record; `named[id]`, a comment beside a fixed
    field holding that id (`clientId: 9a1c...  # client Pennine Foods Ltd`, as `sites get` shows it)."""
    out = [f"# {line}" if line else "#" for line in header]
    for index, record in enumerate(records):
        if index or len(records) > 1:
            out.append("---")
        out.extend(_record_lines(shape, record, (notes or {}).get(index, {}), named or {}))
    return "\n".join(out) + "\n"


def _record_lines(shape: Shape, record: dict[str, Any], notes: dict[str, list[str]],
                  named: dict[str, str]) -> list[str]:
    from wfctl.api.records.recordrules import entry_key, natural_key

    lines: list[str] = []
    for name in (*shape.fixed, *shape.writable):
        value = record.get(name)
        if name in LIST_FIELDS:
            keys = {note_key(name, natural_key(entry_key(name, item))) for item in value or []}
            lines.extend(CONFLICT_MARK + note for key, said in notes.items()
                         if key == name or (key.startswith(name + ":") and key not in keys) for note in said)
            lines.append(f"{name}:" if value else f"{name}: []")
            for item in value or []:
                lines.extend(CONFLICT_MARK + note
                             for note in notes.get(note_key(name, natural_key(entry_key(name, item))), []))
                lines.append(f"- {_entry(name, item)}")
        else:
            lines.extend(CONFLICT_MARK + note for note in notes.get(name, []))
            beside = named.get(str(value)) if name in shape.fixed and name != "id" else None
            lines.append(f"{name}: {scalar(value)}" + (f"  # {_comment(beside)}" if beside else ""))
    lines.extend(f"# {name}: {_comment(value)}" for name, value in record.items()
                 if name not in shape.fixed and name not in shape.writable)
    return lines


def note_key(field: str, key: str | None) -> str:
    """Where `render`'s notes go: above a field (`email`), or above an entry of a list (`rates:forklift`)."""
    return f"{field}:{key}" if key is not None else field


def _entry(name: str, item: Any) -> str:
    if name == "rates" and isinstance(item, dict):
        return f"{scalar(item.get('skill'))}: {scalar(item.get('hourlyRate'), money=True)}"
    if name == "departments" and isinstance(item, dict):
        rest = ", ".join(f"{key}: {scalar(value)}" for key, value in item.items() if key != "name" and value)
        return f"{scalar(item.get('name'))}: {{{rest}}}"
    return scalar(item)


def scalar(value: Any, *, money: bool = False) -> str:
    """A value as YAML that reads back (with this module's loader) as the text the write model takes."""
    if value is None:
        return "''"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{Decimal(str(value)):.2f}" if money and not isinstance(value, bool) else str(value)
    text = str(value)
    if _PLAIN.match(text) and text == text.strip() and _read_as_text(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def _read_as_text(text: str) -> bool:
    """Whether any YAML reader takes `text`, unquoted, for text (not `yes`, `0427`, `1e3`, `2026-01-01`)."""
    import yaml

    return bool(yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False)) == _STR)


def _comment(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return " ".join(str(text).split())


# -- reading -----------------------------------------------------------------------------------
def without_marks(text: str) -> str:
    """`text` without the ERROR and CONFLICT comments an earlier pass added."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith(_MARKS))


def is_empty(text: str) -> bool:
    """Nothing but comments and blank lines (and `---`): the person cancelled."""
    return all(not line.strip() or line.lstrip().startswith("#") or line.strip() == "---"
               for line in text.splitlines())


def annotate(text: str, problems: list[Problem], mark: str = ERROR_MARK) -> str:
    """`text` with each problem as a comment above its line (the top of the file for line 0)."""
    lines = text.splitlines()
    above: dict[int, list[str]] = {}
    for problem in problems:
        above.setdefault(max(problem.line, 1), []).append(f"{mark}{' '.join(problem.message.split())}")
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        indent = line[: len(line) - len(line.lstrip())]
        out.extend(indent + note for note in above.pop(number, []))
        out.append(line)
    for notes in above.values():  # beyond the end
        out.extend(notes)
    return "\n".join(out) + "\n"


def documents(text: str) -> list[Document]:
    """The records of the buffer (one, or a `---` stream); BufferProblems for text that is not YAML or a
    document that is not a mapping of fields."""
    import yaml

    loader = _loader()(text)
    docs: list[Document] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            line = node.start_mark.line + 1
            if not isinstance(node, yaml.MappingNode):
                raise BufferProblems([Problem(line, "expected the record's fields (name: value), one a line")])
            values = loader.construct_document(node)
            docs.append(Document(values, _lines(node), line))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = mark.line + 1 if mark is not None else 0
        raise BufferProblems([Problem(where, f"not YAML: {exc.problem or exc.context}")]) from None
    finally:
        loader.dispose()
    return docs


def read_record(shape: Shape, doc: Document, base: dict[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The writable fields of `base` with the document's changes, checked with the update's rules, and
    the problems (each at its line). A field left out keeps its value; `fixed` fields may not change."""
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    for name, value in doc.values.items():
        line = doc.lines.get(str(name), doc.line)
        if name in shape.fixed:
            if str(value).strip() != str(base.get(name) or "").strip():
                problems.append(Problem(line, _moving(shape, str(name))))
        elif name in shape.writable:
            values[name] = _typed(shape, str(name), value, doc, problems)
        elif name in base:
            problems.append(Problem(line, f"{name} is read-only (the service sets it): leave it as a comment"))
        else:
            values[name] = value  # the write model names it: not a field of this record
    body = _validated(shape, values, doc, problems)
    merged = {name: base.get(name) for name in shape.writable if name in base}
    merged.update(body)
    return merged, problems


def _moving(shape: Shape, name: str) -> str:
    if name == "id":
        return f"id: the id names the {shape.kind}, it cannot change (moving a {shape.kind} is not an edit)"
    return f"{name}: moving a {shape.kind} is not an edit (its {name} cannot change here)"


def _typed(shape: Shape, name: str, value: Any, doc: Document, problems: list[Problem]) -> Any:
    """A list field's entries in the service's shape (`- Skill: 13.25` -> {"skill", "hourlyRate"})."""
    if name not in LIST_FIELDS:
        return value
    if value in ("", None):
        return []
    if not isinstance(value, list):
        problems.append(Problem(doc.lines.get(name, doc.line), f"{name}: expected a list, one entry a line (- ...)"))
        return []
    out = []
    for index, item in enumerate(value):
        line = doc.lines.get(f"{name}[{index}]", doc.line)
        if name == "bannedWorkers":
            if isinstance(item, dict | list):
                problems.append(Problem(line, "bannedWorkers: one worker id a line (- W-1)"))
                continue
            out.append(item)
        elif isinstance(item, dict) and len(item) == 1 and not ({"skill", "name"} & set(item)):
            key, rest = next(iter(item.items()))
            if name == "rates":
                out.append({"skill": key, "hourlyRate": rest})
            elif isinstance(rest, dict) or rest in ("", None):
                out.append({"name": key, **(rest or {})})
            else:
                problems.append(Problem(line, "departments: write one as `- Name: {contactPerson: ..., email: ...}`"))
        elif isinstance(item, dict):
            out.append(item)
        elif name == "departments" and isinstance(item, str):
            out.append({"name": item})
        else:
            example = "- Forklift Driver: 13.25" if name == "rates" else "- Goods In: {contactPerson: Ann Lee}"
            problems.append(Problem(line, f"{name}: write one entry a line, as `{example}`"))
    return out


def _validated(shape: Shape, values: dict[str, Any], doc: Document, problems: list[Problem]) -> dict[str, Any]:
    from pydantic import ValidationError

    from wfctl.api.records.models import WRITE_MODELS, field_errors

    try:
        return WRITE_MODELS[(shape.kind, "update")].model_validate(values).body()
    except ValidationError as exc:
        errors = field_errors(exc)
    for location, messages in errors.items():
        problems.append(Problem(_line_of(doc, location), f"{location}: {'; '.join(messages)}"))
    return {}


def _line_of(doc: Document, location: str) -> int:
    """The line a write model's error location (`rates[1].hourlyRate`) is about."""
    head = location.split(".", 1)[0]
    return doc.lines.get(head) or doc.lines.get(head.split("[", 1)[0]) or doc.line


def _lines(node: Any) -> dict[str, int]:
    import yaml

    lines: dict[str, int] = {}
    for key, value in node.value:
        name = str(key.value)
        lines[name] = key.start_mark.line + 1
        if isinstance(value, yaml.SequenceNode):
            for index, item in enumerate(value.value):
                lines[f"{name}[{index}]"] = item.start_mark.line + 1
    return lines


_LOADER: Any = None


def _loader() -> Any:
    """A safe loader that types nothing: every scalar is the text typed (the write model converts)."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class TextLoader(base):  # type: ignore[misc, valid-type]
            yaml_implicit_resolvers: ClassVar[dict[str, Any]] = {}

        _LOADER = TextLoader
    return _LOADER
