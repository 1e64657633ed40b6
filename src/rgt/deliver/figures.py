"""Render a figure from its source rows, deterministically, and record what was drawn.

The figure is a bar per variant (the mean over seeds), an error bar (std) where a variant has
more than one seed, and each seed's value as a dot. Rendering also collects the facts the pixel
gate checks that cannot be read back from pixels: glyph warnings, error bars, the y-axis floor
and text drawn outside the canvas. matplotlib is imported inside functions only.
"""

from __future__ import annotations

import io
import logging
import math
import statistics
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rgt.deliver.registry import FigureSpec

FIGSIZE_INCHES = (6.4, 4.0)
DPI = 150
# Dropping the version and date stamps is what makes rebuilt files byte-identical.
PNG_METADATA = {"Software": None}
PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None}
RC_PARAMS = {"svg.hashsalt": "rgt", "font.family": "DejaVu Sans", "pdf.fonttype": 42}
BAR_COLOR = "#4C72B0"
DOT_COLOR = "#1a1a1a"


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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=FIGSIZE_INCHES, dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def draw_chart(figure, bars: list[Bar], spec: FigureSpec):
    """Draw the bar chart on ``figure`` and return its axes."""
    axes = figure.add_subplot()
    xs = list(range(len(bars)))
    axes.bar(xs, [bar.mean for bar in bars], width=0.6, color=BAR_COLOR, alpha=0.8, zorder=1)
    _draw_error_bars(axes, xs, bars)
    for x, bar in zip(xs, bars, strict=True):
        axes.scatter(_spread(x, len(bar.values)), bar.values, s=14, color=DOT_COLOR, zorder=4)
    axes.set_xticks(xs, [f"{bar.label}\nn={len(bar.values)}" for bar in bars])
    axes.set_xlabel("variant")
    axes.set_ylabel(spec.ylabel)
    axes.set_title(spec.title)
    if is_nonnegative(bars, spec):
        axes.set_ylim(bottom=0)
    figure.tight_layout()
    return axes


def is_nonnegative(bars: list[Bar], spec: FigureSpec) -> bool:
    """Whether the metric cannot be negative (declared, or every plotted value is >= 0)."""
    return spec.nonnegative or min(value for bar in bars for value in bar.values) >= 0


def _draw_error_bars(axes, xs: list[int], bars: list[Bar]) -> None:
    """Error bars (one std) on the bars with more than one seed; none where std is undefined."""
    with_std = [(x, bar) for x, bar in zip(xs, bars, strict=True) if bar.std is not None]
    if with_std:
        axes.errorbar(
            [x for x, _ in with_std],
            [bar.mean for _, bar in with_std],
            yerr=[bar.std for _, bar in with_std],
            fmt="none",
            ecolor="black",
            capsize=4,
            zorder=3,
        )


def _spread(x: float, count: int) -> list[float]:
    """Fixed horizontal offsets for a bar's seed dots (no random jitter: output is stable)."""
    if count == 1:
        return [x]
    return [x - 0.15 + 0.3 * index / (count - 1) for index in range(count)]


def inspect_chart(figure, axes, bars: list[Bar], spec: FigureSpec) -> dict:
    """Facts about a drawn chart for the pixel gate: error bars, y floor, clipped text."""
    figure.canvas.draw()
    return {
        "expected_size": [round(FIGSIZE_INCHES[0] * DPI), round(FIGSIZE_INCHES[1] * DPI)],
        "bars": len(bars),
        "errorbars_expected": [bar_name(bar) for bar in bars if len(bar.values) > 1],
        "errorbars_drawn": _errorbar_labels(axes, bars),
        "nonnegative": bool(is_nonnegative(bars, spec)),
        "ylim_bottom": float(axes.get_ylim()[0]),
        "clipped_text": _clipped_text(figure, axes),
    }


def _errorbar_labels(axes, bars: list[Bar]) -> list[str]:
    from matplotlib.container import ErrorbarContainer

    drawn_xs = set()
    for container in axes.containers:
        if isinstance(container, ErrorbarContainer):
            for collection in container.lines[2]:
                drawn_xs.update(round(float(seg[0][0]), 6) for seg in collection.get_segments())
    return [bar_name(bar) for x, bar in enumerate(bars) if round(float(x), 6) in drawn_xs]


def _clipped_text(figure, axes) -> list[str]:
    renderer = figure.canvas.get_renderer()
    box = figure.bbox
    texts = [axes.title, axes.xaxis.label, axes.yaxis.label]
    texts += _shown_tick_labels(axes.xaxis) + _shown_tick_labels(axes.yaxis)
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


def render_figure(rows: list[dict], spec: FigureSpec) -> Rendered:
    """Draw ``rows`` as ``spec`` and encode PNG and PDF bytes; same rows give same bytes."""
    import matplotlib

    bars = bars_from_rows(rows)
    with matplotlib.rc_context(RC_PARAMS), captured_messages() as messages:
        figure = new_figure()
        axes = draw_chart(figure, bars, spec)
        facts = inspect_chart(figure, axes, bars, spec)
        png, pdf = _encode(figure, "png", PNG_METADATA), _encode(figure, "pdf", PDF_METADATA)
    facts["render_messages"] = sorted(set(messages))
    return Rendered(png=png, pdf=pdf, facts=facts)


def _encode(figure, file_format: str, metadata: dict) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=file_format, dpi=DPI, metadata=metadata)
    return buffer.getvalue()
