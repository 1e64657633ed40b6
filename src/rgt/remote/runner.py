"""Run training jobs on one rented host: deploy, launch detached, probe, collect.

The Snakemake executor plugin (``snakemake_executor_plugin_rgt``) is a thin shell over this
class. Every call is a short SSH exchange; no SSH session is held open while a job runs, so a
dropped connection or a closed laptop never changes a job's state.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import snakemake

from rgt.base.errors import RgtError
from rgt.config import Config
from rgt.platforms.host_audit import BudgetPlan
from rgt.remote.datacache import place_data
from rgt.remote.deploy import (
    HOST_AUDIT,
    REMOTE_CONFIG,
    file_digests,
    job_data,
    job_packages,
    job_sources,
    plugin_files,
    project_files,
    remote_config_text,
    tree_hash,
)
from rgt.remote.hostfacts import absolute_on_host, make_root
from rgt.remote.jobs import (
    JobStatus,
    Lease,
    RemoteLayout,
    launch_script,
    parse_probe,
    probe_script,
)
from rgt.remote.network import HOST_LOCK, HostNetwork, pinned_install
from rgt.remote.snakejobs import SnakeJob
from rgt.remote.ssh import RemoteHost
from rgt.remote.transfer import TransferStats, pull, push, remote_manifest
from rgt.remote.up import audit_host, refuse_unless_fits
from rgt.remote.watchdog_start import helper_start_script, watchdog_start_script, webhook_file

LOG_TAIL_BYTES = 64 << 10
# What the project needs besides torch, which the image provides and which is never touched.
RUNTIME_MODULES = {"numpy": "numpy>=1.24", "yaml": "pyyaml>=6", "jsonschema": "jsonschema>=4.20",
                   "pydantic": "pydantic>=2.12", "rich": "rich>=13", "pyarrow": "pyarrow>=14",
                   "sklearn": "scikit-learn>=1.3"}
ENV_PROBE = (
    "import importlib.util, json, sys\n"
    "def found(module):\n"
    "    try:\n"
    "        return importlib.util.find_spec(module) is not None\n"
    "    except ImportError:  # a dotted name whose parent package is missing\n"
    "        return False\n"
    "mods = {mods}\n"
    "missing = [m for m in mods if not found(m)]\n"
    "info = {{'python': sys.executable, 'missing': missing, 'torch': None, 'cuda': False}}\n"
    "if importlib.util.find_spec('torch'):\n"
    "    import torch\n"
    "    info.update(torch=torch.__version__, cuda=torch.cuda.is_available())\n"
    "print(json.dumps(info))\n"
)


class RemoteEnvironmentError(RgtError):
    """The host's interpreter cannot run the project (no torch, or no GPU where one is needed)."""


@dataclass
class RemoteRunner:
    """One host, one project root on its durable disk."""

    host: RemoteHost
    layout: RemoteLayout
    python: str = "python3"
    detach: str = "setsid"
    expect_gpu: bool = False
    secrets: dict[str, str] = field(default_factory=dict)
    pushed: dict[str, dict[str, str]] = field(default_factory=dict)  # tree -> {path: sha256}
    _environment_checked: bool = False
    _snakemake_checked: bool = False
    host_audit: dict | None = None  # the latest phase-0 audit, sealed into each run record
    watchdog_options: list[str] | None = None  # start the host's watchdog with each training
    platform: dict | None = None  # the platform's facts (config/platforms/<name>.yaml)
    alarm_webhook: str | None = None  # where the watchdog posts its alarms (a secret)
    host_mirror: list[str] | None = None  # `rgt host-mirror` options: start it with each job
    extra_modules: dict[str, str] = field(default_factory=dict)  # module -> pip requirement
    network: HostNetwork = field(default_factory=HostNetwork)  # the platform's proxy and mirrors
    sent: dict[str, TransferStats] = field(default_factory=dict)  # the latest deploy: code, data

    def deploy(self, config: Config, project: Path) -> str:
        """Push the code tree and run config (resumable, verified); return the tree hash.

        The tree is the ``rgt`` package plus the user's plugin modules kept in ``project`` and
        the sources and data its training jobs declare; the data goes through the host's data
        cache, so a file the host already holds is linked, not sent. ``sent`` records what
        this deploy moved.
        """
        project = Path(project).resolve()
        code = {**project_files(), **plugin_files(config, project),
                **job_sources(config, project), **lock_file(project)}
        data = {rel: path for rel, path in job_data(config, project).items() if rel not in code}
        digests = file_digests({**code, **data})
        tree = tree_hash(digests)
        self.pushed[tree] = digests
        text = remote_config_text(config, self.layout.runs, self.layout.checkpoints)
        with tempfile.TemporaryDirectory() as scratch:
            extra = {REMOTE_CONFIG: Path(scratch) / REMOTE_CONFIG}
            extra[REMOTE_CONFIG].write_text(text)
            if self.host_audit is not None:
                extra[HOST_AUDIT] = Path(scratch) / HOST_AUDIT
                extra[HOST_AUDIT].write_text(json.dumps(self.host_audit, indent=1))
            self.sent = {"code": push(self.host, {**code, **extra}, self.layout.code(tree))}
        self.sent["data"] = place_data(self.host, self.layout.data_cache,
                                       self.layout.code(tree), data, digests)
        self.extra_modules.update(job_packages(config))
        self.check_environment(tree)
        return tree

    def resolve_root(self) -> str:
        """Make the project root absolute on the host (``~`` expanded there) and create it: a
        root relative to the home directory must mean the same thing from a job's own working
        directory, and be the one recorded."""
        self.layout = RemoteLayout(absolute_on_host(self.host, self.layout.root))
        make_root(self.host, self.layout.root)
        return self.layout.root

    def audit(self, plan: BudgetPlan) -> dict:
        """Phase-0 audit of the host with its platform's facts (the same rule as ``rgt up``);
        refuses (AuditError) when the planned runs cannot fit."""
        record = audit_host(self.host, self.layout.root, self.python, plan, self.platform)
        refuse_unless_fits(record)
        self.host_audit = record
        return record

    def check_environment(self, tree: str) -> dict:
        """The interpreter has torch (never installed here) and the project's other needs."""
        if self._environment_checked:
            return {}
        info = self._probe_environment(tree)
        if info["missing"]:
            self.install_requirements(tree, info["missing"])
            info = self._refuse_still_missing(tree)
        if info["torch"] is None:
            raise RemoteEnvironmentError(
                f"{info['python']} on {self.host.spec.alias} cannot import torch",
                "pick an image with torch installed, or set rgt-python to its interpreter")
        if self.expect_gpu and not info["cuda"]:
            raise RemoteEnvironmentError(
                f"torch {info['torch']} on {self.host.spec.alias} sees no GPU",
                "check nvidia-smi on the host and that the image's torch is a CUDA build")
        self._environment_checked = True
        return info

    def install_requirements(self, tree: str, missing: list[str]) -> None:
        """Install the pinned, hashed host lock pushed with ``tree`` (torch is never in it),
        through the platform's proxy and mirrors; without a lock (rgt not run from a checkout),
        and for a module the lock does not hold (the host-side mirror's S3 client), the missing
        modules' packages by name."""
        if HOST_LOCK in self.pushed.get(tree, {}):
            lock = f"{self.layout.code(tree)}/{HOST_LOCK}"
            self.host.run(self.network.wrap(pinned_install(self.python, lock)), timeout=900)
            missing = [module for module in missing if module in self.extra_modules]
        if missing:
            needed = {**RUNTIME_MODULES, **self.extra_modules}
            requirements = [needed[module] for module in missing]
            command = [self.python, "-m", "pip", "install", "-q", *requirements]
            result = self.host.run(self.network.wrap(command), timeout=900, check=False)
            if not result.ok:
                raise RemoteEnvironmentError(
                    f"pip on {self.host.spec.alias} could not install {' '.join(requirements)} "
                    f"(for {', '.join(missing)}): {(result.stdout + result.stderr)[-1500:]}",
                    "check the requirement (job.packages in the config, for your job's "
                    "modules) and the platform's mirrors (config/platforms/<name>.yaml)")

    def _refuse_still_missing(self, tree: str) -> dict:
        """The environment after an install; a module still missing is refused by name (a
        requirement that installs a package under another import name, say)."""
        info = self._probe_environment(tree)
        if info["missing"]:
            needed = {**RUNTIME_MODULES, **self.extra_modules}
            raise RemoteEnvironmentError(
                f"{info['python']} on {self.host.spec.alias} still cannot import "
                f"{', '.join(info['missing'])} after installing "
                f"{' '.join(needed[module] for module in info['missing'])}",
                "name, in job.packages, the module your code imports and the requirement "
                "that provides it (lightning.pytorch: lightning==2.5.1)")
        return info

    def _probe_environment(self, tree: str) -> dict:
        code = ENV_PROBE.format(mods=sorted({**RUNTIME_MODULES, **self.extra_modules}))
        result = self.host.run([self.python, "-c", code], cwd=self.layout.code(tree), timeout=120)
        return json.loads(result.stdout.strip().splitlines()[-1])

    def probe(self, run_ids: list[str]) -> dict[str, JobStatus]:
        """The status of each job (one short SSH command for all of them); leases are renewed
        apart, by ``rgt.pool.keeper``."""
        result = self.host.run(probe_script(self.layout, run_ids), timeout=60)
        return parse_probe(result.stdout)

    def running_jobs(self) -> set[str]:
        """Every job alive under the project's root on the host, whoever launched it (a
        controller before a restart, say): one short SSH command."""
        result = self.host.run(probe_script(self.layout, None), timeout=60)
        return {key for key, status in parse_probe(result.stdout).items()
                if status.state == "running"}

    def launch(self, run_id: str, tree: str, config_name: str = REMOTE_CONFIG,
               lease: Lease | None = None) -> None:
        """Start the training of ``run_id`` detached (fenced by ``lease`` in a pool)."""
        secrets_file = self._write_secrets()
        command = [self.python, "-m", "rgt", "train", "--config", config_name,
                   "--run-id", run_id]
        if self.host_audit is not None:
            command += ["--host-audit", HOST_AUDIT]
        env = {**self.network.mirrors, "PYTHONPATH": f"{self.layout.code(tree)}/src",
               "PYTHONUNBUFFERED": "1"}
        script = launch_script(self.layout, run_id, self.layout.code(tree), command, env,
                               secrets_file, self.detach, lease)
        self.host.run(["bash", "-c", script], timeout=60)
        self._start_watchdog(tree)
        self._start_host_mirror(tree, secrets_file)

    def _start_host_mirror(self, tree: str, secrets_file: str | None) -> None:
        """Push checkpoints to the user's bucket from the host itself (``rgt host-mirror``),
        with the credentials of the secrets file in its environment."""
        if self.host_mirror is None:
            return
        argv = ["host-mirror", "--root", self.layout.root, *self.host_mirror]
        script = helper_start_script(self.layout.root, "mirror", self.python,
                                     f"{self.layout.code(tree)}/src", argv, secrets_file)
        self.host.run(["bash", "-c", script], timeout=60)

    def _start_watchdog(self, tree: str) -> None:
        """Keep heartbeats, status, the idle alarm and the spending cap going on the host when
        we are gone; the alarm webhook's URL travels as a secret (stdin, mode 600)."""
        if self.watchdog_options is None:
            return
        options = list(self.watchdog_options)
        if self.alarm_webhook:
            where = webhook_file(self.layout.root)
            self.host.run(["mkdir", "-p", "-m", "700", ".rgt-secrets"], timeout=60)
            self.host.write_secret(where, self.alarm_webhook.encode())
            options = ["--webhook-file", where, *options]  # --stop-command stays last
        script = watchdog_start_script(self.layout.root, self.python,
                                       f"{self.layout.code(tree)}/src", options)
        self.host.run(["bash", "-c", script], timeout=60)

    def launch_snakejob(self, job: SnakeJob) -> None:
        """Push a Snakemake job's sources and inputs, then run its command detached."""
        workdir = self.layout.snakejob(job.key)
        push(self.host, job.files, workdir)
        self.check_snakemake()
        script = launch_script(self.layout, job.key, workdir, ["bash", "-c", job.command],
                               {"PYTHONUNBUFFERED": "1"}, self._write_secrets(), self.detach)
        self.host.run(["bash", "-c", script], timeout=60)

    def collect_snakejob(self, job: SnakeJob, local_root: Path) -> TransferStats:
        """Pull a finished Snakemake job's products (resumable, sha256-verified)."""
        return pull(self.host, self.layout.snakejob(job.key), list(job.products), local_root)

    def check_snakemake(self) -> None:
        """The host's interpreter runs the same major Snakemake as here (installed if absent)."""
        if self._snakemake_checked:
            return
        probe = [self.python, "-c", "import snakemake; print(snakemake.__version__)"]
        found = self.host.run(probe, check=False, timeout=120)
        if not found.ok:
            self.host.run([self.python, "-m", "pip", "install", "-q",
                           f"snakemake=={snakemake.__version__}"], timeout=900)
            found = self.host.run(probe, timeout=120)
        remote = found.stdout.strip().splitlines()[-1]
        if remote.split(".")[0] != snakemake.__version__.split(".")[0]:
            raise RemoteEnvironmentError(
                f"{self.host.spec.alias} runs Snakemake {remote}, this machine "
                f"{snakemake.__version__}: a job command may not be understood there",
                f"{self.python} -m pip install snakemake=={snakemake.__version__} on the host")
        self._snakemake_checked = True

    def _write_secrets(self) -> str | None:
        if not self.secrets:
            return None
        # The instance's own home disk, never the durable (mirrored, pulled) project root.
        path = f".rgt-secrets/{Path(self.layout.root).name}.env"
        self.host.run(["mkdir", "-p", "-m", "700", ".rgt-secrets"])
        body = "".join(f"{name}={shlex.quote(value)}\n" for name, value in self.secrets.items())
        self.host.write_secret(path, body.encode())
        return path

    def verify_code(self, tree: str) -> None:
        """The code on the host is still exactly the tree pushed (before results are trusted)."""
        expected = self.pushed[tree]
        remote = remote_manifest(self.host, self.layout.code(tree), list(expected))
        changed = [rel for rel, digest in expected.items()
                   if remote.get(rel, (None, None))[1] != digest]
        if changed:
            raise RgtError(f"code on {self.host.spec.alias} differs from the local tree {tree}: "
                           f"{', '.join(changed[:5])}",
                           "someone edited the remote copy; rerun to push the code again")

    def job_log_tail(self, run_id: str, lines: int = 30) -> str:
        """The end of a job's log, for error messages."""
        result = self.host.run(["tail", "-n", str(lines), f"{self.layout.job(run_id)}/job.log"],
                               check=False, timeout=60)
        return result.stdout

    def hold_reason(self, run_id: str) -> str | None:
        """Why the host's watchdog stopped this job for good (its spending cap), or None."""
        result = self.host.run(["cat", f"{self.layout.job(run_id)}/hold"], check=False,
                               timeout=60)
        try:
            return json.loads(result.stdout)["reason"] if result.ok else None
        except (ValueError, KeyError, TypeError):
            return "held by the host's watchdog (unreadable reason)"

    def bring_back_logs(self, run_id: str, local_dir: Path) -> BroughtBack:
        """Copy the last ``LOG_TAIL_BYTES`` of a job's ``job.log`` (where tracebacks land) and of
        its run's ``train.log`` into ``local_dir``: what failed stays readable here after the
        host is gone. Best effort: a host that does not answer leaves what it could."""
        local_dir = Path(local_dir)
        local_dir.mkdir(parents=True, exist_ok=True)
        sources = {"job.log": f"{self.layout.job(run_id)}/job.log",
                   "train.log": f"{self.layout.checkpoints}/{run_id}/train.log"}
        kept = {}
        for name, remote in sources.items():
            try:
                result = self.host.run(["tail", "-c", str(LOG_TAIL_BYTES), remote], check=False,
                                       timeout=60)
            except RgtError:
                continue
            if result.ok:
                (local_dir / name).write_text(result.stdout)
                kept[name] = local_dir / name
        return BroughtBack(local_dir, kept)


@dataclass(frozen=True)
class BroughtBack:
    """The log tails copied home from a host: ``files`` by name (``job.log``, ``train.log``)."""

    directory: Path
    files: dict[str, Path]

    def tail(self) -> str:
        """The job log (its traceback), else the training log; empty when neither came."""
        for name in ("job.log", "train.log"):
            if name in self.files:
                return self.files[name].read_text(errors="replace")
        return "(no log could be read from the host)"

def lock_file(project: Path) -> dict[str, Path]:
    """The host lock of the project, pushed with the code tree when the project has one."""
    path = Path(project) / HOST_LOCK
    return {HOST_LOCK: path} if path.is_file() else {}
