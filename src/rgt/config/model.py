"""The configuration's shape: every key once, with its type, bounds, default and meaning.

``Config`` is ``config/config.yaml``; ``Settings`` is what decides one run (its ``defaults`` and,
merged with a variant's overrides, each variant); ``RunSettings`` adds the run's identity, and
its ``to_dict()`` is what the run id hashes. Every model is frozen and rejects unknown keys.
A key is added here and nowhere else (docs/architecture.md says how).
"""

import copy
import math
import posixpath
import re
from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import Field

from rgt.config.types import (
    Number,
    Section,
    described,
    described_text,
    empty_map,
    frozen_map,
    leave_out_when_empty,
    leave_out_when_unset,
    thaw,
    unique_list,
)

_RELATIVE_EFFECT = re.compile(r"\s*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?\s*(%|sd)\s*")


def _is_min_effect(value: object) -> bool:
    """A number > 0 (the metric's unit) or text like "2%" or "0.5sd" (rgt.verify parses it)."""
    if isinstance(value, str):
        return bool(_RELATIVE_EFFECT.fullmatch(value))
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


Identifier = described_text(
    r"[A-Za-z][A-Za-z0-9_]*", "a name made of letters, digits and underscores, starting with a "
                              "letter")
MetricName = described_text(r"[A-Za-z0-9_.-]+", "a metric name (letters, digits, _ . -)")
SplitName = described_text(r"[A-Za-z][A-Za-z0-9_-]*", "a split name (val, dev, ...)")
DatasetName = described_text(r"[a-z][a-z0-9_]*|[A-Za-z_][\w.]*:[A-Za-z_]\w*",
                             'a built-in dataset name or "package.module:function"')
ModelName = described_text(r"[a-z][a-z0-9_]*|[A-Za-z_][\w.]*:[A-Za-z_]\w*",
                           'a built-in model name or "package.module:Class"')
ClusterName = described_text(r"[A-Za-z0-9_.-]+", "a name made of letters, digits, _ . -")
MinEffectValue = described(
    _is_min_effect, 'a number > 0 in the metric\'s unit, "2%" of the baseline mean or "0.5sd"')
def _stays_in_project(value: object) -> bool:
    """A relative path that does not climb out of the project (``..``), or an absolute one
    (naming another disk on purpose)."""
    if not isinstance(value, str) or not value.strip():
        return False
    normal = posixpath.normpath(value)
    return normal.startswith("/") or not (normal == ".." or normal.startswith("../"))


ProjectPath = described(
    _stays_in_project, "a directory inside the project (relative, not climbing out with ..), "
                       "or an absolute path for another disk")
Params = frozen_map(dict[str, Any])  # keyword arguments of a user's dataset or model
Seeds = unique_list(Annotated[int, Field(ge=0)], min_length=1)
Variants = frozen_map(dict[Identifier, dict[str, Any]], min_length=1)
MinEffects = frozen_map(dict[MetricName, MinEffectValue])


class Paths(Section):
    """Where sealed runs and durable per-run state live (relative to the project root)."""

    runs: Annotated[ProjectPath, Field(description="directory of sealed runs")] = "runs"
    checkpoints: Annotated[ProjectPath, Field(
        description="directory of durable per-run state (checkpoints, status, "
                    "heartbeat)")] = "checkpoints"


class Split(Section):
    """The stratified train/val/test split: fractions and seed."""

    val: Annotated[Number, Field(gt=0, lt=1)]
    test: Annotated[Number, Field(gt=0, lt=1)]
    seed: Annotated[int, Field(ge=0)]


class DataSettings(Section):
    """The dataset: a built-in name or the user's ``package.module:function``."""

    name: DatasetName
    split: Split
    params: Params = Field(default_factory=empty_map,
                           description='keyword arguments for a dataset named by '
                                       '"package.module:function"')


class ModelSettings(Section):
    """The model: the built-in small CNN or the user's ``package.module:Class``."""

    name: ModelName
    # Left out: the model's own default (and the key stays out of the run's identity).
    channels: Annotated[int | None, Field(ge=1, le=1024, exclude_if=leave_out_when_unset)] = None
    dropout: Annotated[Number | None, Field(ge=0, lt=1, exclude_if=leave_out_when_unset)] = None
    params: Params = Field(default_factory=empty_map,
                           description='keyword arguments for a model named by '
                                       '"package.module:Class"')


class TrainSettings(Section):
    """The optimisation: epochs, batch, optimizer, schedule, threads, device, processes."""

    # Bounds far above any real run, so a slip (10**12) is refused before anything starts.
    epochs: Annotated[int, Field(ge=1, le=100_000)]
    batch_size: Annotated[int, Field(ge=1, le=1_048_576, description="per process (rank)")]
    lr: Annotated[Number, Field(gt=0)]
    weight_decay: Annotated[Number, Field(ge=0)]
    optimizer: Literal["adam", "sgd"]
    scheduler: Literal["cosine", "constant"]
    threads: Annotated[int, Field(ge=1, le=256)]
    device: Literal["auto", "cpu", "cuda"] = "auto"  # auto = CUDA when present, else CPU
    processes: Annotated[int, Field(
        ge=1, le=1024, description="training processes on one node (DDP; rgt train launches "
                                   "them with torchrun); the effective batch is batch_size x "
                                   "processes")] = 1
    process_group_timeout_s: Annotated[Number, Field(
        gt=0, description="seconds a rank waits in a collective for the others before the "
                          "run fails naming the rank")] = 300
    # Left out (the default), each of these stays out of the run's identity: a run planned
    # before the key existed keeps its run id.
    precision: Annotated[Literal["fp32", "bf16", "fp16"] | None, Field(
        exclude_if=leave_out_when_unset,
        description="autocast precision of the forward pass: fp32 (default), bf16, or fp16 "
                    "with loss scaling")] = None
    accumulate: Annotated[int | None, Field(
        ge=1, le=4096, exclude_if=leave_out_when_unset,
        description="micro-batches of batch_size per optimizer step (gradient accumulation); "
                    "the effective batch is batch_size x processes x accumulate")] = None
    clip_grad_norm: Annotated[Number | None, Field(
        gt=0, exclude_if=leave_out_when_unset,
        description="clip the gradients' total 2-norm to this value before each step")] = None
    compile: Annotated[bool | None, Field(
        exclude_if=leave_out_when_unset,
        description="train through torch.compile (compiled once per process, at start)")] = None
    channels_last: Annotated[bool | None, Field(
        exclude_if=leave_out_when_unset,
        description="image models and batches in channels-last memory format (4-D inputs "
                    "only; faster convolutions on tensor cores)")] = None
    loader_workers: Annotated[int | None, Field(
        ge=0, le=256, exclude_if=leave_out_when_unset,
        description="batches from a torch DataLoader with this many worker processes (0: in "
                    "the training process); left out, an in-memory dataset is cut into "
                    "batches directly")] = None


class CheckpointSettings(Section):
    """Checkpoint retention and cadence, and the heartbeat."""

    keep: Annotated[int, Field(ge=2, le=1000)]
    mtbf_hours: Annotated[Number, Field(gt=0)]
    every_steps: Annotated[int | None, Field(ge=1)] = None  # None: Young/Daly from measurements
    heartbeat_seconds: Annotated[Number, Field(gt=0)]


class SelectionSettings(Section):
    """Which checkpoint becomes the run's weights: the best on the validation split."""

    metric: Literal["accuracy", "loss"]
    split: Literal["val"]  # selection may only read the validation split


REPORT_SPLIT = "test"  # where a metric is reported unless its declaration names another split


class MetricDeclaration(Section):
    """A metric your own training job reports: which way is better, and on which split."""

    direction: Literal["higher", "lower"]
    # Left out, it stays out of the run identity (the runs planned before the key existed).
    split: SplitName | None = Field(default=None, exclude_if=leave_out_when_unset, description=(
        "the split run.finish reports it on, for a project with no test split (val); default "
        "test. Verify and delivery disclose a number on any other split as such"))
    description: str | None = Field(default=None, exclude_if=leave_out_when_unset)

    @property
    def report_split(self) -> str:
        """The split the metric's delivered number is on."""
        return self.split or REPORT_SPLIT


Metrics = frozen_map(dict[MetricName, MetricDeclaration], min_length=1)
PathList = unique_list(Annotated[str, Field(min_length=1)])
ModuleName = described_text(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*",
                            "an importable module name (e.g. lightning.pytorch)")
Requirement = described_text(r"[^\s;#][^;#]*", "a pip requirement (e.g. lightning==2.5.1)")
Packages = frozen_map(dict[ModuleName, Requirement])


class JobSettings(Section):
    """Your own training command instead of the built-in trainer (docs/own-code.md): rgt
    runs it with RGT_RUN_ID, RGT_RUN_DIR and RGT_CHECKPOINT_DIR set, and treats it exactly like
    ``rgt train`` (resume, mirror, watch, pull, the teardown gate, verify, delivery)."""

    command: Annotated[str, Field(
        min_length=1, description="the command, run from the project root; {params.NAME}, "
                                  "{seed}, {run_id}, {run_dir}, {checkpoint_dir} and {out_dir} "
                                  "(a directory of the run's own for the script's files) are "
                                  "filled in")]
    sources: PathList = Field(default_factory=tuple, description=(
        "files, directories or globs of the code that decides the result (hashed into the run "
        "id, pushed to a rented host); the command's script must be among them"))
    data: PathList = Field(default_factory=tuple, description=(
        "files, directories or globs of the data the command reads (hashed into the run id, "
        "pushed to a rented host)"))
    params: Params = Field(default_factory=empty_map,
                           description="your hyper-parameters ({params.NAME} in the command)")
    metrics: Metrics
    smoke_steps: Annotated[int, Field(ge=1, le=10_000,
                                      description="steps of the smoke test")] = 2
    # Left out: 1, and the key stays out of the run's identity.
    threads: Annotated[int | None, Field(
        ge=1, le=256, exclude_if=leave_out_when_unset,
        description="torch intra-op and inter-op, OpenMP and MKL threads of the command's "
                    "process, fixed so a run gives the same bits wherever it runs (1 when "
                    "left out)")] = None
    packages: Packages = Field(
        default_factory=empty_map, exclude_if=leave_out_when_empty, description=(
            "modules the command imports that a rented host's image may lack, each with the "
            "pip requirement that provides it (lightning.pytorch: lightning==2.5.1): probed on "
            "the host before its first launch, installed through the platform's proxy and "
            "mirrors when missing"))


class Settings(Section):
    """Everything that decides what one run computes (``defaults`` and each variant): the
    built-in trainer's ``data``, ``model``, ``train`` and ``selection``, or your own ``job``."""

    data: DataSettings | None = Field(default=None, exclude_if=leave_out_when_unset)
    model: ModelSettings | None = Field(default=None, exclude_if=leave_out_when_unset)
    train: TrainSettings | None = Field(default=None, exclude_if=leave_out_when_unset)
    checkpoint: CheckpointSettings
    selection: SelectionSettings | None = Field(default=None, exclude_if=leave_out_when_unset)
    job: JobSettings | None = Field(default=None, exclude_if=leave_out_when_unset)


class RunIdentity(Section):
    """Which cell of the plan a run is."""

    exp_id: str
    variant: str
    seed: int


class RunSettings(Settings):
    """The fully resolved settings of one run; ``to_dict()`` is what its run id hashes."""

    run: RunIdentity


class Experiment(Section):
    """Variants of one variable compared with a baseline, over seeds."""

    description: str | None = Field(default=None, exclude_if=leave_out_when_unset)
    baseline: Identifier
    seeds: Seeds
    # Each variant's overrides are checked by ``load_config`` against ``Settings``, merged over
    # the defaults (a variant overrides only what it changes).
    variants: Variants


class VerifySection(Section):
    """``rgt verify``: the smallest effect worth detecting, pairing and multiplicity."""

    min_effect: MinEffects = Field(
        default_factory=empty_map, description="smallest difference worth detecting, per metric")
    pairing: Literal["unpaired", "paired"] = "unpaired"  # Welch t, or paired t over seeds
    multiplicity: Literal["holm", "bh", "none"] = "holm"  # over one experiment's comparisons


class ClusterTrain(Section):
    """Resources of each training job on a cluster."""

    runtime_minutes: Annotated[int, Field(ge=1, description="walltime")] = 60
    cpus: Annotated[int, Field(ge=1)] = 1
    mem_mb: Annotated[int, Field(ge=100)] = 4000
    gpus: Annotated[int, Field(ge=0)] = 0
    gpu_manufacturer: Literal["nvidia", "amd"] = "nvidia"


class ClusterSection(Section):
    """Where training jobs run on a cluster (profiles/slurm, profiles/kubernetes)."""

    partition: ClusterName | None = None  # None: the cluster's default partition
    account: ClusterName | None = None  # None: your default account
    grace_seconds: Annotated[int, Field(
        ge=10, description="warning before a walltime or preemption kill")] = 120
    train: ClusterTrain = Field(default_factory=ClusterTrain)


Experiments = frozen_map(dict[Identifier, Experiment], min_length=1)
FigureId = described_text(r"[a-z0-9_]+", "a figure id of lower-case letters, digits and _")


class FigureDeclaration(Section):
    """One delivered figure. ``bar``: a metric on a split, per variant (seeds, mean ± 95% CI,
    and each candidate's difference from its baseline). ``curve``: a scalar the runs log while
    training (a column of their train.csv), over steps, per variant of one experiment (mean
    over seeds, min–max band)."""

    kind: Literal["bar", "curve"] = "bar"
    metric: MetricName
    split: str = "test"
    title: str | None = Field(default=None, exclude_if=leave_out_when_unset)
    experiment: Identifier | None = Field(
        default=None, exclude_if=leave_out_when_unset,
        description="only this experiment's runs (default: every experiment; a curve needs "
                    "one, and takes the only one when there is one)")


Figures = frozen_map(dict[FigureId, FigureDeclaration])


class Config(Section):
    """``config/config.yaml``: what to compute (profiles say how and where)."""

    paths: Paths = Field(default_factory=Paths)
    defaults: Settings
    experiments: Experiments
    verify: VerifySection = Field(default_factory=VerifySection)
    cluster: ClusterSection = Field(default_factory=ClusterSection)
    figures: Figures = Field(default_factory=empty_map, description=(
        "the figures DELIVER draws (default: test accuracy for the built-in trainer, the test "
        "split of each declared metric for a job)"))

    def variant_settings(self, exp_id: str, variant: str) -> Settings:
        """The defaults with one variant's overrides merged in."""
        return self._variants[exp_id, variant]

    def run_settings(self, exp_id: str, variant: str, seed: int) -> RunSettings:
        """The fully resolved settings of one run: defaults ⊕ variant overrides ⊕ identity."""
        settings = self.variant_settings(exp_id, variant)
        # Its parts are validated already: put together as they are.
        return RunSettings.model_construct(
            **{name: getattr(settings, name) for name in Settings.model_fields},
            run=RunIdentity.model_construct(exp_id=exp_id, variant=variant, seed=seed))

    @cached_property
    def _variants(self) -> dict[tuple[str, str], Settings]:
        """Every variant's settings, validated once (``load_config`` reads them first)."""
        return {(exp_id, variant): Settings.model_validate(merge(self.defaults.to_dict(),
                                                                 overrides))
                for exp_id, experiment in self.experiments.items()
                for variant, overrides in experiment.variants.items()}

    def with_paths(self, runs: str, checkpoints: str) -> "Config":
        """The same config with other runs/checkpoints directories (not part of a run id)."""
        return self.model_copy(update={"paths": Paths(runs=runs, checkpoints=checkpoints)})


def merge(base: Mapping, override: Mapping) -> dict:
    """Deep-merge ``override`` into a copy of ``base`` (mappings merge, other values replace)."""
    merged = {key: _plain(value) for key, value in base.items()}
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = _plain(value)
    return merged


def _plain(value: Any) -> Any:
    return copy.deepcopy(thaw(value))
