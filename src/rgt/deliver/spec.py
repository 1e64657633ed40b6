"""What a figure shows (kept apart from the config-reading registry, so that registering the
DELIVER verbs imports no config machinery)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FigureSpec:
    """What a figure shows: one metric on one split, per variant (of one experiment or all) —
    or, for ``kind == "curve"``, one logged scalar over steps, per variant of one experiment."""

    fig_id: str
    metric: str
    split: str
    title: str
    ylabel: str
    nonnegative: bool
    experiment: str | None = None
    kind: str = "bar"
