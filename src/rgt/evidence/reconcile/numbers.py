"""Numbers as documents write them, and whether one states a value.

A document may write 0.93412 as ``0.934``, ``93.4%``, ``93.40``, ``93.4 %`` or ``0.93`` (LaTeX's
``\\num{0.934}`` and ``\\SI{93.4}{\\percent}`` are rewritten to these forms before numbers are
read): each is the value rounded to the digits shown, as a fraction or as a percentage. ``11.2M``
is 11.2 million, ``2.8 · 10^6`` (LaTeX's ``2.8 \\cdot 10^{6}``) 2.8 million; ``0.6 pp`` is a
difference in percentage points. Misrounding (``93.5`` for 0.93412) is a different value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MINUS = "\u2212"
MULTIPLIERS = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9}
NUMBER = re.compile(
    # after a slash only when a number is before it (``88.9/94.6``, not a path's ``v/1.5``)
    r"(?<![\w.,^])(?<![^\d%]/)(?<!^/)(?<![A-Za-z]-)(?P<sign>[-+\u2212])?"
    # a fraction may drop its zero (``.797``, as APA style writes what cannot exceed 1)
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.(?P<grouped>\d+))?|\d+(?:\.(?P<decimals>\d+))?"
    r"|\.(?P<bare>\d+))"
    r"(?P<suffix>\s?%|\s?pp\b|[KkMB]\b|\s?[\u00b7\u00d7]\s?10\^(?P<exponent>[-\u2212]?\d+)"
    # scientific notation (``6.5e-4``)
    r"|[eE](?P<power>[-+\u2212]?\d+)\b)?"
    r"(?![\w.]*\d)(?![eE][-+]?\d)"
)


@dataclass(frozen=True)
class Number:
    """One number as written: its text, unsigned magnitude, shown decimals, sign and unit."""

    text: str
    magnitude: float
    decimals: int
    sign: str  # "+", "-" or "" (unsigned)
    percent: bool  # written with %, or as percentage points
    multiplier: float  # 1e6 for "11.2M"
    start: int
    end: int

    @property
    def value(self) -> float:
        """The signed number written (``-0.012`` for ``−0.012``)."""
        return -self.magnitude if self.sign == "-" else self.magnitude

    @property
    def integer(self) -> bool:
        """Written without decimals, percent sign or multiplier: a count, a year, an index."""
        return self.decimals == 0 and not self.percent and self.multiplier == 1.0

    def shifted(self, offset: int) -> Number:
        """The same number with its span moved by ``offset`` characters."""
        return Number(self.text, self.magnitude, self.decimals, self.sign, self.percent,
                      self.multiplier, self.start + offset, self.end + offset)


def _number(match: re.Match) -> Number:
    suffix = (match.group("suffix") or "").strip()
    sign = match.group("sign") or ""
    return Number(
        text=match.group(0).strip(),
        magnitude=float(match.group("digits").replace(",", "")),
        decimals=len(match.group("decimals") or match.group("grouped") or match.group("bare")
                     or ""),
        sign="-" if sign in ("-", MINUS) else sign,
        percent=suffix in ("%", "pp"),
        multiplier=_multiplier(suffix, match.group("exponent") or match.group("power")),
        start=match.start(),
        end=match.end(),
    )


def _multiplier(suffix: str, exponent: str | None) -> float:
    """What the suffix multiplies by: ``M`` a million, ``· 10^-4`` (LaTeX's ``\\cdot 10^{-4}``)
    ten to that power."""
    if exponent is not None:
        return 10.0 ** int(exponent.replace(MINUS, "-"))
    return MULTIPLIERS.get(suffix, 1.0)


def find_numbers(text: str) -> list[Number]:
    """Every number in ``text``, integers included (callers decide what an integer means)."""
    return [_number(match) for match in NUMBER.finditer(text)]


def parse_number(text: str) -> Number | None:
    """The one number ``text`` consists of (surrounding spaces aside), or None."""
    match = NUMBER.fullmatch(text.strip())
    return _number(match) if match else None


def scales(number: Number, percent_context: bool = False) -> tuple[float, ...]:
    """What a value is multiplied by to be written as ``number``.

    A percent sign (or a ``%`` column) means 100; a multiplier suffix its inverse; a bare
    decimal may be a fraction or a percentage (``93.40`` may state 0.934).
    """
    if number.percent or percent_context:
        return (100.0,)
    if number.multiplier != 1.0:
        return (1.0 / number.multiplier,)
    return (1.0, 100.0)


def states(written: float, decimals: int, value: float | None, scale: float) -> bool:
    """Whether ``written`` (shown with ``decimals``) is ``value * scale`` rounded."""
    if value is None:
        return False
    half_step = 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)
    return abs(value * scale - written) <= half_step


def matching_scale(number: Number, value: float | None, allowed: tuple[float, ...],
                   signed: bool = True) -> float | None:
    """The first of ``allowed`` scales at which ``number`` states ``value`` (None if none).

    ``signed=False`` compares magnitudes: a document may state a difference without its sign.
    """
    if value is None:
        return None
    written = number.value if signed else number.magnitude
    target = value if signed else abs(value)
    return next((scale for scale in allowed if states(written, number.decimals, target, scale)),
                None)


def rewrite(value: float, number: Number, scale: float) -> str:
    """``value`` written the way ``number`` is (scale, decimals, sign, unit): the fix to apply;
    with as many more decimals as it takes to keep two digits of a value those decimals would
    round to zero (2.8 in thousands, for ``2.8k``: ``0.0028k``, not ``0.0k``)."""
    magnitude = abs(value) * scale
    shown = f"{magnitude:,.{_decimals_to_show(magnitude, number.decimals)}f}"
    if "," not in number.text:
        shown = shown.replace(",", "")
    minus = MINUS if number.text.startswith(MINUS) else "-"
    sign = (minus if value < 0 else "+") if number.sign else ""
    unit = number.text.lstrip("+-\u2212").lstrip("0123456789.,")
    return f"{sign}{shown}{unit}"


def _decimals_to_show(magnitude: float, decimals: int) -> int:
    """``decimals``, or the fewest that show two significant digits of a nonzero value that
    ``decimals`` would round to zero."""
    if magnitude == 0 or round(magnitude, decimals) != 0:
        return decimals
    return 1 - math.floor(math.log10(magnitude))
