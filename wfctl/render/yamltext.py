"""-o yaml: JSON values as YAML (PyYAML's C emitter, loaded only when -o yaml is asked for).

Text that a YAML reader would take for something else stays quoted, for YAML 1.1 readers (PyYAML,
Ruby's Psych: `yes`, `on`, `0427` octal, `1:20` sexagesimal) and YAML 1.2 ones (`1e3`, `0o17`, `.inf`)
alike: a postcode `0427`, an answer `yes`, a code `1e3`, `null` and `~` come back as the text they are.
Keys keep the service's order; integers keep every digit; nothing is wrapped at 80 columns (a long address
stays one line).
"""

from __future__ import annotations

import re
from typing import Any

#: Plain scalars some YAML reader resolves to a non-string (a union of YAML 1.1's and 1.2's core resolvers),
#: plus text a plain scalar cannot hold as it is (leading or trailing space, empty).
_RETYPED = re.compile(r"""(?x)
    ~ | null | Null | NULL
  | y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
  | [-+]?(?:0|[1-9][0-9_]*)                         # decimal
  | [-+]?0[0-7_]+ | 0o[0-7]+ | [-+]?0x[0-9a-fA-F_]+ | [-+]?0b[01_]+
  | [-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?   # 1.5, .5, 1e3, 1.5E-3
  | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?                    # 1:20 (sexagesimal)
  | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
  | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt\ ].*)?                          # a date or a timestamp
  | = | <<
""")

_dumper: Any = None
#: What the service sent is data, never terminal control (wfctl.text.safetext): DEL, C1 and bidirectional controls.
_CONTROLS = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _make_dumper() -> Any:
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Dumper(base):  # type: ignore[misc, valid-type]
        pass

    def text(dumper: Any, value: str) -> Any:
        if _CONTROLS.search(value):  # escaped after the dump: only a double-quoted scalar can hold \uNNNN
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
        if _RETYPED.fullmatch(value):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
        return dumper.represent_scalar("tag:yaml.org,2002:str", value)

    Dumper.add_representer(str, text)
    Dumper.add_multi_representer(float, lambda dumper, value: dumper.represent_float(float(value)))  # a jq Literal
    return Dumper


def dump(value: Any, *, start: bool = False) -> str:
    """One YAML document (`---` before it when `start`)."""
    global _dumper
    import yaml

    if _dumper is None:
        _dumper = _make_dumper()
    text = str(yaml.dump(value, Dumper=_dumper, sort_keys=False, allow_unicode=True, width=2**31 - 1,
                         default_flow_style=False, explicit_start=start))
    return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dump_items(items: list[Any]) -> str:
    """Items of a list, as they would appear in the list's YAML (`- ...`), to be written one page at a time."""
    return dump(items) if items else ""
