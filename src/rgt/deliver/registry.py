"""The figures DELIVER builds, declared in the config's ``figures:`` section.

Without one, the built-in trainer's config delivers its test accuracy and a training job's
config the test split of each metric it declares. A figure naming a metric the runs do not
report is refused when the plan is made, naming the metrics that exist.
"""

from __future__ import annotations

from rgt.base.errors import ConfigError
from rgt.config import Config
from rgt.config.model import FigureDeclaration
from rgt.deliver.inputs import DeliveryError
from rgt.deliver.spec import FigureSpec
from rgt.plan.paths import FIGURE_OUTPUTS
from rgt.verify.metric_kinds import is_proportion

BUILT_IN_METRICS = ("accuracy", "loss")
BUILT_IN_FIGURES = {"test_accuracy": FigureDeclaration(
    metric="accuracy", split="test", title="Test accuracy: seeds, mean ± 95% CI per variant")}


def figure_specs(config: Config | None) -> dict[str, FigureSpec]:
    """Every figure of ``config`` by id (declared, else the default ones; without a config, the
    built-in trainer's); a figure of a metric the runs do not report is a ``ConfigError``."""
    declared = (dict(config.figures) or _default_figures(config)) if config else BUILT_IN_FIGURES
    reported = reported_metrics(config) if config else set(BUILT_IN_METRICS)
    specs = {}
    for fig_id, figure in sorted(declared.items()):
        if figure.metric not in reported:
            raise ConfigError(
                f"figures.{fig_id}.metric = {figure.metric!r} is not a metric the runs report "
                f"({', '.join(sorted(reported))})",
                "name one of them, or declare the metric in job.metrics")
        specs[fig_id] = _spec(fig_id, figure)
    return specs


def reported_metrics(config: Config) -> set[str]:
    """The metrics the config's runs report (the built-in trainer's, or the jobs' declared)."""
    job = config.defaults.job
    return set(job.metrics) if job is not None else set(BUILT_IN_METRICS)


def _default_figures(config: Config) -> dict[str, FigureDeclaration]:
    job = config.defaults.job
    if job is None:
        return BUILT_IN_FIGURES
    return {f"test_{metric.lower().replace('-', '_').replace('.', '_')}":
            FigureDeclaration(metric=metric, split="test") for metric in job.metrics}


def _spec(fig_id: str, figure: FigureDeclaration) -> FigureSpec:
    label = f"{figure.split} {figure.metric}"
    title = figure.title or f"{label[0].upper()}{label[1:]}: seeds, mean ± 95% CI per variant"
    return FigureSpec(fig_id, figure.metric, figure.split, title, label,
                      nonnegative=is_proportion(figure.metric), experiment=figure.experiment)


def figure_spec(config: Config | None, fig_id: str) -> FigureSpec:
    """The figure ``fig_id`` of ``config``; an unknown id is a user error naming the known ones."""
    specs = figure_specs(config)
    try:
        return specs[fig_id]
    except KeyError:
        known = ", ".join(sorted(specs))
        raise DeliveryError(f"unknown figure id {fig_id!r}",
                            fix=f"use one of: {known} (the config's figures:)") from None


def figure_files(config: Config) -> list[str]:
    """Every output of every figure of ``config``."""
    return [f"figures/{fig}/{name}" for fig in sorted(figure_specs(config))
            for name in FIGURE_OUTPUTS]
