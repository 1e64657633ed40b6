"""One small PNG per comparison: the seeds of both variants, and the difference with its 95%
interval against zero — on axes zoomed to the data so a 0.6-point gap is visible, in the
metric's unit (percent for accuracy)."""

from __future__ import annotations

import io
import re

import numpy as np
from matplotlib.figure import Figure

from rgt.verify.compare import Comparison
from rgt.verify.metric_kinds import format_difference, is_proportion
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
    figure = Figure(figsize=(6.4, 3.4), dpi=100)
    seeds_axes, diff_axes = figure.subplots(1, 2, width_ratios=[2, 1])
    scale = 100.0 if is_proportion(comparison.metric) else 1.0
    _draw_seeds(seeds_axes, comparison, scale)
    _draw_difference(diff_axes, comparison, scale)
    figure.suptitle(title(comparison), fontsize=9)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def title(comparison: Comparison) -> str:
    """``verdict: diff [CI] (test, n)`` in the metric's unit."""
    c = comparison
    if c.ci_low is None:
        interval = "no interval"
    else:
        interval = (f"95% CI [{format_difference(c.metric, c.ci_low)}, "
                    f"{format_difference(c.metric, c.ci_high)}]")
    diff = "n/a" if c.diff is None else format_difference(c.metric, c.diff)
    return (f"{c.verdict}: {c.candidate} − {c.baseline} = {diff}, {interval}\n"
            f"({c.method}, n = {c.base.n}/{c.cand.n})")


def _draw_seeds(axes, comparison: Comparison, scale: float) -> None:
    sides = ((f"{comparison.baseline}\n(baseline)", comparison.base),
             (comparison.candidate, comparison.cand))
    for x, (_, summary) in enumerate(sides):
        _draw_variant(axes, x, summary, scale)
    axes.set_xticks([0, 1], [label for label, _ in sides])
    axes.set_xlim(-0.5, 1.5 + MEAN_OFFSET)
    better = f"{comparison.direction} is better" if comparison.direction else "direction unknown"
    unit = " (%)" if scale == 100.0 else ""
    axes.set_ylabel(f"{comparison.metric}{unit} ({comparison.split}; {better})", fontsize=8)
    axes.legend(fontsize=7, loc="best")


def _draw_variant(axes, x: int, summary: Summary, scale: float) -> None:
    if not summary.n:
        return
    offsets = np.linspace(-DOT_SPREAD, DOT_SPREAD, summary.n) if summary.n > 1 else [0.0]
    axes.scatter(x + np.asarray(offsets), scale * np.asarray(summary.values), s=18,
                 color="tab:gray", zorder=2, label="seed" if x == 0 else None)
    interval = mean_interval(summary)
    if interval is None:
        axes.plot([x + MEAN_OFFSET], [scale * summary.mean], marker="D", color="tab:blue",
                  zorder=3, label="mean (n=1)")
        return
    low, high = interval
    axes.errorbar([x + MEAN_OFFSET], [scale * summary.mean],
                  yerr=[[scale * (summary.mean - low)], [scale * (high - summary.mean)]],
                  fmt="D", color="tab:blue", capsize=4, zorder=3,
                  label="mean ± 95% t-CI" if x == 0 else None)


def _draw_difference(axes, comparison: Comparison, scale: float) -> None:
    axes.axhline(0.0, color="black", linewidth=0.8, linestyle="--", zorder=1)
    if comparison.diff is not None:
        low, high = comparison.ci_low, comparison.ci_high
        yerr = None if low is None else [[scale * (comparison.diff - low)],
                                         [scale * (high - comparison.diff)]]
        axes.errorbar([0], [scale * comparison.diff], yerr=yerr, fmt="o", color="tab:red",
                      capsize=5, zorder=3)
    axes.set_xticks([0], [f"{comparison.candidate}\n− {comparison.baseline}"])
    axes.set_xlim(-0.6, 0.6)
    unit = "pp" if scale == 100.0 else "metric units"
    axes.set_ylabel(f"difference, + = better ({unit})", fontsize=8)
