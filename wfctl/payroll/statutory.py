"""The UK National Living Wage and National Minimum Wage hourly rates, shipped with wfctl, for
`rates set --floor nlw[:BAND]` and `wfctl help rates`.

Source: GOV.UK, "National Minimum Wage and National Living Wage rates" (www.gov.uk/national-minimum-wage-rates),
the rates in force from 1 April of each year; the 2026 rates are those the government announced with the
Low Pay Commission's recommendations on 26 November 2025, in force from 1 April 2026. A rate applies from the
first pay reference period starting on or after its date (National Minimum Wage Regulations 2015, reg. 4(2)):
`rates set --effective` finds that week. The table is checked against GOV.UK on `CHECKED`; a date on or after
`VALID_UNTIL` (when the next rates are due) is refused rather than answered with rates that may be stale.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

SOURCE = "GOV.UK, National Minimum Wage and National Living Wage rates (www.gov.uk/national-minimum-wage-rates)"
CHECKED = dt.date(2026, 11, 27)
#: The age bands (`nlw:BAND`), in the order of the table's columns; the first is the National Living Wage.
BANDS = ("21+", "18-20", "16-17", "apprentice")
BAND_NAMES = {"21+": "aged 21 and over (National Living Wage)", "18-20": "aged 18 to 20",
              "16-17": "aged 16 to 17", "apprentice": "apprentice (under 19, or in the first year)"}
#: (in force from, hourly rate of each band in BANDS' order), oldest first.
RATES: tuple[tuple[dt.date, tuple[str, str, str, str]], ...] = (
    (dt.date(2024, 4, 1), ("11.44", "8.60", "6.40", "6.40")),
    (dt.date(2025, 4, 1), ("12.21", "10.00", "7.55", "7.55")),
    (dt.date(2026, 4, 1), ("12.71", "10.85", "8.00", "8.00")),
)
#: The next yearly change is due on this date: the table does not answer for it or after it.
VALID_UNTIL = dt.date(2027, 4, 1)


class StatutoryError(ValueError):
    """A --floor nlw the table cannot answer: one line."""


def is_statutory(text: str) -> bool:
    """Whether a --floor value names the statutory rate (`nlw`, `nlw:18-20`) rather than an amount."""
    return text.strip().lower().split(":", 1)[0] == "nlw"


def band_of(text: str) -> str:
    """The band of `nlw[:BAND]` (21+ when none is given)."""
    _, _, band = text.strip().lower().partition(":")
    band = band.strip() or BANDS[0]
    if band not in BANDS:
        raise StatutoryError(f"--floor {text.strip()}: unknown band {band!r}; nlw takes one of "
                             f"{', '.join(BANDS)} (nlw alone is 21+)")
    return band


def rate_on(text: str, day: dt.date) -> tuple[Decimal, dt.date, str]:
    """The statutory hourly rate `nlw[:BAND]` in force on `day`: (rate, in force from, band)."""
    band = band_of(text)
    if day < RATES[0][0]:
        raise StatutoryError(f"--floor {text.strip()}: wfctl's table of statutory rates starts on {RATES[0][0]}; "
                             "give the amount for an earlier date (--floor 10.42)")
    if day >= VALID_UNTIL:
        raise StatutoryError(f"--floor {text.strip()}: wfctl's table of statutory rates (checked {CHECKED}) holds "
                             f"the rates until {VALID_UNTIL - dt.timedelta(days=1)}; the rates from {VALID_UNTIL} "
                             "are not in it: give the amount (--floor 13.00), or upgrade wfctl")
    since, amounts = [row for row in RATES if row[0] <= day][-1]
    return Decimal(amounts[BANDS.index(band)]), since, band


def table_rows() -> list[tuple[str, ...]]:
    """The table for `wfctl help rates`: a header and one row per date."""
    return [("from", *BANDS), *((since.isoformat(), *amounts) for since, amounts in RATES)]


def last_day() -> dt.date:
    """The last date the table answers for."""
    return VALID_UNTIL - dt.timedelta(days=1)
