"""What a training pod needs beyond the Kubernetes executor plugin's own Job.

The plugin (snakemake-executor-plugin-kubernetes) builds each job's pod itself: ``/bin/sh -c
<job>`` as PID 1, the working directory on an ``emptyDir`` (gone with the pod), the persistent
volumes of ``--kubernetes-persistent-volumes``, CPU/memory/GPU requests from the rule's
resources. It has no setting for the grace period or a preStop hook, so the project adds them
with a cluster-side mutation (a Kyverno policy, :func:`policy`) on the plugin's Jobs (label
``app: snakemake``): a ``terminationGracePeriodSeconds`` of ``cluster.grace_seconds`` and a
preStop hook (:mod:`rgt.cluster.prestop`) that SIGTERMs the trainings so they checkpoint.

    python -m rgt.cluster.kubernetes_command --config config/k8s.yaml > rgt-training-policy.yaml
"""

from __future__ import annotations

import copy
from pathlib import PurePosixPath

from snakemake_executor_plugin_kubernetes import parse_persistent_volumes

from rgt.base.errors import ConfigError
from rgt.config import Config

CONTAINER = "snakemake"  # the plugin's container name
JOB_LABEL = {"app": "snakemake"}  # the plugin's label on every Job it creates
# The preStop hook must end before the kubelet's SIGKILL at terminationGracePeriodSeconds.
PRESTOP_MARGIN_SECONDS = 5


def persistent_volumes(values: list[str]) -> dict[str, PurePosixPath]:
    """``{claim name: mount path}`` from ``kubernetes-persistent-volumes`` (``name:path``)."""
    return {volume.name: PurePosixPath(volume.path) for volume in parse_persistent_volumes(values)}


def durable_volume(config: Config, volumes: dict[str, PurePosixPath]) -> str:
    """The claim that holds ``paths.checkpoints``.

    Raises:
        ConfigError: when the checkpoints would land on the pod's own filesystem (the
            ``emptyDir`` working directory or the image), which dies with the pod.
    """
    checkpoints = PurePosixPath(config.paths.checkpoints)
    mounts = ", ".join(f"{name}:{path}" for name, path in volumes.items()) or "none"
    for name, mount in volumes.items():
        if checkpoints.is_absolute() and checkpoints.is_relative_to(mount) and checkpoints != mount:
            return name
    raise ConfigError(
        f"paths.checkpoints = {str(checkpoints)!r} is not on a persistent volume of the "
        f"kubernetes profile (kubernetes-persistent-volumes: {mounts}): checkpoints there die "
        "with the pod, so a preempted run could not resume",
        "mount a PersistentVolumeClaim (kubernetes-persistent-volumes: [rgt-checkpoints:/mnt/rgt]) "
        "and set paths.checkpoints to a directory inside it, e.g. /mnt/rgt/checkpoints")


def prestop_command(checkpoints: str, grace_seconds: int) -> list[str]:
    """The preStop hook's command (the image's ``python3`` must import ``rgt``)."""
    wait = max(1, grace_seconds - PRESTOP_MARGIN_SECONDS)
    return ["python3", "-m", "rgt.cluster.prestop", "--checkpoints", checkpoints,
            "--grace", str(wait)]


def pod_patch(config: Config) -> dict:
    """The strategic-merge patch of a Job that the project adds to the plugin's Job."""
    grace = config.cluster.grace_seconds
    command = prestop_command(config.paths.checkpoints, grace)
    container = {"name": CONTAINER, "lifecycle": {"preStop": {"exec": {"command": command}}}}
    return {"spec": {"template": {"spec": {"terminationGracePeriodSeconds": grace,
                                           "containers": [container]}}}}


def policy(config: Config, name: str = "rgt-training-pods") -> dict:
    """A Kyverno ClusterPolicy that applies :func:`pod_patch` to the plugin's Jobs."""
    return {
        "apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy", "metadata": {"name": name},
        "spec": {"rules": [{
            "name": "grace-and-prestop",
            "match": {"any": [{"resources": {"kinds": ["batch/v1/Job"],
                                             "selector": {"matchLabels": dict(JOB_LABEL)}}}]},
            "mutate": {"patchStrategicMerge": pod_patch(config)},
        }]},
    }


def apply_patch(job: dict, patch: dict) -> dict:
    """``patch`` merged into ``job`` as a strategic merge would (containers merged by name)."""
    merged = copy.deepcopy(job)
    for key, value in patch.items():
        if key == "containers":
            merged[key] = _merge_named(merged.get(key) or [], value)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = apply_patch(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _merge_named(items: list[dict], patches: list[dict]) -> list[dict]:
    by_name = {item["name"]: item for item in items}
    for patch in patches:
        by_name[patch["name"]] = apply_patch(by_name.get(patch["name"], {}), patch)
    return list(by_name.values())
