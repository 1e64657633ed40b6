"""The executor: submit = place on a host of the pool (deploy, reattach or launch, or queue);
poll = one probe per host for its jobs, then place what waits."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING

from snakemake_interface_common.exceptions import WorkflowError
from snakemake_interface_executor_plugins.executors.base import SubmittedJobInfo
from snakemake_interface_executor_plugins.executors.remote import RemoteExecutor
from snakemake_interface_executor_plugins.jobs import JobExecutorInterface

from rgt.base.errors import RgtError
from rgt.pool import SlotsTaken
from rgt.pool.relaunch import ended_how, relaunch_policy

if TYPE_CHECKING:
    from rgt.config import Config

DETACH_PRIMITIVES = ("setsid", "tmux")
EXPORT = "export"  # where verified bundles go: `rgt pull`'s and `rgt down`'s default
REMOTE_RULES = ("train",)


class Executor(RemoteExecutor):
    """Runs ``rgt train`` jobs (and any other job sent to it) on the hosts of ``--rgt-host``."""

    def __post_init__(self) -> None:
        # Here, not at the top: Snakemake imports every installed plugin at each start, and the
        # host code (paramiko, rgt.remote, rgt.pool) costs 0.7 s there (measured) and must never
        # break `--profile local`.
        from snakemake_executor_plugin_rgt.pool import Pool
        from snakemake_executor_plugin_rgt.progress import ProgressReporter

        settings = self.workflow.executor_settings
        if settings.detach not in DETACH_PRIMITIVES:
            raise WorkflowError(f"--rgt-detach {settings.detach!r}: use setsid or tmux")
        self.project = Path(self.workflow.workdir_init)
        try:
            self.relaunch = relaunch_policy(settings.retries, settings.retry_backoff)
            self.pool = Pool.open(settings, self.project, _secret_values(settings),
                                  self.logger.warning, self.logger.info)
        except RgtError as error:
            raise WorkflowError(f"rgt: {error}") from None
        # run_job (Snakemake's scheduler thread) and the polls (its wait thread) both place
        # jobs: one at a time, so a slot is never given twice.
        self._placing = threading.Lock()
        self._progress = ProgressReporter(self.logger.info)
        self._warn_small_jobs_setting()

    @property
    def stations(self) -> dict:
        return self.pool.stations

    def _warn_small_jobs_setting(self) -> None:
        slots = self.pool.slots()
        jobs = self.workflow.resource_settings.nodes
        if len(self.stations) > 1 and isinstance(jobs, int) and jobs < slots:
            self.logger.warning(f"rgt: the pool has {slots} slots but --jobs is {jobs}: pass "
                                f"--jobs {slots} to keep every host busy")

    def run_job(self, job: JobExecutorInterface) -> None:
        """Place the job on a host now, or queue it until a slot frees.

        ``rgt train`` jobs run the project's trainer against its pushed code tree; any other
        job runs Snakemake's own job command in a working directory of its own.
        """
        if not job.is_group() and job.rule.name in REMOTE_RULES:
            info = SubmittedJobInfo(job, external_jobid=job.format_wildcards(
                "{wildcards.run_id}"), aux={"host": None, "config": job.format_wildcards(
                    "{params.config}")})
            self._place_training(info)
        else:
            info = self._run_snakejob(job)
        self.report_job_submission(info)

    def _place_training(self, info: SubmittedJobInfo) -> bool:
        """Start the job on the station that takes it; False when it must wait."""
        run_id = info.external_jobid
        # The config the Snakefile validated in this process: never read again here.
        config = self.pool.config(info.aux["config"])
        with self._placing:
            self._prepare_pool(config)
            station = self.pool.choose(run_id)
            if station is None:
                return False
            try:
                info.aux.update(host=station.alias,
                                tree=self.pool.start_training(station, run_id, config))
                return True
            except SlotsTaken:
                return False  # the host's slots are held by jobs placed before a restart
            except RgtError as error:
                failure = error
        self._placement_failed(station, run_id, failure)
        return False

    def _prepare_pool(self, config: Config) -> None:
        """Every host audited and deployed at once, before the first placement."""
        for alias, error in self.pool.prepare(config).items():
            if not self.pool.is_unreachable(error):
                raise WorkflowError(f"rgt: {alias}: {error}") from None
            self.stations[alias].mark_unreachable(error)

    def _placement_failed(self, station, run_id: str, error: RgtError) -> None:
        """A silent host: the job waits (for another host, or for this one to answer, up to
        --rgt-unreachable-timeout when it never has); any other refusal fails the run."""
        if not self.pool.is_unreachable(error):
            raise WorkflowError(f"rgt: cannot start {run_id} on {station.alias}: "
                                f"{error}") from None
        station.mark_unreachable(error)
        limit = self.workflow.executor_settings.unreachable_timeout
        if not station.reached and station.unreachable_for() >= limit:
            raise WorkflowError(f"rgt: {station.alias} still unreachable after "
                                f"{station.unreachable_for():.0f} s, never reached: giving up "
                                f"on {run_id} (--rgt-unreachable-timeout {limit:g}). Check "
                                f"`ssh {station.alias} true`, then rerun") from None

    def _run_snakejob(self, job: JobExecutorInterface) -> SubmittedJobInfo:
        station = self.pool.freest()
        try:
            spec = self.pool.start_snakejob(station, job.rules, self._sources(), job.input,
                                            _products(job), self.format_job_exec(job))
        except RgtError as error:
            raise WorkflowError(f"rgt: cannot start {job} on {station.alias}: "
                                f"{error}") from None
        return SubmittedJobInfo(job, external_jobid=spec.key,
                                aux={"snakejob": spec, "host": station.alias})

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
        """The recorded interpreter of the host that takes the job (the freest, as in
        ``_run_snakejob``) runs Snakemake's job command there."""
        return self.pool.freest().runner.python

    async def check_active_jobs(self, active_jobs: list[SubmittedJobInfo]
                                ) -> AsyncGenerator[SubmittedJobInfo, None]:
        """Probe each host once for its jobs, move a silent host's jobs after the grace,
        then place the jobs that wait. An unreachable host leaves its jobs' states unknown."""
        async with self.status_rate_limiter:
            waiting = [job for job in active_jobs if job.aux["host"] is None]
            for alias, jobs in _by_host(active_jobs).items():
                for job in self._check_station(self.stations[alias], jobs, waiting):
                    yield job
            for job in waiting:
                if job.aux.get("not_before", 0.0) > time.monotonic():
                    yield job  # a relaunch waiting out its back-off
                    continue
                try:
                    self._place_training(job)
                except WorkflowError as error:
                    self.report_job_error(job, msg=str(error))
                    continue
                yield job

    def _check_station(self, station, jobs: list[SubmittedJobInfo],
                       waiting: list[SubmittedJobInfo]):
        """The jobs of one host that stay active; finished and failed ones are reported."""
        statuses = station.probe([job.external_jobid for job in jobs])
        if statuses is None:
            if self.pool.overdue(station):
                self._move_away(station, jobs, waiting)
                return []
            return jobs
        active = []
        for job in jobs:
            status = statuses.get(job.external_jobid)
            if status is None or status.state == "running":
                active.append(job)
            elif status.state == "finished":
                self._finish(station, job)
            elif not self._relaunch(station, job, status.state, waiting):
                self._fail(station, job, status)
        self._report_progress(station, [job.external_jobid for job in active
                                        if "snakejob" not in job.aux])
        return active

    def _report_progress(self, station, run_ids: list[str]) -> None:
        """Step, loss and ETA of the host's training jobs, now and then (best effort: a
        failed read changes nothing)."""
        from snakemake_executor_plugin_rgt.progress import progress_script  # see __post_init__

        if not run_ids or not self._progress.due(station.alias):
            return
        try:
            reply = station.runner.host.run(
                progress_script(station.runner.layout.root, run_ids), timeout=30)
        except RgtError:
            return
        self._progress.show(station.alias, reply.stdout)

    def _move_away(self, station, jobs: list[SubmittedJobInfo],
                   waiting: list[SubmittedJobInfo]) -> None:
        """A host silent past the grace: its training jobs wait for another host (fenced
        there by now, resumed from their mirror); other jobs fail (nothing to resume)."""
        for job in jobs:
            station.release(job.external_jobid)
            if "snakejob" in job.aux:
                self.report_job_error(job, msg=f"rgt: {station.alias} silent for "
                                               f"{station.unreachable_for():.0f} s")
                continue
            grace = self.pool.policy.grace_seconds
            self.logger.warning(f"rgt: {station.alias} silent for "
                                f"{station.unreachable_for():.0f} s (past the {grace:g} s "
                                f"grace): {job.external_jobid} moves to another host and "
                                "resumes from its mirror")
            job.aux["host"] = None
            waiting.append(job)

    def _finish(self, station, job: SubmittedJobInfo) -> None:
        try:
            what = self._collect(station, job)
        except RgtError as error:
            self.report_job_error(job, msg=f"rgt: pulling {job.external_jobid} failed: {error}")
            return
        finally:
            station.release(job.external_jobid)
        self.logger.info(f"rgt: pulled {job.external_jobid} from {station.alias} ({what}), "
                         "sha256 verified")
        self.report_job_success(job)

    def _collect(self, station, job: SubmittedJobInfo) -> str:
        """Pull what a finished job made; what crossed the wire, in words. A training job comes
        home as a verified bundle in export/<run-id> (what `rgt down` accepts)."""
        if "snakejob" in job.aux:
            stats = station.runner.collect_snakejob(job.aux["snakejob"], self.project)
            return f"{stats.bytes_sent} bytes, {stats.files_skipped} already here"
        outputs = [Path(path) for path in job.job.output]
        station.runner.verify_code(job.aux["tree"])
        pulled = station.bring_home(job.external_jobid, outputs, self.project / EXPORT)
        kind = "weights-only bundle" if pulled.manifest.get("weights_only") else "bundle"
        if pulled.stats is None:
            return f"{kind} already in {EXPORT}/"
        return (f"{kind}: {pulled.stats.bytes_sent} bytes, {pulled.stats.files_skipped} "
                f"already here, into {EXPORT}/{job.external_jobid}")

    def _relaunch(self, station, job: SubmittedJobInfo, state: str,
                  waiting: list[SubmittedJobInfo]) -> bool:
        """A preempted or vanished training job waits out its back-off, then is placed again
        (it resumes from its newest checkpoint or mirror); False when the policy says no."""
        relaunched = job.aux.get("relaunches", 0)
        if "snakejob" in job.aux or not self.relaunch.allows(state, relaunched):
            return False
        held = station.runner.hold_reason(job.external_jobid) if state == "preempted" else None
        if held:
            job.aux["held"] = held
            return False
        station.release(job.external_jobid)
        delay = self.relaunch.delay(relaunched + 1)
        job.aux.update(host=None, relaunches=relaunched + 1,
                       not_before=time.monotonic() + delay)
        waiting.append(job)
        cause = {"preempted": "was preempted (exit 75, checkpointed)",
                 "dead": "vanished (its process is gone, no exit code)"}[state]
        self.logger.warning(f"rgt: {job.external_jobid} on {station.alias} {cause}: relaunching "
                            f"in {delay:.0f} s (relaunch {relaunched + 1} of "
                            f"{self.relaunch.retries}); it resumes from its newest checkpoint")
        return True

    def _fail(self, station, job: SubmittedJobInfo, status) -> None:
        """Report a job that ended for good, with its log's tail (brought back here)."""
        station.release(job.external_jobid)
        run_id = job.external_jobid
        how = ended_how(status.state, status.exit_code, job.aux.get("relaunches", 0),
                        self.relaunch, job.aux.get("held"))
        logs = station.runner.bring_back_logs(run_id, self.project / ".rgt" / "logs" / run_id)
        tail = "\n".join(logs.tail().splitlines()[-30:])
        self.report_job_error(job, msg=f"rgt: {run_id} on {station.alias}: {how}.\n{tail}\n"
                                       f"(the end of its logs is in {logs.directory})")

    def cancel_jobs(self, active_jobs: list[SubmittedJobInfo]) -> None:
        """Interrupting Snakemake leaves remote jobs running: that is the point of detaching."""
        for job in active_jobs:
            if job.aux["host"] is None:
                self.logger.info(f"rgt: {job.external_jobid} never started (no host reached); "
                                 "rerun snakemake to place it")
                continue
            self.logger.info(f"rgt: {job.external_jobid} keeps running on {job.aux['host']}; "
                             "rerun snakemake to reattach")

    def shutdown(self) -> None:
        super().shutdown()
        for station in self.stations.values():
            station.close()


def _by_host(jobs: list[SubmittedJobInfo]) -> dict[str, list[SubmittedJobInfo]]:
    grouped: dict[str, list[SubmittedJobInfo]] = {}
    for job in jobs:
        if job.aux["host"] is not None:
            grouped.setdefault(job.aux["host"], []).append(job)
    return grouped


def _products(job: JobExecutorInterface) -> list[str]:
    """Every file a job (or each job of a group) makes: outputs, logs, benchmarks."""
    jobs = job.jobs if job.is_group() else [job]
    return sorted({str(path) for member in jobs for path in member.products()})


def _secret_values(settings) -> dict[str, str]:
    """The values of the named secrets that are set here (unset ones are simply not sent)."""
    return {name: os.environ[name] for name in settings.secrets if name in os.environ}
