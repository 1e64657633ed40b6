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
    """Runs ``rgt train`` jobs on the host named by ``--rgt-host``."""

    def __post_init__(self) -> None:
        from rgt.remote.jobs import RemoteLayout
        from rgt.remote.runner import RemoteRunner
        from rgt.remote.ssh import RemoteHost, resolve_host

        settings = self.workflow.executor_settings
        if not settings.host:
            raise WorkflowError("no host: pass --rgt-host ALIAS (an ~/.ssh/config alias)")
        if settings.detach not in DETACH_PRIMITIVES:
            raise WorkflowError(f"--rgt-detach {settings.detach!r}: use setsid or tmux")
        project = Path(self.workflow.workdir_init)
        root = settings.remote_root or f"rgt/{project.name}"
        spec = resolve_host(settings.host, settings.ssh_config)
        self.runner = RemoteRunner(RemoteHost(spec), RemoteLayout(root), settings.python,
                                   settings.detach, settings.gpu, _secret_values(settings))
        self.project = project
        self.trees: dict[str, str] = {}
        self.backoff = 0
        self._warn_first_use(settings)

    def _warn_first_use(self, settings) -> None:
        from rgt.remote.warnings_once import first_use_warnings

        try:
            lines = first_use_warnings(self.project, settings.platform, settings.host)
        except RgtError as error:
            raise WorkflowError(f"rgt: {error}") from None
        for line in lines:
            self.logger.warning(f"rgt: {line}")

    def run_job(self, job: JobExecutorInterface) -> None:
        """Deploy once, then reattach to a running job or launch it detached."""
        run_id, config_file = self._identify(job)
        try:
            tree = self._tree(config_file)
            status = self.runner.probe([run_id]).get(run_id)
            state = status.state if status else "absent"
            if state in ("running", "finished"):
                self.logger.info(f"rgt: {run_id} is {state} on {self._host} "
                                 f"(launched {status.launches}x): reattached, not relaunched")
            else:
                self.runner.launch(run_id, tree)
                self.logger.info(f"rgt: launched {run_id} on {self._host} (detached)")
        except RgtError as error:
            raise WorkflowError(f"rgt: cannot start {run_id} on {self._host}: {error}") from None
        self.report_job_submission(SubmittedJobInfo(job, external_jobid=run_id,
                                                    aux={"tree": tree}))

    def _identify(self, job: JobExecutorInterface) -> tuple[str, str]:
        if job.is_group() or job.rule.name not in REMOTE_RULES:
            raise WorkflowError(f"rgt: rule {job.rule.name} cannot run on a rented host; "
                                "declare it in the Snakefile's localrules")
        return job.format_wildcards("{wildcards.run_id}"), job.format_wildcards("{params.config}")

    def _tree(self, config_file: str) -> str:
        if config_file not in self.trees:
            self._audit(self.project / config_file)
            self.trees[config_file] = self.runner.deploy(self.project / config_file)
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
        outputs = [Path(path) for path in job.job.output]
        try:
            self.runner.verify_code(job.aux["tree"])
            stats = self.runner.collect(job.external_jobid, [p.name for p in outputs],
                                        outputs[0].parent)
        except RgtError as error:
            self.report_job_error(job, msg=f"rgt: pulling {job.external_jobid} failed: {error}")
            return
        self.logger.info(f"rgt: pulled {job.external_jobid} ({stats.bytes_sent} bytes, "
                         f"{stats.files_skipped} already here), sha256 verified")
        self.report_job_success(job)

    def _fail(self, job: SubmittedJobInfo, state: str) -> None:
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
        self.runner.host.close()


def _secret_values(settings) -> dict[str, str]:
    """The values of the named secrets that are set here (unset ones are simply not sent)."""
    return {name: os.environ[name] for name in settings.secrets if name in os.environ}
