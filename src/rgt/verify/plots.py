"""One small PNG per comparison: seed values as dots, mean +/- 95% t-interval per variant."""

from __future__ import annotations

import io
import re

import numpy as np

from rgt.verify.compare import Comparison
from rgt.verify.stats import Summary, mean_interval

DOT_SPREAD = 0.08
MEAN_OFFSET = 0.25


def plot_filename(comparison: Comparison) -> str:
    """``<exp>-<candidate>-vs-<baseline>-<metric>.png`` with unsafe characters replaced."""
    stem = (f"{comparison.exp_id}-{comparison.candidate}-vs-{comparison.baseline}-"
            f"{comparison.metric}")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem) + ".png"


def render_plot(comparison: Comparison) -> bytes:
    """The comparison's plot as PNG bytes (Agg, no pyplot state, no timestamp metadata)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.2, 3.2), dpi=100)
    axes = figure.subplots()
    sides = ((f"{comparison.baseline}\n(baseline)", comparison.base),
             (comparison.candidate, comparison.cand))
    for x, (_, summary) in enumerate(sides):
        _draw_variant(axes, x, summary)
    axes.set_xticks([0, 1], [label for label, _ in sides])
    axes.set_xlim(-0.5, 1.5 + MEAN_OFFSET)
    better = f"{comparison.direction} is better" if comparison.direction else "direction unknown"
    axes.set_ylabel(f"{comparison.metric} ({comparison.split}; {better})")
    ci = _format_ci(comparison.ci_low, comparison.ci_high)
    axes.set_title(f"{comparison.verdict}\ndiff {comparison.diff:+.4g}, 95% CI {ci}", fontsize=9)
    axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _draw_variant(axes, x: int, summary: Summary) -> None:
    offsets = np.linspace(-DOT_SPREAD, DOT_SPREAD, summary.n) if summary.n > 1 else [0.0]
    axes.scatter(x + np.asarray(offsets), summary.values, s=18, color="tab:gray", zorder=2,
                 label="seed" if x == 0 else None)
    interval = mean_interval(summary)
    if interval is None:
        axes.plot([x + MEAN_OFFSET], [summary.mean], marker="D", color="tab:blue", zorder=3,
                  label="mean (n=1)")
        return
    low, high = interval
    axes.errorbar([x + MEAN_OFFSET], [summary.mean],
                  yerr=[[summary.mean - low], [high - summary.mean]], fmt="D",
                  color="tab:blue", capsize=4, zorder=3,
                  label="mean ± 95% t-CI" if x == 0 else None)


def _format_ci(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"[{low:+.4g}, {high:+.4g}]"
