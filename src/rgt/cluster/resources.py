"""The train rule's Snakemake resources, from the config's ``cluster:`` block.

The names are those of the official executor plugins: ``runtime`` (minutes, sbatch ``-t``),
``cpus_per_task``, ``mem_mb``, ``gpu`` (sbatch/srun ``--gpus``; k8s ``nvidia.com/gpu``),
``gpu_manufacturer`` (k8s), ``slurm_partition``, ``slurm_account`` and ``slurm_extra``. A plugin
ignores the resources it does not know, so one set serves every profile.
"""

from __future__ import annotations

import copy

from rgt.base.errors import ConfigError

DEFAULTS = {"partition": None, "account": None, "grace_seconds": 120,
            "train": {"runtime_minutes": 60, "cpus": 1, "mem_mb": 4000, "gpus": 0,
                      "gpu_manufacturer": "nvidia"}}
# Slurm signals the batch shell with B:; the shell dies and Slurm then sends SIGTERM to every
# process of the job (KillWait before SIGKILL). Either signal makes `rgt train` checkpoint at
# the next step boundary and exit 75.
SIGNAL = "USR1"


def cluster_settings(config: dict) -> dict:
    """The ``cluster:`` block with every default filled in, checked for consistency.

    Raises:
        ConfigError: when the warning would come before the job even starts.
    """
    raw = config.get("cluster") or {}
    settings = {**copy.deepcopy(DEFAULTS), **{k: v for k, v in raw.items() if k != "train"}}
    settings["train"].update(raw.get("train") or {})
    walltime = settings["train"]["runtime_minutes"] * 60
    if settings["grace_seconds"] >= walltime:
        raise ConfigError(
            f"cluster.grace_seconds = {settings['grace_seconds']} is not shorter than the "
            f"walltime cluster.train.runtime_minutes = {settings['train']['runtime_minutes']} "
            f"({walltime} s): the warning would come before any training",
            "lower cluster.grace_seconds (e.g. 120) or raise cluster.train.runtime_minutes")
    return settings


def slurm_signal(grace_seconds: int) -> str:
    """The sbatch option that warns the job ``grace_seconds`` before its time limit."""
    return f"--signal=B:{SIGNAL}@{int(grace_seconds)}"


def train_resources(config: dict) -> dict:
    """Snakemake resources of one training job (only the ones that are set)."""
    settings = cluster_settings(config)
    train = settings["train"]
    resources = {"runtime": train["runtime_minutes"], "cpus_per_task": train["cpus"],
                 "mem_mb": train["mem_mb"], "slurm_extra": slurm_signal(settings["grace_seconds"])}
    # The k8s plugin treats any `gpu` key (even 0) as a GPU job, so 0 means "absent".
    if train["gpus"] > 0:
        resources.update(gpu=train["gpus"], gpu_manufacturer=train["gpu_manufacturer"])
    if settings["partition"]:
        resources["slurm_partition"] = settings["partition"]
    if settings["account"]:
        resources["slurm_account"] = settings["account"]
    return resources


def train_resources_or_exit(config: dict) -> dict:
    """For the Snakefile: the resources, or the error and its fix on stderr, then exit 2."""
    import sys

    try:
        return train_resources(config)
    except ConfigError as error:
        print(f"error: {error.message}\n  fix: {error.fix}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None
