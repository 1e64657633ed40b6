"""One small PNG per comparison: the seeds of both variants, and the difference (candidate −
baseline, as its title says which way it goes) with its 95% interval against zero — on axes
zoomed to the data so a 0.6-point gap is visible, in the metric's unit (percent for accuracy)."""

from __future__ import annotations

import io
import re

import numpy as np
from matplotlib.figure import Figure

from rgt.verify.compare import Comparison
from rgt.verify.metric_kinds import is_proportion
from rgt.verify.stats import Summary, mean_interval
from rgt.verify.wording import (
    MINUS,
    axis_label,
    comparison_change,
    difference_text,
    interval_text,
    subtraction,
)

DOT_SPREAD = 0.08
MEAN_OFFSET = 0.25


def plot_filename(comparison: Comparison) -> str:
    """``<exp>-<candidate>-vs-<baseline>-<metric>.png`` with unsafe characters replaced."""
    stem = (f"{comparison.exp_id}-{comparison.candidate}-vs-{comparison.baseline}-"
            f"{comparison.metric}")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem) + ".png"


def render_plot(comparison: Comparison) -> bytes:
    """The comparison's plot as PNG bytes (Agg, no pyplot state, no timestamp metadata); its
    title is also the PNG's ``Title`` text, so what it says can be read back."""
    figure = draw_plot(comparison)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None,
                                                    "Title": " ".join(title(comparison).split())})
    return buffer.getvalue()


def draw_plot(comparison: Comparison) -> Figure:
    """The comparison's figure: the seeds of both variants, and the difference against 0."""
    figure = Figure(figsize=(6.4, 3.4), dpi=100)
    seeds_axes, diff_axes = figure.subplots(1, 2, width_ratios=[2, 1])
    scale = 100.0 if is_proportion(comparison.metric) else 1.0
    _draw_seeds(seeds_axes, comparison, scale)
    _draw_difference(diff_axes, comparison, scale)
    figure.suptitle(title(comparison), fontsize=9)
    figure.tight_layout()
    return figure


def title(comparison: Comparison) -> str:
    """``verdict: cand − base = change metric (worse: lower is better)`` and, below, the 95%
    interval of the change, the test and the seed counts (``rgt.verify.wording``)."""
    c = comparison.to_dict()
    return (f"{c['verdict']}: {difference_text(c)}\n"
            f"{interval_text(c)} ({c['test']}, n = {c['n_baseline']}/{c['n_candidate']})")


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
    value, low, high = comparison_change(comparison.to_dict())
    if value is not None:
        yerr = None if low is None else [[scale * (value - low)], [scale * (high - value)]]
        axes.errorbar([0], [scale * value], yerr=yerr, fmt="o", color="tab:red",
                      capsize=5, zorder=3)
    what = subtraction(comparison.candidate, comparison.baseline)
    axes.set_xticks([0], [f"{comparison.candidate}\n{MINUS} {comparison.baseline}"])
    axes.set_xlim(-0.6, 0.6)
    unit = "pp" if scale == 100.0 else comparison.metric
    axes.set_ylabel(axis_label(what, comparison.direction, unit), fontsize=8)
