"""The train rule's Snakemake resources, from the config's ``cluster:`` block.

The names are those of the official executor plugins: ``runtime`` (minutes, sbatch ``-t``),
``cpus_per_task``, ``mem_mb``, ``gpu`` (sbatch/srun ``--gpus``; k8s ``nvidia.com/gpu``),
``gpu_manufacturer`` (k8s), ``slurm_partition``, ``slurm_account`` and ``slurm_extra``. A plugin
ignores the resources it does not know, so one set serves every profile.
"""

from __future__ import annotations

from rgt.config import Config

# Slurm signals the batch shell with B:; the shell dies and Slurm then sends SIGTERM to every
# process of the job (KillWait before SIGKILL). Either signal makes `rgt train` checkpoint at
# the next step boundary and exit 75.
SIGNAL = "USR1"


def slurm_signal(grace_seconds: int) -> str:
    """The sbatch option that warns the job ``grace_seconds`` before its time limit."""
    return f"--signal=B:{SIGNAL}@{int(grace_seconds)}"


def train_resources(config: Config) -> dict:
    """Snakemake resources of one training job (only the ones that are set); ``load_config``
    has checked that the warning comes well before the walltime."""
    cluster = config.cluster
    train = cluster.train
    resources = {"runtime": train.runtime_minutes, "cpus_per_task": train.cpus,
                 "mem_mb": train.mem_mb, "slurm_extra": slurm_signal(cluster.grace_seconds)}
    # The k8s plugin treats any `gpu` key (even 0) as a GPU job, so 0 means "absent".
    if train.gpus > 0:
        resources.update(gpu=train.gpus, gpu_manufacturer=train.gpu_manufacturer)
    if cluster.partition:
        resources["slurm_partition"] = cluster.partition
    if cluster.account:
        resources["slurm_account"] = cluster.account
    return resources
