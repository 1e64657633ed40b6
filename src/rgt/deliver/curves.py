"""Render a curve figure: a scalar logged while training, over steps, per variant.

Each variant is its seeds' mean at every step, as a line, inside a band from the lowest to the
highest seed at that step (min–max). The band is the seeds' range, not a confidence interval: a
curve describes how training went and supports no claim, and with the few seeds an ablation
has (3 is common) a per-step 95% t interval would reach 4.3 standard errors either side of
the mean and assume normal seeds at every step; the range shows exactly what the seeds did.
A step that only some seeds logged is averaged over those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib

from rgt.deliver.figures import DPI, FIGSIZE_INCHES, Rendered, clipped_text, render_with
from rgt.deliver.spec import FigureSpec

BAND_ALPHA = 0.25


@dataclass(frozen=True)
class Curve:
    """One variant: its steps, the seeds' mean, lowest and highest value at each, and seeds."""

    variant: str
    steps: tuple[int, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    seeds: int


def curves_from_rows(rows: list[dict]) -> list[Curve]:
    """Group long-format rows by variant (sorted) and step: mean, min and max over seeds."""
    groups: dict[str, dict[int, list[float]]] = {}
    seeds: dict[str, set[int]] = {}
    for row in sorted(rows, key=lambda row: (row["variant"], row["seed"], row["step"])):
        groups.setdefault(row["variant"], {}).setdefault(row["step"], []).append(row["value"])
        seeds.setdefault(row["variant"], set()).add(row["seed"])
    return [_curve(variant, by_step, len(seeds[variant])) for variant, by_step in groups.items()]


def _curve(variant: str, by_step: dict[int, list[float]], seeds: int) -> Curve:
    steps = tuple(sorted(by_step))
    return Curve(variant, steps,
                 tuple(math.fsum(by_step[step]) / len(by_step[step]) for step in steps),
                 tuple(min(by_step[step]) for step in steps),
                 tuple(max(by_step[step]) for step in steps), seeds)


def draw_curves(figure, curves: list[Curve], spec: FigureSpec):
    """One line per variant with its min–max band (when it has more than one seed)."""
    axes = figure.add_subplot()
    colours = matplotlib.colormaps["tab10"]
    for index, curve in enumerate(curves):
        colour = colours(index % colours.N)
        if curve.seeds > 1:
            axes.fill_between(curve.steps, curve.low, curve.high, color=colour,
                              alpha=BAND_ALPHA, linewidth=0, gid=curve.variant)
        axes.plot(curve.steps, curve.mean, color=colour, linewidth=1.5,
                  marker="o" if len(curve.steps) == 1 else None,
                  label=f"{curve.variant} (n={curve.seeds})")
    axes.set_xlabel("step")
    axes.set_ylabel(spec.ylabel)
    axes.legend(fontsize=8, title="variant (seeds)", title_fontsize=8)
    figure.suptitle(spec.title, fontsize=10)
    figure.tight_layout()
    return axes


def inspect_curves(figure, axes, curves: list[Curve]) -> dict:
    """Facts for the pixel gate: curves drawn, bands expected and drawn, clipped text."""
    figure.canvas.draw()
    return {
        "expected_size": [round(FIGSIZE_INCHES[0] * DPI), round(FIGSIZE_INCHES[1] * DPI)],
        "bars": len(curves),
        "unit": "curve",
        "bands_expected": [curve.variant for curve in curves if curve.seeds > 1],
        "bands_drawn": sorted(collection.get_gid() for collection in axes.collections
                              if collection.get_gid()),
        "nonnegative": False,
        "bars_drawn": False,
        "ylim_bottom": float(axes.get_ylim()[0]),
        "clipped_text": clipped_text(figure, axes),
    }


def render_curve(rows: list[dict], spec: FigureSpec) -> Rendered:
    """Draw the long-format ``rows`` as the curve ``spec``; encode PNG and PDF bytes. The same
    inputs give the same bytes."""
    curves = curves_from_rows(rows)
    return render_with(lambda figure: inspect_curves(figure, draw_curves(figure, curves, spec),
                                                     curves))
