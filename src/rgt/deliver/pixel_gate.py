"""The pixel gate: re-open the saved image and check what a reader would see.

Each check is ``{"name", "ok", "detail"}``. The gate discloses and never blocks: a failing check
is recorded in provenance and reported, the figure stays on disk.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.image import imread

GLYPH_MARKERS = ("Glyph", "missing from")


def check(name: str, ok: bool, detail: str) -> dict:
    """One gate check record."""
    return {"name": name, "ok": bool(ok), "detail": detail}


def check_not_blank(pixels) -> dict:
    """The image is not one colour (and so its pixel standard deviation is above zero)."""
    pixels = np.asarray(pixels)
    flat = pixels.reshape(-1, pixels.shape[-1]) if pixels.ndim == 3 else pixels.reshape(-1, 1)
    # The first pixel is the background corner: the share unlike it is the drawn content.
    drawn = float(np.mean(np.any(flat != flat[0], axis=1)))
    std = float(pixels.std(dtype=np.float64))
    ok = std > 0 and drawn > 0
    return check("not_blank", ok, f"pixel std {std:.4g}, {drawn:.2%} unlike the corner pixel")


def check_size(pixels, expected_size: list[int]) -> dict:
    """The image is ``expected_size`` = [width, height] pixels."""
    height, width = pixels.shape[:2]
    ok = [width, height] == list(expected_size)
    return check("size", ok, f"{width}x{height} px, expected {expected_size[0]}x{expected_size[1]}")


def check_glyphs(messages: list[str]) -> dict:
    """No glyph was reported missing while the figure was drawn."""
    missing = [text for text in messages if all(marker in text for marker in GLYPH_MARKERS)]
    detail = "; ".join(missing) if missing else "no missing-glyph warnings"
    return check("glyphs", not missing, detail)


def check_errorbars(expected: list[str], drawn: list[str]) -> dict:
    """Every bar with more than one seed carries an error bar."""
    absent = [label for label in expected if label not in drawn]
    if absent:
        return check("errorbars", False, f"no error bar on: {', '.join(absent)}")
    return check("errorbars", True, f"{len(expected)} bar(s) with n > 1, all with error bars")


def check_bands(expected: list[str], drawn: list[str]) -> dict:
    """Every curve with more than one seed carries its band."""
    absent = [label for label in expected if label not in drawn]
    if absent:
        return check("bands", False, f"no band around: {', '.join(absent)}")
    return check("bands", True, f"{len(expected)} curve(s) with n > 1, all with bands")


def check_zero_baseline(nonnegative: bool, ylim_bottom: float, bars_drawn: bool = True) -> dict:
    """A bar chart of a non-negative metric starts its y axis at 0 (a bar's length is its
    value); points with intervals may zoom to the data."""
    if not bars_drawn:
        return check("y_starts_at_zero", True, "points and intervals, no bars: the axis may "
                                               "zoom to the data")
    if not nonnegative:
        return check("y_starts_at_zero", True, "metric can be negative: no floor required")
    return check("y_starts_at_zero", ylim_bottom == 0, f"y axis starts at {ylim_bottom!r}")


def check_text_inside(clipped: list[str]) -> dict:
    """Titles, axis labels and tick labels lie inside the canvas (nothing clipped)."""
    if clipped:
        return check("text_inside", False, f"clipped: {clipped}")
    return check("text_inside", True, "all text inside the canvas")


def check_has_data(bars: int, unit: str = "bar") -> dict:
    """The chart shows at least one bar (or curve)."""
    return check("has_data", bars > 0, f"{bars} {unit}(s)")


def check_intervals(facts: dict) -> dict:
    """A bar chart's error bars, or a curve chart's bands."""
    if "bands_expected" in facts:
        return check_bands(facts["bands_expected"], facts["bands_drawn"])
    return check_errorbars(facts["errorbars_expected"], facts["errorbars_drawn"])


def run_pixel_gate(png_path: str | Path, facts: dict) -> dict:
    """Re-open the PNG at ``png_path`` and run every check; ``{"ok", "checks"}``."""
    pixels = imread(Path(png_path))
    checks = [
        check_not_blank(pixels),
        check_size(pixels, facts["expected_size"]),
        check_has_data(facts["bars"], facts.get("unit", "bar")),
        check_glyphs(facts["render_messages"]),
        check_intervals(facts),
        check_zero_baseline(facts["nonnegative"], facts["ylim_bottom"],
                            facts.get("bars_drawn", True)),
        check_text_inside(facts["clipped_text"]),
    ]
    return {"ok": all(item["ok"] for item in checks), "checks": checks}
