"""Remote training jobs as files on the host's durable disk: launch detached, probe, parse.

A job is keyed by its run id, so a restarted controller finds the job it launched before:

    <root>/jobs/<run-id>/launches    how many times it was launched (the proof of no relaunch)
    <root>/jobs/<run-id>/pid         the detached process
    <root>/jobs/<run-id>/exit_code   written by the job itself when it ends
    <root>/jobs/<run-id>/job.log     its stdout and stderr

This module only builds shell text and parses replies; ``rgt.remote.runner`` talks to the host.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

EXIT_PREEMPTED = 75


@dataclass(frozen=True)
class RemoteLayout:
    """Where a project's code, runs, checkpoints and jobs live on the host."""

    root: str

    def code(self, tree: str) -> str:
        """The pushed code tree (one directory per tree hash: old jobs keep their code)."""
        return f"{self.root}/code/{tree}"

    def job(self, run_id: str) -> str:
        """The job record directory of a run (or of a Snakemake job, by its key)."""
        return f"{self.root}/jobs/{run_id}"

    def snakejob(self, key: str) -> str:
        """The working directory of a Snakemake job: its workflow sources and inputs."""
        return f"{self.root}/snakejobs/{key}"

    @property
    def data_cache(self) -> str:
        """A job's declared data, one file per content, named by its sha256."""
        return f"{self.root}/data-cache"

    @property
    def runs(self) -> str:
        return f"{self.root}/runs"

    @property
    def checkpoints(self) -> str:
        return f"{self.root}/checkpoints"


@dataclass(frozen=True)
class JobStatus:
    """What the host says about one job; ``state`` is computed, never guessed."""

    run_id: str
    pid: int | None
    alive: bool
    exit_code: int | None
    launches: int
    lease_epoch: int | None = None

    @property
    def state(self) -> str:
        """``absent``, ``running``, ``finished``, ``preempted``, ``failed`` or ``dead``."""
        if self.launches == 0 and self.pid is None:
            return "absent"
        if self.exit_code is not None:
            return {0: "finished", EXIT_PREEMPTED: "preempted"}.get(self.exit_code, "failed")
        return "running" if self.alive else "dead"


@dataclass(frozen=True)
class Lease:
    """A pool's claim on a job: its placement ``epoch`` and how long it holds unrenewed.

    The job's ``lease`` file holds ``EPOCH EXPIRES`` (Unix seconds); each probe of the
    controller renews it. A job whose lease expires is sent SIGTERM by its fence (it
    checkpoints and exits as preempted), so once the controller has not reached a host for
    longer than ``seconds`` it may start the job elsewhere without two copies running.
    """

    epoch: int
    seconds: int


def launch_script(layout: RemoteLayout, run_id: str, workdir: str, command: list[str],
                  env: dict[str, str], secrets_file: str | None, detach: str,
                  lease: Lease | None = None) -> str:
    """Shell text that records a launch and starts ``command`` in ``workdir`` detached, then
    returns."""
    job = shlex.quote(layout.job(run_id))
    inner = _job_body(layout, run_id, workdir, command, env, secrets_file, lease is not None)
    lines = [
        "set -eu",
        f"mkdir -p {job}",
        f"n=$(cat {job}/launches 2>/dev/null || echo 0); echo $((n + 1)) > {job}/launches",
        f"rm -f {job}/exit_code {job}/pid {job}/fenced {job}/hold",
    ]
    if lease is not None:
        lines.append(f"echo {lease.epoch} $(( $(date +%s) + {lease.seconds} )) > {job}/lease")
    lines.append(_detached(inner, job, run_id, detach))
    return "\n".join(lines) + "\n"


def _fence() -> str:
    """Background loop: SIGTERM the job ($child) once its lease ($J/lease) has expired."""
    return ("( while kill -0 $child 2>/dev/null; do sleep 1; "
            'read e x < "$J/lease" 2>/dev/null || continue; '
            'if [ "$(date +%s)" -gt "$x" ]; then echo "$e $(date +%s)" > "$J/fenced"; '
            "kill -TERM $child; break; fi; done ) &")


def _job_body(layout: RemoteLayout, run_id: str, workdir: str, command: list[str],
              env: dict[str, str], secrets_file: str | None, fenced: bool = False) -> str:
    exports = [f"export {name}={shlex.quote(value)}" for name, value in sorted(env.items())]
    if secrets_file:
        # Values reach the job through its environment, read from a mode-600 file: never argv.
        exports.append(f"set -a; . {shlex.quote(secrets_file)}; set +a")
    run = " ".join(shlex.quote(part) for part in command)
    if fenced:
        # The child runs in the background so the fence can signal it alone; the shell
        # forwards SIGTERM/SIGUSR1 to it and waits until it has really ended.
        run = (f"{run} & child=$!; trap 'kill -TERM $child 2>/dev/null' TERM USR1; "
               f"{_fence()} while :; do wait $child; rc=$?; "
               "kill -0 $child 2>/dev/null || break; done; (exit $rc)")
    # The job directory as an absolute path before the cd: a root relative to the home
    # directory (the default) must still reach it.
    return "; ".join([
        f"J=$(cd {shlex.quote(layout.job(run_id))} && pwd)", f"cd {shlex.quote(workdir)}",
        *exports, run, 'echo $? > "$J/exit_code.tmp"', 'mv "$J/exit_code.tmp" "$J/exit_code"',
    ])


def _detached(inner: str, job: str, run_id: str, detach: str) -> str:
    # The run id is in the detached process's argv so the probe can tell it from a reused pid.
    body = shlex.quote(f": rgt-job {run_id}; {inner}")
    if detach == "tmux":
        session = shlex.quote(f"rgt-{run_id}")
        body = shlex.quote(f": rgt-job {run_id}; exec >> {job}/job.log 2>&1; {inner}")
        # -P -F prints the pane's pid as the session is created: a job that ends at once
        # (an import error) cannot race a separate display-message call.
        return (f"tmux new-session -d -P -F '#{{pane_pid}}' -s {session} bash -c {body} "
                f"> {job}/pid")
    return (f"setsid nohup bash -c {body} > {job}/job.log 2>&1 < /dev/null & "
            f"echo $! > {job}/pid")


def probe_script(layout: RemoteLayout, run_ids: list[str] | None, renew_seconds: int = 0
                 ) -> str:
    """Shell text printing one line per job:
    ``<run-id> <pid|-> <alive 0|1> <exit|-> <n> <lease epoch|->``.

    ``run_ids`` None probes every job the host has a record of (what a restarted controller
    counts before it takes a slot). With ``renew_seconds``, each job's lease (if it has one) is
    renewed for that long first.
    """
    root = shlex.quote(f"{layout.root}/jobs")
    ids = (" ".join(shlex.quote(run_id) for run_id in run_ids) if run_ids is not None
           else f"$(ls {root} 2>/dev/null)")
    renew = ('if read e x < "$j/lease" 2>/dev/null; then '
             f'echo "$e $(( $(date +%s) + {int(renew_seconds)} ))" > "$j/lease.tmp" && '
             'mv "$j/lease.tmp" "$j/lease"; fi; ') if renew_seconds else ""
    return (
        f"for id in {ids}; do j={root}/$id; {renew}"
        'pid=$(cat "$j/pid" 2>/dev/null || echo -); '
        'n=$(cat "$j/launches" 2>/dev/null || echo 0); alive=0; '
        # The job is its whole process group (setsid/tmux make the launcher its leader): it is
        # alive while any member still carries the run id, even if the leader was killed.
        'if [ "$pid" != - ]; then for p in $(pgrep -g "$pid" 2>/dev/null); do '
        'grep -qa -- "$id" "/proc/$p/cmdline" 2>/dev/null && alive=1; done; fi; '
        # Read after the liveness check: a job that ends in between has written its exit code
        # by then, so it is never mistaken for one that vanished.
        'code=$(cat "$j/exit_code" 2>/dev/null || echo -); '
        'epoch=$(cut -d" " -f1 "$j/lease" 2>/dev/null || echo -); '
        'echo "$id $pid $alive $code $n ${epoch:--}"; done\n'
    )


def parse_probe(text: str) -> dict[str, JobStatus]:
    """Parse the probe's lines; a malformed line is skipped (its job stays unknown)."""
    statuses = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) not in (5, 6) or not parts[4].isdigit():
            continue
        run_id, pid, alive, code, launches = parts[:5]
        epoch = _int_or_none(parts[5]) if len(parts) == 6 else None
        statuses[run_id] = JobStatus(run_id, _int_or_none(pid), alive == "1",
                                     _int_or_none(code), int(launches), epoch)
    return statuses


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
