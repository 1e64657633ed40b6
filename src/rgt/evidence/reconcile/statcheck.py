"""Test reports in prose, checked the way statcheck checks psychology papers.

``t(4) = 3.02, p = 0.04``: a t, F, z or χ² statistic with its degrees of freedom implies a
p-value (two-sided for t and z), recomputed here; the statistic's rounding is allowed for
(``3.02`` is any t in [3.015, 3.025]), and so is the p-value's (``p = 0.04`` is [0.035,
0.045]; ``p < 0.05`` any below). A p-value that the statistic cannot give is inconsistent
with itself: a drift of the claim ``statistics``. A p-value written in a sentence that states
one comparison is also held against that comparison's 95% CI in the evidence: ``p < 0.05``
where the interval holds 0 (or ``p > 0.05`` where it excludes 0) is that claim's drift.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rgt.evidence.reconcile.blocks import Paragraph
from rgt.evidence.reconcile.check import Outcome
from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.numbers import find_numbers
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.statistics import Statement
from rgt.evidence.reconcile.text import sentence_spans

STATISTICS = {"id": "statistics"}  # the claim of a test report inconsistent with itself
ALPHA = 0.05  # the evidence's comparison intervals are 95% CIs
P_VALUE = r"\bp\s*(?P<op>[<>=\u2264\u2265])\s*(?P<p>0?\.\d+|[01](?:\.\d+)?)(?![\d.])"
TEST = re.compile(
    r"(?P<kind>\bt|\bF|\bz|\u03c7\s*\^?\s*2|\u03c7\u00b2|(?i:\bchi\s*\^?\s*2|\bchi2))"
    r"\s*(?:\(\s*(?P<df1>\d+(?:\.\d+)?)\s*(?:,\s*(?P<df2>\d+(?:\.\d+)?)\s*)?\))?"
    r"\s*=\s*(?P<stat>[-\u2212]?\d*\.?\d+)\s*[,;]\s*" + P_VALUE)
LONE_P = re.compile(P_VALUE)


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def implied_p(kind: str, statistic: float, df1: float | None, df2: float | None) -> float | None:
    """The p-value a statistic gives (two-sided for t and z); None without its df."""
    from scipy import stats  # lazy: scipy loads only when a document reports a test

    name = kind[0].lower()
    if name == "t":
        return None if df1 is None else float(2 * stats.t.sf(abs(statistic), df1))
    if name == "f":
        return None if df1 is None or df2 is None else float(stats.f.sf(statistic, df1, df2))
    if name == "z":
        return float(2 * stats.norm.sf(abs(statistic)))
    return None if df1 is None else float(stats.chi2.sf(statistic, df1))


def _p_range(match: re.Match) -> tuple[float, float] | None:
    """The p-values the statistic, rounded as written, may give: (smallest, largest)."""
    kind, written = match.group("kind"), match.group("stat").replace("\u2212", "-")
    df1, df2 = (float(match.group(g)) if match.group(g) else None for g in ("df1", "df2"))
    half = 0.5 * 10.0 ** -_decimals(written)
    size = abs(float(written))
    ends = [implied_p(kind, value, df1, df2) for value in (size + half, max(size - half, 0.0))]
    return None if None in ends else (ends[0], ends[1])


def agrees(op: str, written: str, low: float, high: float) -> bool:
    """Whether a p-value written ``op written`` may be one in [low, high]."""
    p = float(written)
    if op in "<\u2264":
        return low < p or (op == "\u2264" and low <= p)
    if op in ">\u2265":
        return high > p or (op == "\u2265" and high >= p)
    half = 0.5 * 10.0 ** -_decimals(written)
    return low <= p + half and high >= p - half


def _rewrite(p: float, written: str) -> str:
    decimals = max(_decimals(written), 2)
    shown = f"{p:.{decimals}f}" if p >= 10.0 ** -decimals else f"< {10.0 ** -decimals:g}"
    return f"p = {shown}" if not shown.startswith("<") else f"p {shown}"


def inconsistent_tests(text: str) -> list[Outcome]:
    """Every test report of ``text`` whose p-value its statistic cannot give."""
    found = []
    for match in TEST.finditer(text):
        span = _p_range(match)
        if span is None or agrees(match.group("op"), match.group("p"), *span):
            continue
        implied = implied_p(match.group("kind"), abs(float(match.group("stat").replace(
            "\u2212", "-"))), *(float(match.group(g)) if match.group(g) else None
                                for g in ("df1", "df2")))
        quote = match.group(0)
        found.append(Outcome("drift", "p", STATISTICS, quote, match.start(), implied,
                             _rewrite(implied, match.group("p"))))
    return found


def significant(op: str, written: str) -> bool | None:
    """Whether a written p-value says significant at 0.05 (None: it does not say)."""
    p = float(written)
    if op in "<\u2264":
        return True if p <= ALPHA else None
    if op in ">\u2265":
        return False if p >= ALPHA else None
    return p < ALPHA


def against_evidence(text: str, start: int, end: int, claim: dict) -> list[Outcome]:
    """A p-value in ``text[start:end]`` (a sentence stating comparison ``claim``) that says
    significant where the claim's 95% CI holds 0, or not where it excludes 0."""
    variance = claim.get("variance") or {}
    bounds = variance.get("value")
    if variance.get("type") != "ci95" or not isinstance(bounds, list) or None in bounds:
        return []
    excludes_zero = bounds[0] > 0 or bounds[1] < 0
    found = []
    for match in LONE_P.finditer(text, start, end):
        said = significant(match.group("op"), match.group("p"))
        if said is None or said == excludes_zero:
            continue
        fix = f"p < {ALPHA:g}" if excludes_zero else f"p \u2265 {ALPHA:g}"
        found.append(Outcome("drift", "p", claim, match.group(0), match.start(), ALPHA,
                             f"{fix} (its 95% CI [{bounds[0]:.4g}, {bounds[1]:.4g}])"))
    return found


def sentence_comparison(outcomes: list[Outcome], start: int, end: int) -> dict | None:
    """The one comparison the outcomes within ``[start, end)`` state, if exactly one."""
    claims = {outcome.claim["id"]: outcome.claim for outcome in outcomes
              if outcome.claim is not None and is_comparison(outcome.claim)
              and start <= outcome.start < end}
    return next(iter(claims.values())) if len(claims) == 1 else None


def paragraph_findings(paragraph: Paragraph,
                       outcomes: list[Outcome]) -> list[tuple[Site, Outcome]]:
    """The test reports of a paragraph inconsistent with themselves or with the evidence of
    the comparison their sentence states (``outcomes``: the paragraph's numbers, checked)."""
    text = paragraph.text
    protected = [(n.start, n.end) for n in find_numbers(text)] + [m.span() for m in
                                                                  LONE_P.finditer(text)]
    found = inconsistent_tests(text)
    for start, end in sentence_spans(text, protected):
        claim = sentence_comparison(outcomes, start, end)
        found += against_evidence(text, start, end, claim) if claim else []
    site = Site(Statement((), 0, len(text)), tuple(paragraph.starts), "", ())
    return [(replace(site, text=outcome.found), outcome) for outcome in found]
