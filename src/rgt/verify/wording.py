"""How a difference is written wherever it is shown: which way it goes, in the metric's own
direction and unit.

``rgt verify`` tests a difference oriented so that positive means better (``diff``: the sign
flipped for a lower-is-better metric). A reader needs the plain subtraction and its verdict
spelt out, so the verdict line, the report's rows, the plots' titles and axes, the figures'
titles and the evidence's statements all say it the same way::

    dropout − no_dropout = +0.0808 test loss (worse: lower is better)
"""

from __future__ import annotations

from rgt.verify.metric_kinds import format_difference

MINUS = "\u2212"


def change(diff: float | None, direction: str | None) -> float | None:
    """Candidate minus baseline, in the metric's own direction, from the positive-is-better
    ``diff`` (a metric without a declared direction was never flipped)."""
    if diff is None:
        return None
    return -diff if direction == "lower" else diff


def change_interval(low: float | None, high: float | None,
                    direction: str | None) -> tuple[float | None, float | None]:
    """The 95% interval of the change (candidate − baseline) from that of ``diff``."""
    if low is None or high is None:
        return None, None
    return (-high, -low) if direction == "lower" else (low, high)


def verdict_word(value: float | None, direction: str | None) -> str | None:
    """``better``, ``worse`` or ``no difference`` for a change of ``value``; None without a
    declared direction (or a value)."""
    if value is None or direction not in ("higher", "lower"):
        return None
    if value == 0:
        return "no difference"
    return "better" if (value > 0) == (direction == "higher") else "worse"


def reading(value: float | None, direction: str | None) -> str:
    """``worse: lower is better``, ``better: higher is better``, or why neither can be said."""
    if direction not in ("higher", "lower"):
        return "direction not declared"
    word = verdict_word(value, direction)
    return f"{word}: {direction} is better" if word else f"{direction} is better"


def subtraction(candidate: str, baseline: str) -> str:
    """``dropout − no_dropout``: what the difference is."""
    return f"{candidate} {MINUS} {baseline}"


def comparison_change(comparison: dict) -> tuple[float | None, float | None, float | None]:
    """A verify comparison's change and its interval: ``(change, low, high)``."""
    c, direction = comparison, comparison.get("direction")
    low, high = change_interval(c.get("ci_low"), c.get("ci_high"), direction)
    return change(c.get("diff"), direction), low, high


def difference_text(comparison: dict) -> str:
    """``dropout − no_dropout = +0.0808 test loss (worse: lower is better)``."""
    c = comparison
    value, _, _ = comparison_change(c)
    what = subtraction(c["candidate"], c["baseline"])
    if value is None:
        return f"{what}: no estimate ({c['split']} {c['metric']})"
    return (f"{what} = {format_difference(c['metric'], value)} {c['split']} {c['metric']} "
            f"({reading(value, c.get('direction'))})")


def interval_text(comparison: dict) -> str:
    """``95% CI [+0.0614, +0.1002]`` of the change, or ``no interval``."""
    _, low, high = comparison_change(comparison)
    if low is None:
        return "no interval"
    metric = comparison["metric"]
    return (f"95% CI [{format_difference(metric, low)}, "
            f"{format_difference(metric, high)}]")


def axis_label(what: str, direction: str | None, unit: str) -> str:
    """A difference axis, on two lines: ``dropout − no_dropout (pp)`` / ``higher is better``."""
    better = f"{direction} is better" if direction in ("higher", "lower") else \
        "direction not declared"
    return f"{what} ({unit})\n{better}"
