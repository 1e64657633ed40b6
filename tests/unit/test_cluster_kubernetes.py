"""The kubernetes profile without a cluster: it loads with the official plugin's settings, the Job
the plugin itself builds (its run_job, on our resources) plus the project's policy is a valid
Job whose checkpoints are on the persistent volume and whose grace covers the preStop hook."""

from __future__ import annotations

import threading
from pathlib import PurePosixPath
from types import SimpleNamespace

import kubernetes.client
import pytest
import yaml
from snakemake_executor_plugin_kubernetes import Executor

from conftest import ROOT
from rgt.base.errors import ConfigError
from rgt.cluster import kubernetes as k8s
from rgt.cluster.kubernetes_command import main as policy_command
from rgt.cluster.resources import train_resources
from rgt.config import Config, load_config

PROFILES = ROOT / "profiles" / "kubernetes"
MOUNT = "/mnt/rgt"


def profile_args():
    from snakemake.cli import get_argument_parser

    return get_argument_parser(profiles=[str(PROFILES / "config.yaml")]).parse_args([])


def plugin_settings(args):
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    return ExecutorPluginRegistry().get_plugin("kubernetes").get_settings(args)


@pytest.fixture
def k8s_config(tiny_config) -> dict:
    tiny_config["paths"] = {"checkpoints": f"{MOUNT}/checkpoints"}
    tiny_config["cluster"] = {"grace_seconds": 90, "train": {"gpus": 1, "mem_mb": 3000}}
    return load_config(tiny_config)


def plugin_job(config: Config) -> dict:
    """The Job the official plugin creates for a training job (its API call captured)."""
    executor = Executor.__new__(Executor)
    created = []
    executor.__dict__.update(
        logger=SimpleNamespace(debug=print, info=print), lock=threading.Lock(),
        container_image="registry.example/rgt-train@sha256:" + "0" * 64,
        persistent_volumes=plugin_settings(profile_args()).persistent_volumes,
        k8s_cpu_scalar=0.95, k8s_service_account_name=None, privileged=False,
        secret_envvars={"aws1": "AWS_ACCESS_KEY_ID"}, namespace="rgt", run_namespace="run",
        batchapi=SimpleNamespace(create_namespaced_job=lambda ns, body: created.append(body)),
        format_job_exec=lambda job: "python -m snakemake --target-jobs train:run_id=x",
        report_job_submission=lambda info: None)
    resources = {**train_resources(config), "_cores": 1}
    job = SimpleNamespace(resources=resources, jobid=1, attempt=1, is_containerized=False)
    executor.run_job(job)
    return kubernetes.client.ApiClient().sanitize_for_serialization(created[0])


def test_the_profile_loads_with_the_plugins_settings():
    args = profile_args()
    settings = plugin_settings(args)
    assert args.executor == "kubernetes" and settings.namespace == "rgt"
    assert k8s.persistent_volumes(
        [volume.unparse() for volume in settings.persistent_volumes]) == {
        "rgt-checkpoints": PurePosixPath(MOUNT)}
    assert args.default_storage_provider == "s3" and args.retries >= 1
    assert set(args.envvars) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "HF_TOKEN"}


def test_the_pvc_and_the_policy_match_the_profile(tiny_config):
    pvc = yaml.safe_load((PROFILES / "pvc.yaml").read_text())
    assert pvc["kind"] == "PersistentVolumeClaim" and pvc["metadata"]["name"] == "rgt-checkpoints"
    assert pvc["metadata"]["namespace"] == profile_args().kubernetes_namespace
    tiny_config["paths"] = {"checkpoints": f"{MOUNT}/checkpoints"}
    shipped = yaml.safe_load((PROFILES / "rgt-training-policy.yaml").read_text())
    defaults = load_config({**tiny_config, "cluster": {}})
    assert shipped == k8s.policy(defaults)  # regenerate it when the policy code changes


def test_the_plugins_job_with_the_policy_keeps_checkpoints_on_the_volume(k8s_config):
    job = k8s.apply_patch(plugin_job(k8s_config), k8s.pod_patch(k8s_config))
    pod = job["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    claim = k8s.durable_volume(k8s_config, k8s.persistent_volumes(["rgt-checkpoints:/mnt/rgt"]))
    assert mounts[claim] == MOUNT
    assert volumes[claim]["persistentVolumeClaim"]["claimName"] == "rgt-checkpoints"
    # The working directory is the pod's emptyDir: nothing durable may live there.
    assert "emptyDir" in volumes["workdir"] and mounts["workdir"] == container["workingDir"]
    hook = container["lifecycle"]["preStop"]["exec"]["command"]
    checkpoints = PurePosixPath(hook[hook.index("--checkpoints") + 1])
    assert checkpoints.is_relative_to(MOUNT)
    assert not checkpoints.is_relative_to(container["workingDir"])


def test_the_grace_period_covers_the_prestop_wait(k8s_config):
    job = k8s.apply_patch(plugin_job(k8s_config), k8s.pod_patch(k8s_config))
    pod = job["spec"]["template"]["spec"]
    hook = pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"]
    wait = float(hook[hook.index("--grace") + 1])
    assert pod["terminationGracePeriodSeconds"] == 90
    assert 0 < wait <= 90 - k8s.PRESTOP_MARGIN_SECONDS
    assert pod["restartPolicy"] == "Never" and job["spec"]["backoffLimit"] == 0


def test_the_gpu_request_and_the_patched_job_are_a_valid_job(k8s_config):
    job = k8s.apply_patch(plugin_job(k8s_config), k8s.pod_patch(k8s_config))
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert container["resources"]["requests"]["memory"] == "3000M"
    # Every field is one the Kubernetes API knows: a typo would be dropped in the round trip.
    client = kubernetes.client.ApiClient()
    parsed = client._ApiClient__deserialize(job, "V1Job")
    assert client.sanitize_for_serialization(parsed) == job


@pytest.mark.parametrize("checkpoints", ["checkpoints", "/workdir/checkpoints", "/mnt/rgt",
                                         "/mnt/rgtx/checkpoints"])
def test_checkpoints_off_the_volume_are_refused_with_the_fix(tiny_config, checkpoints):
    tiny_config["paths"] = {"checkpoints": checkpoints}
    with pytest.raises(ConfigError) as caught:
        k8s.durable_volume(load_config(tiny_config), {"rgt-checkpoints": PurePosixPath(MOUNT)})
    assert f"paths.checkpoints = {checkpoints!r}" in caught.value.message
    assert "/mnt/rgt/checkpoints" in caught.value.fix


def test_the_policy_command_prints_the_error_for_a_pod_local_path(tmp_path, tiny_config, capsys):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(tiny_config))  # paths.checkpoints defaults to "checkpoints"
    assert policy_command(["--config", str(path)]) == 2
    assert "error: paths.checkpoints = 'checkpoints'" in capsys.readouterr().err
    tiny_config["paths"] = {"checkpoints": f"{MOUNT}/ckpt"}
    path.write_text(yaml.safe_dump(tiny_config))
    assert policy_command(["--config", str(path)]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert f"{MOUNT}/ckpt" in printed["spec"]["rules"][0]["mutate"]["patchStrategicMerge"][
        "spec"]["template"]["spec"]["containers"][0]["lifecycle"]["preStop"]["exec"]["command"]


def test_every_kubernetes_profile_key_is_commented():
    lines = (PROFILES / "config.yaml").read_text().splitlines()
    for index, line in enumerate(lines):
        if line and not line.startswith("#"):
            assert lines[index - 1].startswith("#"), f"profiles/kubernetes: {line!r} has no comment"
