# ruff: noqa: UP006, UP035, UP045 — Snakemake needs typing.List/Optional objects, not strings
"""Snakemake executor plugin ``rgt``: training jobs on a rented host over SSH.

Thin on purpose: it maps Snakemake's executor calls onto ``rgt.remote.runner.RemoteRunner``.
The plugin owns the file transfer (code and config pushed before launch, the run's files pulled
and sha256-verified before success is reported), so Snakemake sees ordinary local files and
needs no storage provider. Jobs run detached and are keyed by run id: a restarted Snakemake
reattaches to a job still running instead of launching it twice.
"""

# No `from __future__ import annotations` here: Snakemake reads the settings' types at run time
# to build the --rgt-* command-line flags.
from dataclasses import dataclass, field
from typing import List, Optional  # noqa: UP035 — real types for argparse, see above

from snakemake_interface_executor_plugins.settings import CommonSettings, ExecutorSettingsBase

from snakemake_executor_plugin_rgt.executor import Executor

__all__ = ["Executor", "ExecutorSettings", "common_settings"]

common_settings = CommonSettings(
    non_local_exec=True,
    implies_no_shared_fs=True,
    job_deploy_sources=False,
    pass_default_storage_provider_args=False,
    pass_default_resources_args=False,
    pass_envvar_declarations_to_cmd=False,
    auto_deploy_default_storage_provider=False,
    can_transfer_local_files=True,
    init_seconds_before_status_checks=2,
)


def _meta(help_text: str, **extra) -> dict:
    return {"help": help_text, **extra}


@dataclass
class ExecutorSettings(ExecutorSettingsBase):
    """Profile keys ``rgt-<field>`` / command-line flags ``--rgt-<field>``."""

    host: Optional[str] = field(default=None, metadata=_meta(
        "SSH alias of the rented host (from ~/.ssh/config: HostName, Port, User, "
        "IdentityFile, ProxyJump are honoured), or several, comma-separated, for a pool"))
    pool: Optional[str] = field(default=None, metadata=_meta(
        "a hosts file (the format of config/hosts.yaml) whose every host joins the pool "
        "(instead of --rgt-host)"))
    lease_seconds: Optional[int] = field(default=None, metadata=_meta(
        "in a pool, how long a job's lease holds without the controller renewing it; then "
        "the job checkpoints and stops (default 600 for a pool, none for a single host)"))
    unknown_grace: Optional[float] = field(default=None, metadata=_meta(
        "seconds a host may stay unreachable before its jobs move to other hosts "
        "(default: the lease plus 60 s; at least the lease plus 5 s)"))
    unreachable_timeout: float = field(default=600.0, metadata=_meta(
        "seconds a host that has never answered (a typo, a host not started) is retried, "
        "with a line every retry, before its jobs fail"))
    platform: Optional[str] = field(default=None, metadata=_meta(
        "platform facts to use (config/platforms/<name>.yaml; the profile names it); must "
        "agree with config/hosts.yaml's record of the host"))
    python: Optional[str] = field(default=None, metadata=_meta(
        "the host's interpreter (the image's, never a new environment); default: the one "
        "config/hosts.yaml records (rgt up --python), else python3"))
    detach: str = field(default="setsid", metadata=_meta("setsid or tmux"))
    remote_root: Optional[str] = field(default=None, metadata=_meta(
        "project directory on the host's durable disk; default: the one config/hosts.yaml "
        "records (rgt up), else the platform's durable dir (or the login directory) + "
        "/rgt/<project>; recorded for a host not recorded yet"))
    secrets: List[str] = field(default_factory=list, metadata=_meta(
        "names of environment variables sent over stdin to a mode-600 file on the host",
        nargs="+"))
    ssh_config: Optional[str] = field(default=None, metadata=_meta(
        "ssh_config file to read instead of ~/.ssh/config (default: the one config/hosts.yaml "
        "records)"))
    gpu: bool = field(default=False, metadata=_meta(
        "refuse to launch unless torch on the host sees a GPU"))
    mirror: str = field(default="local", metadata=_meta(
        "where the newest complete checkpoint of each training job is mirrored while it "
        "runs: local (the project's checkpoints/), off, or an absolute directory you own"))
    mirror_every: Optional[float] = field(default=None, metadata=_meta(
        "seconds between mirrors (default: from checkpoint size, link speed and the "
        "platform's preemption MTBF, see docs/mirror.md)"))
    host_mirror: Optional[str] = field(default=None, metadata=_meta(
        "s3://BUCKET/PREFIX: a bucket you own that the host itself mirrors each training "
        "job's newest checkpoint to (a closed laptop stops nothing); credentials from "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, which must be among --rgt-secrets"))
    host_mirror_endpoint: Optional[str] = field(default=None, metadata=_meta(
        "the URL of an S3-compatible service for --rgt-host-mirror (MinIO, R2, B2; default: "
        "AWS S3)"))
    host_mirror_every: Optional[float] = field(default=None, metadata=_meta(
        "seconds between the host-side mirror's uploads (default: the formula of "
        "docs/mirror.md)"))
    retries: int = field(default=3, metadata=_meta(
        "how many times one Snakemake call relaunches a training job that was preempted "
        "(exit 75, checkpointed) or vanished (killed, host rebooted); it resumes from its "
        "newest checkpoint or mirror. A code error is never relaunched (0: never)"))
    retry_backoff: float = field(default=30.0, metadata=_meta(
        "seconds before the first relaunch; doubled for each further one (at most 10 min)"))
