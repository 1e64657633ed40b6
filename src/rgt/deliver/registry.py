"""The figures DELIVER builds, declared in the config's ``figures:`` section.

Without one, the built-in trainer's config delivers its test accuracy and a training job's
config each metric it declares on its split (``test``, unless ``job.metrics`` names another).
A bar naming a metric the runs do not report is refused when the plan is made, naming the
metrics that exist; a curve's metric is a scalar the runs log while training, checked when the
runs are aggregated (rgt.deliver.histories).
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
        if figure.kind == "curve":
            specs[fig_id] = _curve_spec(fig_id, figure, config)
            continue
        if figure.metric not in reported:
            raise ConfigError(
                f"figures.{fig_id}.metric = {figure.metric!r} is not a metric the runs report "
                f"({', '.join(sorted(reported))})",
                "name one of them, or declare the metric in job.metrics "
                "(or draw a scalar the runs log over steps: kind: curve)")
        specs[fig_id] = _spec(fig_id, figure)
    return specs


def reported_metrics(config: Config) -> set[str]:
    """The metrics the config's runs report (the built-in trainer's, or the jobs' declared)."""
    job = config.defaults.job
    return set(job.metrics) if job is not None else set(BUILT_IN_METRICS)


def report_splits(config: Config | None) -> dict[str, str]:
    """The metrics a training job declares on a split other than ``test``, with that split."""
    job = config.defaults.job if config else None
    return {metric: declared.split for metric, declared in (job.metrics if job else {}).items()
            if declared.split}


def _default_figures(config: Config) -> dict[str, FigureDeclaration]:
    job = config.defaults.job
    if job is None:
        return BUILT_IN_FIGURES
    return {f"{declared.report_split}_{metric.lower().replace('-', '_').replace('.', '_')}":
            FigureDeclaration(metric=metric, split=declared.report_split)
            for metric, declared in job.metrics.items()}


def _spec(fig_id: str, figure: FigureDeclaration) -> FigureSpec:
    label = f"{figure.split} {figure.metric}"
    title = figure.title or f"{label[0].upper()}{label[1:]}: seeds, mean ± 95% CI per variant"
    return FigureSpec(fig_id, figure.metric, figure.split, title, label,
                      nonnegative=is_proportion(figure.metric), experiment=figure.experiment)


def _curve_spec(fig_id: str, figure: FigureDeclaration, config: Config) -> FigureSpec:
    """A curve of one experiment: the one named, or the config's only one."""
    if "split" in figure.model_fields_set:
        raise ConfigError(
            f"figures.{fig_id}.split = {figure.split!r}: a curve draws a scalar the runs log "
            "while training, over steps; it has no split",
            f"remove figures.{fig_id}.split (the logged name says which, e.g. val_loss)")
    experiments = sorted(config.experiments)
    experiment = figure.experiment or (experiments[0] if len(experiments) == 1 else None)
    if experiment not in config.experiments:
        raise ConfigError(
            f"figures.{fig_id}.experiment = {figure.experiment!r}: a curve shows the variants "
            f"of one experiment of the config ({', '.join(experiments)})",
            f"set figures.{fig_id}.experiment to one of them")
    title = figure.title or (f"{figure.metric} over training steps, {experiment}: "
                             "mean over seeds, band = min–max of the seeds")
    return FigureSpec(fig_id, figure.metric, "", title, figure.metric, nonnegative=False,
                      experiment=experiment, kind="curve")


def curve_specs(config: Config | None) -> dict[str, FigureSpec]:
    """The config's curve figures by id (their logged scalars go into the aggregate)."""
    if config is None:
        return {}
    return {fig_id: spec for fig_id, spec in figure_specs(config).items()
            if spec.kind == "curve"}


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
