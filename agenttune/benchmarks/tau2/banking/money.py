"""Amounts and dates as the banking data writes them (``"$842.15"``, ``"0"``, ``-50.0``; ``MM/DD/YYYY``), and the
domain's fixed clock (every task happens on 2025-11-14, the time ``get_current_time`` reports)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

NOW = "2025-11-14 03:40:00 EST"
TODAY = date(2025, 11, 14)


def amount(value: Any) -> float:
    """A money value of the data as a float (``"$1,842.15"`` -> 1842.15, ``"6300 points"`` -> 6300.0)."""
    if isinstance(value, int | float):
        return float(value)
    text = str(value or "0").replace("$", "").replace(",", "").split()[0]
    return float(text)


def dollars(value: float) -> str:
    return f"${value:,.2f}"


def parse_date(text: str) -> date:
    return datetime.strptime(text, "%m/%d/%Y").date()


def today() -> str:
    return TODAY.strftime("%m/%d/%Y")


def age_days(text: str) -> int:
    """Days from a ``MM/DD/YYYY`` date to the domain's today."""
    return (TODAY - parse_date(text)).days
