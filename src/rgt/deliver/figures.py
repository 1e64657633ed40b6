"""Render a figure from its source rows, deterministically, and record what was drawn.

Left panel: each seed's value as a dot and, per variant, the mean with its 95% Student-t
interval where it has more than one seed — points and intervals on an axis zoomed to the data,
so a gap of half a point is visible (bars from 0 to 1 hid it). Right panel, when the verify
report compares variants on this metric: each candidate's difference from the baseline
(candidate − baseline, in the metric's own direction) with its 95% interval against a zero
line, as verify tested it. Proportions (accuracy) are drawn in percent. Rendering also
collects the facts the pixel gate checks that cannot be read back from pixels: glyph warnings,
error bars, bars and their floor, and text drawn outside the canvas.
"""

from __future__ import annotations

import io
import logging
import math
import statistics
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from rgt.deliver.spec import FigureSpec
from rgt.verify.metric_kinds import is_proportion
from rgt.verify.stats import Summary, mean_interval
from rgt.verify.wording import (
    MINUS,
    axis_label,
    comparison_change,
    difference_text,
    interval_text,
)

FIGSIZE_INCHES = (6.4, 4.0)
DPI = 150
# Dropping the version and date stamps is what makes rebuilt files byte-identical.
PNG_METADATA = {"Software": None}
PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None}
RC_PARAMS = {"svg.hashsalt": "rgt", "font.family": "DejaVu Sans", "pdf.fonttype": 42}
BAR_COLOR = "#4C72B0"
DOT_COLOR = "#1a1a1a"
DIFF_COLOR = "#C44E52"
MEAN_OFFSET = 0.25


@dataclass(frozen=True)
class Bar:
    """One variant of one experiment: its label, seeds' values, mean and std."""

    exp_id: str
    variant: str
    label: str
    values: tuple[float, ...]
    mean: float
    std: float | None


@dataclass
class Rendered:
    """The encoded figure files and the facts gathered while drawing them."""

    png: bytes
    pdf: bytes
    facts: dict = field(default_factory=dict)


def bars_from_rows(rows: list[dict]) -> list[Bar]:
    """Group source rows by (exp_id, variant) in sorted order; mean and std (ddof=1) per group."""
    groups: dict[tuple[str, str], list[float]] = {}
    for row in sorted(rows, key=lambda row: (row["exp_id"], row["variant"], row["seed"])):
        groups.setdefault((row["exp_id"], row["variant"]), []).append(row["value"])
    several_experiments = len({exp_id for exp_id, _ in groups}) > 1
    return [
        Bar(
            exp_id,
            variant,
            f"{exp_id}\n{variant}" if several_experiments else variant,
            tuple(values),
            math.fsum(values) / len(values),
            statistics.stdev(values) if len(values) > 1 else None,
        )
        for (exp_id, variant), values in groups.items()
    ]


def bar_name(bar: Bar) -> str:
    """``<exp_id>/<variant>``: how the gate names a bar."""
    return f"{bar.exp_id}/{bar.variant}"


def new_figure():
    """A pyplot-free figure on an Agg canvas, so no global backend state is touched."""
    figure = Figure(figsize=FIGSIZE_INCHES, dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def draw_chart(figure, bars: list[Bar], spec: FigureSpec, differences: list[dict] = ()):
    """Draw the seeds panel (and the differences panel when given); return the seeds axes."""
    if differences:
        axes, diff_axes = figure.subplots(1, 2, width_ratios=[2, 1])
        _draw_differences(diff_axes, differences, spec)
    else:
        axes = figure.add_subplot()
    scale = unit_scale(spec)
    xs = list(range(len(bars)))
    _draw_intervals(axes, xs, bars, scale)
    for x, bar in zip(xs, bars, strict=True):
        axes.scatter(_spread(x, len(bar.values)), [scale * v for v in bar.values], s=14,
                     color=DOT_COLOR, zorder=4)
    axes.set_xticks(xs, [f"{bar.label}\nn={len(bar.values)}" for bar in bars])
    axes.set_xlim(-0.6, len(bars) - 0.4)
    axes.set_xlabel("variant")
    axes.set_ylabel(spec.ylabel + (" (%)" if scale == 100 else ""))
    figure.suptitle(figure_title(spec, differences), fontsize=10)
    figure.tight_layout()
    return axes


def unit_scale(spec: FigureSpec) -> float:
    """100 for proportions (drawn in percent), else 1."""
    return 100.0 if is_proportion(spec.metric) else 1.0


def figure_title(spec: FigureSpec, differences: list[dict]) -> str:
    """The spec's title, and the first comparison's difference (which way it goes, in the
    metric's own direction), interval and verdict."""
    if not differences:
        return spec.title
    d = differences[0]
    return (f"{spec.title}\n{difference_text(d)}\n{interval_text(d)} "
            f"({d.get('test', 'none')}): {d['verdict']}")


def _draw_intervals(axes, xs: list[int], bars: list[Bar], scale: float) -> None:
    """Mean and 95% t interval of every variant with more than one seed; a mean marker else."""
    for x, bar in zip(xs, bars, strict=True):
        interval = mean_interval(Summary(bar.values))
        if interval is None:
            axes.plot([x + MEAN_OFFSET], [scale * bar.mean], marker="D", color=BAR_COLOR,
                      zorder=3)
            continue
        low, high = interval
        axes.errorbar([x + MEAN_OFFSET], [scale * bar.mean],
                      yerr=[[scale * (bar.mean - low)], [scale * (high - bar.mean)]],
                      fmt="D", color=BAR_COLOR, ecolor="black", capsize=4, zorder=3)


def _draw_differences(axes, differences: list[dict], spec: FigureSpec) -> None:
    """Each candidate's difference from the baseline (candidate − baseline) with its 95%
    interval, against 0."""
    scale = unit_scale(spec)
    axes.axhline(0.0, color="black", linewidth=0.8, linestyle="--", zorder=1)
    for x, d in enumerate(differences):
        value, low, high = comparison_change(d)
        if value is None:
            continue
        yerr = None if low is None else [[scale * (value - low)], [scale * (high - value)]]
        axes.errorbar([x], [scale * value], yerr=yerr, fmt="o", color=DIFF_COLOR,
                      capsize=5, zorder=3)
    axes.set_xticks(range(len(differences)), [f"{d['candidate']}\n{MINUS} {d['baseline']}"
                                              for d in differences])
    axes.set_xlim(-0.6, len(differences) - 0.4)
    unit = "pp" if scale == 100 else spec.metric
    axes.set_ylabel(axis_label(f"candidate {MINUS} baseline",
                               differences[0].get("direction"), unit))


def is_nonnegative(bars: list[Bar], spec: FigureSpec) -> bool:
    """Whether the metric cannot be negative (declared, or every plotted value is >= 0)."""
    return spec.nonnegative or min(value for bar in bars for value in bar.values) >= 0


def _spread(x: float, count: int) -> list[float]:
    """Fixed horizontal offsets for a variant's seed dots (no jitter: output is stable)."""
    if count == 1:
        return [x]
    return [x - 0.2 + 0.3 * index / (count - 1) for index in range(count)]


def inspect_chart(figure, axes, bars: list[Bar], spec: FigureSpec) -> dict:
    """Facts about a drawn chart for the pixel gate: error bars, y floor, clipped text."""
    figure.canvas.draw()
    return {
        "expected_size": [round(FIGSIZE_INCHES[0] * DPI), round(FIGSIZE_INCHES[1] * DPI)],
        "bars": len(bars),
        "errorbars_expected": [bar_name(bar) for bar in bars if len(bar.values) > 1],
        "errorbars_drawn": _errorbar_labels(axes, bars),
        "nonnegative": bool(is_nonnegative(bars, spec)),
        "bars_drawn": _bars_drawn(axes),
        "ylim_bottom": float(axes.get_ylim()[0]),
        "clipped_text": clipped_text(figure, axes),
    }


def _bars_drawn(axes) -> bool:
    """Whether the chart draws bars (whose length encodes the value, so the axis needs 0)."""
    return any(isinstance(container, BarContainer) for container in axes.containers)


def _errorbar_labels(axes, bars: list[Bar]) -> list[str]:
    drawn_xs = set()
    for container in axes.containers:
        if isinstance(container, ErrorbarContainer):
            for collection in container.lines[2]:
                drawn_xs.update(round(float(seg[0][0]), 6) for seg in collection.get_segments())
    # An interval sits at the variant's x, or MEAN_OFFSET to its right beside the seed dots.
    return [bar_name(bar) for x, bar in enumerate(bars)
            if {round(float(x), 6), round(x + MEAN_OFFSET, 6)} & drawn_xs]


def clipped_text(figure, axes) -> list[str]:
    """Every title, label and shown tick label of the figure that reaches past the canvas."""
    renderer = figure.canvas.get_renderer()
    box = figure.bbox
    texts = [figure._suptitle] if figure._suptitle is not None else []
    for each in figure.axes:
        texts += [each.title, each.xaxis.label, each.yaxis.label]
        texts += _shown_tick_labels(each.xaxis) + _shown_tick_labels(each.yaxis)
    clipped = []
    for text in texts:
        if text.get_visible() and text.get_text():
            extent = text.get_window_extent(renderer)
            if (
                extent.x0 < box.x0 - 0.5
                or extent.y0 < box.y0 - 0.5
                or extent.x1 > box.x1 + 0.5
                or extent.y1 > box.y1 + 0.5
            ):
                clipped.append(text.get_text())
    return clipped


def _shown_tick_labels(axis) -> list:
    """Tick labels inside the view limits (matplotlib keeps, but does not draw, the others)."""
    low, high = sorted(axis.get_view_interval())
    tolerance = 1e-9 * max(1.0, abs(high - low))
    return [
        tick.label1
        for tick in axis.get_major_ticks()
        if low - tolerance <= tick.get_loc() <= high + tolerance
    ]


@contextmanager
def captured_messages() -> Iterator[list[str]]:
    """Collect every warning and matplotlib log record (missing glyphs arrive as either)."""
    messages: list[str] = []

    class _Collector(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = _Collector(level=logging.WARNING)
    logger = logging.getLogger("matplotlib")
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield messages
            messages.extend(str(warning.message) for warning in caught)
    finally:
        logger.removeHandler(handler)


def render_figure(rows: list[dict], spec: FigureSpec, differences: list[dict] = ()) -> Rendered:
    """Draw ``rows`` (and verify's ``differences``) as ``spec``; encode PNG and PDF bytes. The
    same inputs give the same bytes."""
    bars = bars_from_rows(rows)

    def draw(figure) -> dict:
        return inspect_chart(figure, draw_chart(figure, bars, spec, list(differences)), bars,
                             spec)

    return render_with(draw)


def render_with(draw: Callable[[Figure], dict]) -> Rendered:
    """Encode what ``draw`` puts on a fresh figure (it returns the pixel gate's facts), with
    the settings that make equal drawings equal bytes; every render message is collected. The
    title is also the files' ``Title`` metadata, so what a figure says can be read back."""
    with matplotlib.rc_context(RC_PARAMS), captured_messages() as messages:
        figure = new_figure()
        facts = draw(figure)
        title = {"Title": " ".join(figure._suptitle.get_text().split())} \
            if figure._suptitle is not None else {}
        png = encode(figure, "png", {**PNG_METADATA, **title})
        pdf = encode(figure, "pdf", {**PDF_METADATA, **title})
    facts["render_messages"] = sorted(set(messages))
    return Rendered(png=png, pdf=pdf, facts=facts)


def encode(figure, file_format: str, metadata: dict) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=file_format, dpi=DPI, metadata=metadata)
    return buffer.getvalue()
