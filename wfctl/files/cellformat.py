"""A workbook cell's number as the sheet shows it, by its number format (issue 33 §2).

`formatter(code, date1904)` gives the function that turns a cell's number into the text a person sees
under the format `code` (a style's `formatCode`, or a built-in format's), or None for General (the
reader's own 15-significant-digit rendering):

- digits: `00000000000` keeps a phone's leading zero (`01614960123`), `#,##0.00` groups thousands,
  `0.0%` scales, literals and currency (`[$£-809]#,##0.00` -> `£13.50`) are kept, a second section is
  the negative one, a third the zero one; colours and locales are left out;
- dates as YYYY-MM-DD (with the time when the format shows one), times as HH:MM (HH:MM:SS when the
  format shows seconds; `[h]` elapsed hours counted on), on the workbook's date system: days since
  1899-12-30 (1900, with Excel's 29 February 1900) or since 1904-01-01 (`<workbookPr date1904="1"/>`);
- what it cannot render (fractions, conditions `[<100]`) as General.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

Format = Callable[[float], str]

#: Excel's built-in number formats (ECMA-376 18.8.30) a style may name by id alone.
BUILTIN = {
    1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?",
    13: "# ??/??", 14: "yyyy-mm-dd", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM",
    19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "yyyy-mm-dd h:mm", 37: "#,##0 ;(#,##0)",
    38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)", 45: "mm:ss",
    46: "[h]:mm:ss", 47: "mm:ss.0", 48: "##0.0E+0", 49: "@",
    **{n: "yyyy-mm-dd" for n in (*range(27, 37), *range(50, 59))},  # East Asian locales' dates
}

# a format code's tokens: a quoted literal, an escaped character, a bracket ([Red], [$£-809], [h]),
# `_x` (a space as wide as x), `*x` (x repeated to fill: nothing), or one character
_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")
_TOKEN = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|_.|\*.|.', re.DOTALL)


def decoded(text: str) -> str:
    """A workbook's string as it means it: `_xHHHH_` is the character HHHH (`_x005F_` a literal `_`), as
    Excel, LibreOffice and XlsxWriter write control characters and a literal `_x`."""
    if "_x" not in text:
        return text
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), text)


def formatter(code: str, date1904: bool) -> Format | None:
    """The rendering of a number under the format `code`; None: as General."""
    sections = _sections(code)
    if len(sections) == 1 and _is_general(sections[0]):
        return None
    parsed = [_parse(section, date1904) for section in sections[:3]]
    if any(p is None for p in parsed):
        return None
    first = parsed[0]
    assert first is not None
    negative = parsed[1] if len(parsed) > 1 else None
    zero = parsed[2] if len(parsed) > 2 else None

    def render(value: float) -> str:
        if value < 0 and negative is not None:
            return negative(-value)
        if value == 0 and zero is not None:
            return zero(value)
        return first(value)

    return render


def _sections(code: str) -> list[str]:
    sections: list[str] = []
    current: list[str] = []
    for token in _TOKEN.findall(code):
        if token == ";":
            sections.append("".join(current))
            current = []
        else:
            current.append(token)
    sections.append("".join(current))
    return sections


def _is_general(section: str) -> bool:
    return section.strip().lower() in ("general", "", "@")


def _parse(section: str, date1904: bool) -> Format | None:
    if _is_general(section):
        return general
    tokens: list[str] = []
    for token in _TOKEN.findall(section):
        if token.startswith("["):
            inner = token[1:-1]
            if inner.startswith("$"):  # [$£-809]: a currency symbol (maybe none) and a locale
                tokens.append('"' + inner[1:].split("-", 1)[0] + '"')
            elif re.fullmatch(r"[hHmMsS]+", inner):
                tokens.append(token.lower())  # elapsed time
            elif re.match(r"[<>=]", inner):
                return None  # a condition: not rendered here
            continue  # a colour, a locale
        if token.startswith("*"):
            continue
        if token.startswith("_"):
            tokens.append('" "')
            continue
        tokens.append(token)
    if "@" in tokens:  # a section for text: a number shows as General
        return general
    plain = "".join(t for t in tokens if not t.startswith(('"', "\\")))
    lowered = plain.lower()
    if re.search(r"[ymdhs]", lowered.replace("general", "")) and not re.search(r"[0#?]", re.sub(r"\.0+", "", plain)):
        return _date_format(tokens, date1904)
    if "general" in lowered:  # General with literals: `General" units"`
        joined = "".join(_literal(t) for t in tokens)
        at = joined.lower().find("general")
        before, after = joined[:at], joined[at + len("general"):]
        return lambda value: before + general(value) + after
    if "/" in plain and re.search(r"[?#0]\s*/\s*[?#0-9]", plain):
        return None  # a fraction
    if "e" in lowered:
        return _scientific(tokens)
    return _number_format(tokens)


def general(value: float) -> str:
    """A number as General shows it: its 15 significant digits, without E-notation or `.0`."""
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    shown = Decimal(f"{value:.15g}")
    if shown == shown.to_integral_value():
        return str(int(shown))
    return format(shown.normalize(), "f")


def _literal(token: str) -> str:
    if token.startswith('"'):
        return token[1:-1]
    if token.startswith("\\"):
        return token[1:]
    return token


def _number_format(tokens: list[str]) -> Format | None:
    digits = [i for i, t in enumerate(tokens) if t in _HOLDERS]
    if not digits:  # literals only ("-" for zero, say)
        text = "".join(_literal(t) for t in tokens if t not in ("@",))
        return lambda value: text
    first, last = digits[0], digits[-1]
    point = next((i for i in range(last + 1) if tokens[i] == "."), None)
    first = min(first, point) if point is not None else first
    integer = tokens[first:point if point is not None else last + 1]
    fraction = [t for t in tokens[point + 1:last + 1]] if point is not None else []
    prefix = "".join(_literal(t) for t in tokens[:first] if t != "%")
    suffix_tokens = tokens[last + 1:]
    scale = Decimal(1)
    # trailing commas after the last integer digit divide by 1,000 each
    while integer and integer[-1] == ",":
        integer.pop()
        scale /= 1000
    while suffix_tokens and suffix_tokens[0] == "," and point is None:
        suffix_tokens.pop(0)
        scale /= 1000
    percent = tokens.count("%")
    scale *= Decimal(100) ** percent
    grouped = "," in integer
    integer = [t for t in integer if t != ","] if grouped else integer
    places = sum(1 for t in fraction if t in _HOLDERS)
    suffix = "".join(_literal(t) for t in suffix_tokens)
    quantum = Decimal(1).scaleb(-places)

    def render(value: float) -> str:
        number = _decimal(value) * scale
        sign = "-" if number < 0 else ""
        number = abs(number).quantize(quantum, rounding=ROUND_HALF_UP)
        whole, _, decimals = f"{number:f}".partition(".")
        if number == 0:
            sign = ""
        if whole == "0":
            whole = ""
        text = _fill_integer(integer, whole, grouped) + _fill_fraction(fraction, decimals)
        return sign + prefix + text + suffix

    return render


_HOLDERS = ("0", "#", "?")
_BLANK = {"0": "0", "#": "", "?": " "}


def _fill_integer(pattern: list[str], digits: str, grouped: bool) -> str:
    """`digits` into the integer placeholders from the right, literals between them kept; digits beyond
    them go in front. Grouped (`#,##0`): padded to the `0`s, then commas every three digits."""
    if grouped:  # literals between grouped digits are not kept
        whole = digits.rjust(pattern.count("0"), "0")
        return ",".join(reversed([whole[max(0, end - 3):end] for end in range(len(whole), 0, -3)]))
    leftmost = next((i for i, t in enumerate(pattern) if t in _HOLDERS), -1)
    if leftmost < 0:  # `.00`: the digits in front
        return digits + "".join(_literal(t) for t in pattern)
    out: list[str] = []
    rest = digits
    for i in range(len(pattern) - 1, -1, -1):
        token = pattern[i]
        if token not in _HOLDERS:
            out.append(_literal(token))
        elif i == leftmost:
            out.append(rest or _BLANK[token])
            rest = ""
        elif rest:
            out.append(rest[-1])
            rest = rest[:-1]
        else:
            out.append(_BLANK[token])
    return "".join(reversed(out))


def _fill_fraction(pattern: list[str], digits: str) -> str:
    """The decimals into the placeholders after the point: a trailing zero under `#` is left out, under
    `?` a space."""
    if not pattern:
        return ""
    shown = list(digits)
    holders = [t for t in pattern if t in _HOLDERS]
    for k in range(len(holders) - 1, -1, -1):
        if holders[k] == "0" or shown[k] != "0":
            break
        shown[k] = _BLANK[holders[k]]
    out = ["."]
    k = 0
    for token in pattern:
        if token in _HOLDERS:
            out.append(shown[k] if k < len(shown) else _BLANK[token])
            k += 1
        else:
            out.append(_literal(token))
    text = "".join(out)
    return "" if text == "." else text


def _scientific(tokens: list[str]) -> Format | None:
    plain = "".join(tokens)
    match = re.search(r"([0#?.,]+)[eE]([+-])([0#?]+)", plain)
    if match is None:
        return None
    mantissa, plus, exponent = match.groups()
    quantum = Decimal(1).scaleb(-len(mantissa.partition(".")[2]))
    width = len(exponent)

    def render(value: float) -> str:
        number = _decimal(value)
        power = 0 if number == 0 else number.adjusted()
        digits = number.scaleb(-power).quantize(quantum, rounding=ROUND_HALF_UP)
        if abs(digits) >= 10:  # 9.995 -> 10.00: one more power
            power += 1
            digits = number.scaleb(-power).quantize(quantum, rounding=ROUND_HALF_UP)
        sign = "-" if power < 0 else ("+" if plus == "+" else "")
        return f"{digits:f}E{sign}{abs(power):0{width}d}"

    return render


def _date_format(tokens: list[str], date1904: bool) -> Format:
    """Dates as YYYY-MM-DD; the time as the format shows it (`h` without a leading zero, `hh` with one,
    `AM/PM`), its literals between the time's parts kept."""
    words = _words(tokens)
    kinds = [_time_kind(words, i) for i in range(len(words))]
    has_date = any(kind == "date" for kind in kinds)
    timed = [i for i, kind in enumerate(kinds) if kind == "time"]
    time_words = words[timed[0]:timed[-1] + 1] if timed else []
    twelve = any(w.lower() in ("am/pm", "a/p") for w in time_words)
    elapsed = any(w.startswith("[") for w in time_words)

    def render(value: float) -> str:
        day, moment = _moment(value, date1904)
        if day is None and not elapsed:
            return general(value)
        if not time_words:
            return day or ""
        total = round(value * 86400 * 1000)  # milliseconds
        parts = []
        first = True
        for word in time_words:
            lower = word.lower().strip("[]")
            if lower[:1] == "h":
                hours = total // 3_600_000 if elapsed and first else moment.hour
                if twelve:
                    hours = hours % 12 or 12
                parts.append(f"{hours:0{min(len(lower), 2)}d}")
            elif lower[:1] == "m":
                minutes = total // 60_000 if elapsed and first else moment.minute
                parts.append(f"{minutes:0{min(len(lower), 2)}d}")
            elif lower[:1] == "s":
                seconds = total // 1000 if elapsed and first else moment.second
                parts.append(f"{seconds:0{min(len(lower), 2)}d}")
            elif lower in ("am/pm", "a/p"):
                pm = moment.hour >= 12
                parts.append(("PM" if pm else "AM") if lower == "am/pm" else ("P" if pm else "A"))
            elif lower.startswith(".0"):
                parts.append("." + f"{round(value * 86400 * 1000) % 1000:03d}"[:len(lower) - 1])
            else:
                parts.append(_literal(word))
                continue
            first = False
        time = "".join(parts)
        return f"{day} {time}" if has_date and day else time

    return render


def _words(tokens: list[str]) -> list[str]:
    """A date format's tokens with runs of one letter joined (`yyyy`, `mm`, `AM/PM`, `.00`)."""
    words: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        ahead = "".join(tokens[i - 1:i + 4]).lower()
        if ahead.startswith(("am/pm", "a/p")):
            size = 5 if ahead.startswith("am/pm") else 3
            words.append("".join(tokens[i - 1:i - 1 + size]))
            i += size - 1
        elif token.startswith(("\"", "\\", "[")):
            words.append(token)
        elif (words and token.lower() == words[-1][-1:].lower() and token.isalpha() and not words[-1].startswith(
                ("\"", "\\", "["))) or (words and token == "0" and words[-1][:1] == "."):
            words[-1] += token
        else:
            words.append(token)
    return words


def _time_kind(words: list[str], i: int) -> str:
    """"date", "time" or "" (a literal) for the word at `i`: `m` is minutes beside `h` or `s`, else months."""
    lower = words[i].lower().strip("[]")
    if lower[:1] in ("y", "d", "e", "g") and lower.isalpha() and lower not in ("am", "a"):
        return "date"
    if (lower[:1] in ("h", "s") and lower.isalpha()) or lower in ("am/pm", "a/p") or lower.startswith(".0"):
        return "time"
    if lower[:1] == "m" and lower.isalpha():
        if len(lower) > 2:
            return "date"  # mmm: a month's name
        near = [w.lower().strip("[]")[:1] for w in words[max(0, i - 2):i + 3] if w.isalpha() or w.startswith("[")]
        return "time" if "h" in near or "s" in near else "date"
    return ""


_EPOCH_1900 = datetime.datetime(1899, 12, 30)
_EPOCH_1904 = datetime.datetime(1904, 1, 1)


def _moment(value: float, date1904: bool) -> tuple[str | None, datetime.datetime]:
    """The date (YYYY-MM-DD) and moment of a serial on the workbook's date system."""
    if value < 0 or value >= 2958466:  # before the epoch, after 9999-12-31
        return None, _EPOCH_1900
    epoch = _EPOCH_1904 if date1904 else _EPOCH_1900
    if not date1904 and value < 61:
        if 60 <= value < 61:  # Excel's 29 February 1900, a day that was not
            moment = datetime.datetime(1900, 2, 28) + datetime.timedelta(days=value - 60)
            return "1900-02-29", moment
        if value >= 1:
            epoch = datetime.datetime(1899, 12, 31)
    micro = round(value * 86_400_000_000)
    days, micro = divmod(micro, 86_400_000_000)
    # a time is shown to the second: 12:29:59.9999 is 12:30:00
    seconds = round(micro / 1_000_000)
    if seconds == 86400:
        days, seconds = days + 1, 0
    try:
        moment = epoch + datetime.timedelta(days=days, seconds=seconds)
    except OverflowError:  # after 9999-12-31
        return None, epoch
    return moment.date().isoformat(), moment


def _decimal(value: float) -> Decimal:
    try:
        return Decimal(f"{value:.15g}")
    except InvalidOperation:  # pragma: no cover - inf and nan are not numbers a cell holds
        return Decimal(0)
