"""Load ``runs/<run-id>/`` directories: the finished runs to audit and why others were skipped."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import yaml

from rgt.base.errors import RunStateError
from rgt.config.model import REPORT_SPLIT
from rgt.plan.rundirs import run_directories

# predictions.parquet is optional: without it the per-sample checks are reported as not run.
EVALUATED_FILES = ("results.json", "config.yaml")


@dataclass(frozen=True)
class Run:
    """One finished, evaluated run: its ``run.json``, ``results.json`` and resolved config."""

    run_id: str
    path: Path
    meta: dict
    results: dict
    config: dict

    @property
    def exp_id(self) -> str:
        return str(self.meta.get("exp_id"))

    @property
    def variant(self) -> str:
        return str(self.meta.get("variant"))

    @property
    def seed(self) -> int | None:
        return self.meta.get("seed")

    @property
    def baseline_variant(self) -> str:
        return str(self.meta.get("baseline_variant"))

    @property
    def variant_overrides(self) -> dict:
        return self.meta.get("variant_overrides") or {}

    @property
    def predictions_path(self) -> Path:
        return self.path / "predictions.parquet"

    def metrics(self) -> list[dict]:
        """The metric entries of ``results.json``."""
        return list(self.results.get("metrics") or [])

    def report_split(self, metric: str) -> str:
        """The split ``metric`` is delivered on: the one its declaration names
        (``job.metrics.<metric>.split`` in the run's resolved config), else ``test``."""
        declared = ((self.config.get("job") or {}).get("metrics") or {}).get(metric) or {}
        return str(declared.get("split") or REPORT_SPLIT)

    @property
    def predictions_split(self) -> str:
        """The split whose per-sample records judge the run as a whole (collapse, the
        label-shuffled control): the one its metrics are reported on, else ``test``."""
        splits = {self.report_split(str(entry.get("name"))) for entry in self.metrics()}
        return splits.pop() if len(splits) == 1 else REPORT_SPLIT

    def metric_value(self, name: str, split: str) -> float | None:
        """The stored value of one metric on one split, or None when the run lacks it."""
        for entry in self.metrics():
            if entry.get("name") == name and entry.get("split") == split:
                return entry.get("value")
        return None


@dataclass(frozen=True)
class Skipped:
    """A run directory that is not audited, with the reason (shown in the report)."""

    run_id: str
    reason: str
    severity: str


@dataclass(frozen=True)
class RunSet:
    """The finished runs, sorted by (exp_id, variant, seed, run_id), and the skipped ones."""

    runs: tuple[Run, ...]
    skipped: tuple[Skipped, ...]


def load_runs(runs_dir: str | Path, only: Collection[str] | None = None) -> RunSet:
    """Read the run directories under ``runs_dir`` (only those ids when given); raise
    ``RunStateError`` if none is usable."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        raise RunStateError(f"no runs directory at {runs_dir}",
                            fix="train and evaluate first (`rgt train`, `rgt evaluate`) "
                                "or pass --runs DIR")
    runs, skipped = [], []
    for path in run_directories(runs_dir, only):
        loaded = _load_run(path)
        (runs if isinstance(loaded, Run) else skipped).append(loaded)
    if not runs:
        raise RunStateError(f"no finished, evaluated runs under {runs_dir} "
                            f"({len(skipped)} run directories skipped)",
                            fix="finish training and run `rgt evaluate` before `rgt verify`")
    runs.sort(key=lambda r: (r.exp_id, r.variant, _seed_key(r.seed), r.run_id))
    return RunSet(runs=tuple(runs), skipped=tuple(skipped))


def _load_run(path: Path) -> Run | Skipped:
    if not (path / "run.json").is_file():
        return Skipped(path.name, "no run.json", "warning")
    meta = read_json(path / "run.json")
    status = meta.get("status")
    if status != "finished":
        return Skipped(path.name, f"status is {status!r}, not 'finished'", "info")
    missing = [name for name in EVALUATED_FILES if not (path / name).is_file()]
    if missing:
        return Skipped(path.name, f"finished but missing {', '.join(missing)}", "warning")
    return Run(run_id=path.name, path=path, meta=meta,
               results=read_json(path / "results.json"), config=read_yaml(path / "config.yaml"))


def read_json(path: Path) -> dict:
    """A JSON object from ``path``; a corrupt file is a ``RunStateError`` naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RunStateError(f"{path} is unreadable: {error}",
                            fix="re-run the stage that writes it, or remove the run directory"
                            ) from error
    return _require_mapping(data, path)


def read_yaml(path: Path) -> dict:
    """A YAML mapping from ``path``; a corrupt file is a ``RunStateError`` naming the file."""
    try:
        # libyaml's loader when present: the pure-Python one is most of the cost of a large audit
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
    except (OSError, yaml.YAMLError) as error:
        raise RunStateError(f"{path} is unreadable: {error}",
                            fix="re-run `rgt train` for this run, or remove the run directory"
                            ) from error
    return _require_mapping(data, path)


def _require_mapping(data: object, path: Path) -> dict:
    if not isinstance(data, dict):
        raise RunStateError(f"{path} does not hold a mapping",
                            fix="re-run the stage that writes it, or remove the run directory")
    return data


def _seed_key(seed: object) -> tuple:
    # Seeds are ints by contract; tolerate anything else without breaking the sort.
    return (0, seed, "") if isinstance(seed, int) else (1, 0, str(seed))
