"""Numbers as documents write them, and whether one states a claim's value.

A document may write the value 0.93412 as ``0.934``, ``93.4%``, ``93.40``, ``93.4 \\%``,
``\\num{0.934}`` or ``93.4 ± 0.2``; each is the value rounded to the digits shown, as a fraction
or as a percentage. Integers without a percent sign (seed counts, years, epochs) are not claims'
numbers and are never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A signed decimal (or a percentage), optionally wrapped in \num{...}, optionally followed by a
# spread (± x, +/- x, \pm x) that is part of the same statement and is not read as a value.
NUMBER = re.compile(
    r"(?<![\w.])(?:\\num\{\s*)?"
    r"(?P<sign>[-+\u2212])?(?P<digits>\d+(?:\.(?P<decimals>\d+))?)"
    r"(?:\s*\})?(?P<percent>\s*\\?%)?"
    r"(?P<spread>\s*(?:±|\+/-|\\pm)\s*\d+(?:\.\d+)?(?:\s*\\?%)?)?"
    r"(?![\w.]*\d)"
)


@dataclass(frozen=True)
class Number:
    """One number found in a line: its text, value, shown decimals, span, and whether a %."""

    text: str
    value: float
    decimals: int
    percent: bool
    start: int
    end: int


def find_numbers(line: str) -> list[Number]:
    """Every decimal or percentage in ``line`` (bare integers are skipped)."""
    numbers = []
    for match in NUMBER.finditer(line):
        decimals = match.group("decimals")
        percent = bool(match.group("percent"))
        if decimals is None and not percent:
            continue
        sign = -1.0 if match.group("sign") in ("-", "\u2212") else 1.0
        numbers.append(
            Number(
                text=match.group(0).strip(),
                value=sign * float(match.group("digits")),
                decimals=len(decimals or ""),
                percent=percent,
                start=match.start(),
                end=match.end(),
            )
        )
    return numbers


def states_value(number: Number, value: float | None) -> bool:
    """Whether ``number`` is ``value`` rounded to the digits shown (as a fraction or a percent).

    Without a percent sign both readings are tried: ``93.40`` may be a percentage of 0.934.
    """
    if value is None:
        return False
    half_step = 0.5 * 10.0 ** (-number.decimals) * (1 + 1e-9)
    scales = (100.0,) if number.percent else (1.0, 100.0)
    return any(abs(value * scale - number.value) <= half_step for scale in scales)
