"""The `cluster:` config block -> the train rule's resources, and what the official Slurm plugin
makes of them (its own sbatch command builder, on those resources), and the slurm profile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from snakemake_executor_plugin_slurm import ExecutorSettings
from snakemake_executor_plugin_slurm.submit_string import get_submit_command
from snakemake_executor_plugin_slurm.utils import set_gres_string
from snakemake_executor_plugin_slurm.validation import validate_slurm_extra

from conftest import ROOT, write_config
from rgt.base.errors import ConfigError
from rgt.cluster.resources import slurm_signal, train_resources
from rgt.config import ClusterSection, load_config

PROFILE = ROOT / "profiles" / "slurm" / "config.yaml"


class Resources(dict):
    """Snakemake's job.resources: a mapping read by attribute as well."""

    __getattr__ = dict.get


def sbatch(resources: dict, **settings) -> str:
    """The plugin's own sbatch command for a training job with these resources."""
    job = SimpleNamespace(resources=Resources(resources), threads=1)
    validate_slurm_extra(job)
    params = {"run_uuid": "uuid", "slurm_logfile": "log", "comment_str": "rule_train",
              "account": f" -A {resources.get('slurm_account', 'default')}",
              "partition": f" -p {resources.get('slurm_partition', 'default')}", "workdir": "/w"}
    return get_submit_command(job, params, ExecutorSettings(**settings)) + set_gres_string(job)


def test_the_shipped_config_gives_cpu_jobs_with_a_walltime_and_a_warning_signal():
    config = load_config(ROOT / "config" / "config.yaml")
    assert config.cluster == ClusterSection()
    assert train_resources(config) == {"runtime": 60, "cpus_per_task": 1, "mem_mb": 4000,
                                       "slurm_extra": "--signal=B:USR1@120"}


def test_gpus_partition_and_account_become_the_plugins_resources(tiny_config):
    tiny_config["cluster"] = {"partition": "gpu", "account": "lab42", "grace_seconds": 300,
                              "train": {"gpus": 2, "runtime_minutes": 240}}
    resources = train_resources(load_config(tiny_config))
    assert resources["gpu"] == 2 and resources["gpu_manufacturer"] == "nvidia"
    assert (resources["slurm_partition"], resources["slurm_account"]) == ("gpu", "lab42")
    assert resources["runtime"] == 240 and resources["slurm_extra"] == slurm_signal(300)


def test_the_plugin_submits_walltime_signal_requeue_partition_account_and_gpus(tiny_config):
    tiny_config["cluster"] = {"partition": "gpu", "account": "lab42", "grace_seconds": 300,
                              "train": {"gpus": 1, "runtime_minutes": 240, "mem_mb": 8000}}
    command = sbatch(train_resources(load_config(tiny_config)), requeue=True)
    for part in ("-t 240", "--signal=B:USR1@300", "--requeue", "-p gpu", "-A lab42",
                 "--mem 8000", "--gpus=1", "--cpus-per-task=1"):
        assert part in command.split(" ") or f" {part}" in command, (part, command)


def test_a_warning_longer_than_the_walltime_is_refused_with_the_fix(tiny_config):
    tiny_config["cluster"] = {"grace_seconds": 600, "train": {"runtime_minutes": 5}}
    with pytest.raises(ConfigError) as caught:
        load_config(tiny_config)
    assert "cluster.grace_seconds = 600" in caught.value.message
    assert "runtime_minutes = 5" in caught.value.message
    assert "lower cluster.grace_seconds" in caught.value.fix


@pytest.mark.parametrize("block, key", [({"partiton": "x"}, "partiton"),
                                        ({"train": {"gpus": -1}}, "gpus"),
                                        ({"partition": "a b; rm"}, "partition")])
def test_the_schema_rejects_a_bad_cluster_block(tiny_config, block, key):
    tiny_config["cluster"] = block
    with pytest.raises(ConfigError, match=key):
        load_config(tiny_config)


def test_the_slurm_profile_loads_with_the_plugins_settings():
    from snakemake.cli import get_argument_parser
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    args = get_argument_parser(profiles=[str(PROFILE)]).parse_args([])
    assert args.executor == "slurm"
    settings = ExecutorPluginRegistry().get_plugin("slurm").get_settings(args)
    assert settings.requeue is True and settings.status_command == "sacct"
    assert settings.keep_successful_logs is True
    # A preempted job (exit 75) is resubmitted and resumes; a rerun resumes an incomplete one.
    assert args.retries >= 1 and args.rerun_incomplete is True


def test_every_slurm_profile_key_is_commented():
    lines = PROFILE.read_text().splitlines()
    assert yaml.safe_load(PROFILE.read_text())
    for index, line in enumerate(lines):
        if line and not line.startswith("#"):
            assert lines[index - 1].startswith("#"), f"profiles/slurm: {line!r} has no comment"


def test_the_workflow_stops_on_a_bad_cluster_block_with_the_message(project, tiny_config):
    tiny_config["cluster"] = {"grace_seconds": 900, "train": {"runtime_minutes": 10}}
    write_config(project, tiny_config)
    snakemake = str(Path(sys.executable).parent / "snakemake")
    done = subprocess.run(["timeout", "-k", "10", "120", snakemake, "-n", "--cores", "1"],
                          cwd=project, capture_output=True, text=True, timeout=150)
    assert done.returncode != 0
    assert "error: config/config.yaml: cluster.grace_seconds = 900" in done.stderr
    assert "fix: lower cluster.grace_seconds" in done.stderr
    assert "Traceback" not in done.stderr
