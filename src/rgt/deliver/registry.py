"""The figures DELIVER knows how to build: one entry per figure id."""

from __future__ import annotations

from dataclasses import dataclass

from rgt.deliver.inputs import DeliveryError
from rgt.plan.paths import FIGURE_OUTPUTS


@dataclass(frozen=True)
class FigureSpec:
    """What a figure shows: one metric on one split, per variant."""

    fig_id: str
    metric: str
    split: str
    title: str
    ylabel: str
    nonnegative: bool


FIGURES: dict[str, FigureSpec] = {
    spec.fig_id: spec
    for spec in (
        FigureSpec(
            fig_id="test_accuracy",
            metric="accuracy",
            split="test",
            title="Test accuracy: seeds, mean ± 95% CI per variant",
            ylabel="test accuracy",
            nonnegative=True,
        ),
    )
}


def figure_spec(fig_id: str) -> FigureSpec:
    """The registered figure ``fig_id``; an unknown id is a user error naming the known ones."""
    try:
        return FIGURES[fig_id]
    except KeyError:
        known = ", ".join(sorted(FIGURES))
        raise DeliveryError(f"unknown figure id {fig_id!r}", fix=f"use one of: {known}") from None


def figure_for(metric: str, split: str) -> FigureSpec | None:
    """The first registered figure (by id) that shows ``metric`` on ``split``, if any."""
    for fig_id in sorted(FIGURES):
        spec = FIGURES[fig_id]
        if (spec.metric, spec.split) == (metric, split):
            return spec
    return None


def figure_files() -> list[str]:
    """Every output of every registered figure."""
    return [f"figures/{fig}/{name}" for fig in sorted(FIGURES) for name in FIGURE_OUTPUTS]
