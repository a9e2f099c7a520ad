"""The floors `wfctl audit` judges hourly rates by (docs/payroll.md, "Auditing the agency's data"). Pure.

- A pay floor, `--floor`: an amount (`12.71`) or the statutory rate `nlw[:BAND]` in force on a date
  (`wfctl.payroll.statutory`, the table `rates set --floor nlw` reads).
- A charge floor built from its parts, `--charge-floor 'pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,
  overhead=0.60'`: the least a client can be charged an hour for the agency to pay the worker `pay` and
  meet what the law adds to it, the way the GLAA judges a charge rate:

      holiday pay = pay x holiday
      earnings    = pay + holiday pay
      on-costs    = earnings x (ni + pension + levy)
      floor       = earnings + on-costs + overhead, rounded up to the penny

  Only `pay` is required (an amount, or `nlw[:BAND]`); a part left out is 0.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from wfctl.api.domain.ratecalc import CENT, RateError, parse_amount
from wfctl.payroll import statutory

#: The parts of a charge floor, in the order the formula uses them: True for a percentage of earnings.
PARTS: dict[str, bool] = {"pay": False, "holiday": True, "ni": True, "pension": True, "levy": True,
                          "overhead": False}
EXAMPLE = "pay=12.71,holiday=12.07%,ni=15%,pension=3%,levy=0.5%,overhead=0.60"


class FloorError(ValueError):
    """A --floor or --charge-floor that cannot be read: one line, nothing was read."""


@dataclass(frozen=True)
class Floor:
    """A pay floor: its amount and where it came from (`12.71`, `nlw 21+ on 2026-11-28`)."""

    amount: Decimal
    source: str

    def describe(self) -> str:
        return f"{self.amount}" if self.source == str(self.amount) else f"{self.amount} ({self.source})"


@dataclass(frozen=True)
class ChargeFloor:
    """A charge floor from its parts; percentages as given (12.07 for 12.07%)."""

    pay: Floor
    holiday: Decimal = Decimal(0)
    ni: Decimal = Decimal(0)
    pension: Decimal = Decimal(0)
    levy: Decimal = Decimal(0)
    overhead: Decimal = Decimal(0)

    @property
    def holiday_pay(self) -> Decimal:
        return self.pay.amount * self.holiday / 100

    @property
    def earnings(self) -> Decimal:
        return self.pay.amount + self.holiday_pay

    @property
    def on_costs(self) -> Decimal:
        return self.earnings * (self.ni + self.pension + self.levy) / 100

    @property
    def amount(self) -> Decimal:
        """The floor: earnings, on-costs and overhead, rounded up to the penny (the least that covers them)."""
        return (self.earnings + self.on_costs + self.overhead).quantize(CENT, rounding=ROUND_CEILING)

    def describe(self) -> str:
        """`17.48 (pay 12.71 + holiday 12.07% + ni 15% + pension 3% + levy 0.5% + overhead 0.60)`."""
        parts = [f"pay {self.pay.describe()}"]
        for name in ("holiday", "ni", "pension", "levy"):
            value = getattr(self, name)
            if value:
                parts.append(f"{name} {_plain(value)}%")
        if self.overhead:
            parts.append(f"overhead {self.overhead}")
        return f"{self.amount} ({' + '.join(parts)})"


def pay_floor(text: str, day: dt.date, option: str = "--floor") -> Floor:
    """`12.71` or `nlw[:BAND]` (the statutory rate in force on `day`) as a Floor."""
    value = text.strip()
    if statutory.is_statutory(value):
        try:
            rate, _, band = statutory.rate_on(value, day)
        except statutory.StatutoryError as exc:  # its words name --floor: say which option it was
            raise FloorError(f"{option} {value}: {str(exc).split(': ', 1)[-1]}") from None
        return Floor(rate, f"nlw {band} on {day}")
    try:
        amount = parse_amount(value, option, allow_zero=False)
    except RateError as exc:
        raise FloorError(f"{exc}; or nlw[:{'|'.join(statutory.BANDS)}], the statutory rate") from None
    return Floor(amount, str(amount))


def charge_floor(text: str, day: dt.date) -> ChargeFloor:
    """`pay=12.71,holiday=12.07%,...` as a ChargeFloor; `pay=nlw[:BAND]` is the statutory rate on `day`."""
    given: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, equals, value = (piece.strip() for piece in item.partition("="))
        name = name.lower()
        if not equals or not value:
            raise FloorError(f"--charge-floor: {item.strip()!r} is not part=value (e.g. {EXAMPLE})")
        if name not in PARTS:
            raise FloorError(f"--charge-floor: unknown part {name!r}; the parts are {', '.join(PARTS)}")
        if name in given:
            raise FloorError(f"--charge-floor: {name} is given twice")
        given[name] = value
    if "pay" not in given:
        raise FloorError(f"--charge-floor: give the pay it is built on, e.g. {EXAMPLE}")
    pay = pay_floor(given.pop("pay"), day, "--charge-floor pay")
    parts = {name: _part(name, value) for name, value in given.items()}
    return ChargeFloor(pay, **parts)


def _part(name: str, value: str) -> Decimal:
    if not PARTS[name]:  # overhead: an amount an hour
        try:
            return parse_amount(value, f"--charge-floor {name}")
        except RateError as exc:
            raise FloorError(str(exc)) from None
    if not value.endswith("%"):
        raise FloorError(f"--charge-floor {name}={value}: a percentage of earnings, e.g. {name}=3%")
    try:
        number = Decimal(value[:-1].strip())
    except InvalidOperation:
        raise FloorError(f"--charge-floor {name}={value}: not a percentage (e.g. {name}=3%)") from None
    if not number.is_finite() or not 0 <= number <= 100:
        raise FloorError(f"--charge-floor {name}={value}: a percentage from 0% to 100%")
    return number


def _plain(value: Decimal) -> str:
    """12.07 as `12.07`, 15.0 as `15`."""
    return format(value.normalize(), "f")
