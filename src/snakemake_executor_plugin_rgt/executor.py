"""The executor: submit = deploy + probe + (re)attach or launch; poll = one probe for all jobs."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator
from pathlib import Path

from snakemake_interface_common.exceptions import WorkflowError
from snakemake_interface_executor_plugins.executors.base import SubmittedJobInfo
from snakemake_interface_executor_plugins.executors.remote import RemoteExecutor
from snakemake_interface_executor_plugins.jobs import JobExecutorInterface

from rgt.errors import RgtError

# rgt.remote (paramiko, torch-free but not tiny) is imported when the executor is used, not when
# Snakemake collects plugins at every start: a problem there must never break `--profile local`.
DETACH_PRIMITIVES = ("setsid", "tmux")
REMOTE_RULES = ("train",)
MAX_BACKOFF_S = 300


class Executor(RemoteExecutor):
    """Runs ``rgt train`` jobs (and any other job sent to it) on the host ``--rgt-host``."""

    def __post_init__(self) -> None:
        from rgt.remote.jobs import RemoteLayout
        from rgt.remote.runner import RemoteRunner
        from rgt.remote.ssh import RemoteHost, resolve_host

        settings = self.workflow.executor_settings
        if not settings.host:
            raise WorkflowError("no host: pass --rgt-host ALIAS (an ~/.ssh/config alias)")
        if settings.detach not in DETACH_PRIMITIVES:
            raise WorkflowError(f"--rgt-detach {settings.detach!r}: use setsid or tmux")
        self.project = Path(self.workflow.workdir_init)
        entry = self._host_entry(settings)
        # The same root `rgt watch`, `rgt pull` and `rgt down` read (config/hosts.yaml's, or
        # rgt/<project>), unless the profile names one.
        root = settings.remote_root or entry.root(self.project)
        spec = resolve_host(settings.host, settings.ssh_config)
        self.runner = RemoteRunner(RemoteHost(spec), RemoteLayout(root), settings.python,
                                   settings.detach, settings.gpu, _secret_values(settings))
        self.trees: dict[str, str] = {}
        self.backoff = 0
        self._warn_first_use(settings)
        self.runner.watchdog_options = self._watchdog_options(entry)
        self.platform_facts = self._platform_facts(entry)
        self.mirror = None  # the mirror loop, made with the first training job's config

    def _warn_first_use(self, settings) -> None:
        from rgt.remote.warnings_once import first_use_warnings

        try:
            lines = first_use_warnings(self.project, settings.platform, settings.host)
        except RgtError as error:
            raise WorkflowError(f"rgt: {error}") from None
        for line in lines:
            self.logger.warning(f"rgt: {line}")

    def _host_entry(self, settings):
        """The host's entry in config/hosts.yaml, or the defaults for an unregistered alias."""
        from rgt.hosts import HostEntry, load_hosts

        try:
            hosts = load_hosts(self.project / "config" / "hosts.yaml")
        except RgtError as error:
            raise WorkflowError(f"rgt: {error}") from None
        return hosts.get(settings.host) or HostEntry(settings.host, settings.platform)

    def _watchdog_options(self, entry) -> list[str]:
        """The watchdog's limits and auto-stop opt-in for this host."""
        from rgt.watch.start import watchdog_options

        return watchdog_options(entry, self._platform_facts(entry))

    def _platform_facts(self, entry) -> dict:
        from rgt.platforms.facts import load_platform, project_platforms

        try:
            return load_platform(entry.platform, project_platforms(self.project))
        except RgtError as error:
            raise WorkflowError(f"rgt: {error}") from None

    def run_job(self, job: JobExecutorInterface) -> None:
        """Deploy once, then reattach to a running (or finished) job or launch it detached.

        ``rgt train`` jobs run the project's trainer against its pushed code tree; any other
        job runs Snakemake's own job command in a working directory of its own.
        """
        if not job.is_group() and job.rule.name in REMOTE_RULES:
            self._run_training(job)
        else:
            self._run_snakejob(job)

    def _run_training(self, job: JobExecutorInterface) -> None:
        run_id = job.format_wildcards("{wildcards.run_id}")
        config_file = job.format_wildcards("{params.config}")
        try:
            tree = self._tree(config_file)
            target = self._mirror_target(run_id, config_file)
            self._attach_or_launch(run_id, lambda: self._seed_and_launch(run_id, tree, target))
            if target is not None:
                self.mirror.watch(target)
        except RgtError as error:
            raise WorkflowError(f"rgt: cannot start {run_id} on {self._host}: {error}") from None
        self.report_job_submission(SubmittedJobInfo(job, external_jobid=run_id,
                                                    aux={"tree": tree}))

    def _mirror_target(self, run_id: str, config_file: str):
        """Where this run's checkpoints are mirrored (None: mirroring is off)."""
        from rgt.config import load_config
        from rgt.mirror import setup
        from rgt.remote.ssh import RemoteHost

        settings = self.workflow.executor_settings
        config = load_config(self.project / config_file)
        root = setup.mirror_root(settings.mirror, self.project, config)
        if root is None:
            return None
        if self.mirror is None:
            spec = self.runner.host.spec
            self.mirror = setup.new_loop(lambda: RemoteHost(spec), settings.python,
                                         settings.mirror_every,
                                         setup.mtbf_hours(self.platform_facts, config),
                                         self.logger.info)
        return setup.target(run_id, self.runner.layout, root)

    def _seed_and_launch(self, run_id: str, tree: str, target) -> None:
        """A host without the run's newest checkpoint gets the mirror's first, then the job."""
        from rgt.mirror.sync import seed_host

        if target is not None:
            step = seed_host(self.runner.host, self.runner.python, target)
            if step is not None:
                self.logger.info(f"rgt: {run_id}: pushed the mirrored checkpoint of step "
                                 f"{step} to {self._host}; training resumes from it")
        self.runner.launch(run_id, tree)

    def _run_snakejob(self, job: JobExecutorInterface) -> None:
        from rgt.remote.snakejobs import snake_job

        try:
            spec = snake_job(self.project, job.rules, self._sources(), job.input,
                             _products(job), self.format_job_exec(job))
            self._attach_or_launch(spec.key, lambda: self.runner.launch_snakejob(spec))
        except RgtError as error:
            raise WorkflowError(f"rgt: cannot start {job} on {self._host}: {error}") from None
        self.report_job_submission(SubmittedJobInfo(job, external_jobid=spec.key,
                                                    aux={"snakejob": spec}))

    def _attach_or_launch(self, key: str, launch) -> None:
        status = self.runner.probe([key]).get(key)
        state = status.state if status else "absent"
        if state in ("running", "finished"):
            self.logger.info(f"rgt: {key} is {state} on {self._host} "
                             f"(launched {status.launches}x): reattached, not relaunched")
        else:
            launch()
            self.logger.info(f"rgt: launched {key} on {self._host} (detached)")

    def _sources(self) -> list[str]:
        """The workflow's own files (Snakefile, rules, scripts, configs) below the workdir."""
        sources = sorted(self.workflow.dag.get_sources())
        for outside in (path for path in sources if path.startswith("..")):
            self.logger.warning(f"rgt: {outside} lies outside the working directory and is "
                                "not sent to the host")
        return [path for path in sources if not path.startswith("..")]

    def additional_general_args(self) -> str:
        # A later --directory overrides the local path Snakemake passes: the job runs in its
        # own directory on the host, which the launcher enters first.
        return "--directory ."

    def get_python_executable(self) -> str:
        """The host's interpreter runs Snakemake's job command there."""
        return self.workflow.executor_settings.python

    def _tree(self, config_file: str) -> str:
        if config_file not in self.trees:
            self._audit(self.project / config_file)
            self.trees[config_file] = self.runner.deploy(self.project / config_file,
                                                         self.project)
        return self.trees[config_file]

    def _audit(self, config_file: Path) -> None:
        """Refuse to launch anything when the planned checkpoints cannot fit on the host."""
        from rgt.atomic import write_json
        from rgt.remote.up import audit_path

        record = self.runner.audit(config_file)
        write_json(audit_path(self.project, self._host), record)
        self.logger.info(f"rgt: {self._host}: {record['budget']['summary'].splitlines()[0]}")

    @property
    def _host(self) -> str:
        return self.runner.host.spec.alias

    async def check_active_jobs(self, active_jobs: list[SubmittedJobInfo]
                                ) -> AsyncGenerator[SubmittedJobInfo, None]:
        """Probe every active job at once; an unreachable host leaves every state unknown."""
        try:
            async with self.status_rate_limiter:
                statuses = self.runner.probe([job.external_jobid for job in active_jobs])
        except RgtError as error:
            self._back_off(error)
            for job in active_jobs:
                yield job
            return
        self.backoff = 0
        for job in active_jobs:
            status = statuses.get(job.external_jobid)
            if status is None or status.state == "running":
                yield job
            elif status.state == "finished":
                self._finish(job)
            else:
                self._fail(job, status.state)

    def _back_off(self, error: Exception) -> None:
        self.backoff = min(MAX_BACKOFF_S, max(10, 2 * self.backoff))
        self.next_seconds_between_status_checks = self.backoff
        self.logger.warning(f"rgt: {self._host} unreachable ({error}); job states unknown, "
                            f"not changed; retrying in {self.backoff} s")

    def _finish(self, job: SubmittedJobInfo) -> None:
        self._stop_mirroring(job)
        try:
            stats = self._collect(job)
        except RgtError as error:
            self.report_job_error(job, msg=f"rgt: pulling {job.external_jobid} failed: {error}")
            return
        self.logger.info(f"rgt: pulled {job.external_jobid} ({stats.bytes_sent} bytes, "
                         f"{stats.files_skipped} already here), sha256 verified")
        self.report_job_success(job)

    def _collect(self, job: SubmittedJobInfo):
        if "snakejob" in job.aux:
            return self.runner.collect_snakejob(job.aux["snakejob"], self.project)
        outputs = [Path(path) for path in job.job.output]
        self.runner.verify_code(job.aux["tree"])
        return self.runner.collect(job.external_jobid, [p.name for p in outputs],
                                   outputs[0].parent)

    def _stop_mirroring(self, job: SubmittedJobInfo) -> None:
        if self.mirror is not None:
            self.mirror.forget(job.external_jobid)

    def _fail(self, job: SubmittedJobInfo, state: str) -> None:
        self._stop_mirroring(job)
        advice = {"preempted": "it checkpointed on SIGTERM/SIGUSR1",
                  "dead": "its process vanished (killed or host rebooted)"}.get(state, "it failed")
        tail = self.runner.job_log_tail(job.external_jobid)
        self.report_job_error(job, msg=f"rgt: {job.external_jobid} on {self._host}: {advice}; "
                                       f"rerun snakemake to resume from its last checkpoint.\n"
                                       f"{tail}")

    def cancel_jobs(self, active_jobs: list[SubmittedJobInfo]) -> None:
        """Interrupting Snakemake leaves remote jobs running: that is the point of detaching."""
        for job in active_jobs:
            self.logger.info(f"rgt: {job.external_jobid} keeps running on {self._host}; "
                             "rerun snakemake to reattach")

    def shutdown(self) -> None:
        super().shutdown()
        if self.mirror is not None:
            self.mirror.stop()
        self.runner.host.close()


def _products(job: JobExecutorInterface) -> list[str]:
    """Every file a job (or each job of a group) makes: outputs, logs, benchmarks."""
    jobs = job.jobs if job.is_group() else [job]
    return sorted({str(path) for member in jobs for path in member.products()})


def _secret_values(settings) -> dict[str, str]:
    """The values of the named secrets that are set here (unset ones are simply not sent)."""
    return {name: os.environ[name] for name in settings.secrets if name in os.environ}
