"""Multi-process training, launcher side: ``rgt train`` starts its own workers.

With ``train.processes > 1`` the one command a Snakemake rule (or the remote executor) runs
starts ``python -m torch.distributed.run --standalone --nproc_per_node N -m rgt train ...``
and watches it. When a rank fails, dies or hangs, the others cannot go on (the process group is
broken): after a short grace they are stopped, and the run fails with a message naming the
rank, recorded in ``status.json``. SIGTERM/SIGUSR1 are forwarded to every rank, which agree on
a step, checkpoint and exit 75 — and so does the launcher.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.errors import ConfigError, RgtError
from rgt.base.files import read_json, write_json
from rgt.base.processes import pid_alive
from rgt.train.distributed import RANKS_DIR, REPORTS_ENV, report_path
from rgt.train.platform import thread_environment
from rgt.train.preemption import EXIT_PREEMPTED, preemption_flag

POLL_S = 0.2
# Once one rank has ended badly the group is broken; the survivors only get time to finish a
# checkpoint write already under way (it is atomic, so even a kill would not tear it).
GRACE_S = 3.0


class DistributedFailure(RgtError):
    """A rank of a multi-process run failed, died or hung."""


def launch_command(config: str, run_id: str, processes: int,
                   host_audit: str | None = None) -> list[str]:
    """The torch launcher command that runs ``rgt train`` once per rank on this node."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc_per_node", str(processes), "--max_restarts", "0",
               "--monitor_interval", "0.5",
               "-m", "rgt", "train", "--config", config, "--run-id", run_id]
    return command + (["--host-audit", host_audit] if host_audit else [])


def launch(command: list[str], state_dir: Path, processes: int, timeout_s: float,
           threads: int) -> int:
    """Run the workers to the end; 0 finished, 75 preempted, else ``DistributedFailure``."""
    reports_dir = (Path(state_dir) / RANKS_DIR).absolute()
    _clear_reports(reports_dir)
    env = {**os.environ, **thread_environment(threads), REPORTS_ENV: str(reports_dir)}
    with preemption_flag() as flag:
        process = subprocess.Popen(command, env=env, preexec_fn=_die_with_parent())
        try:
            stopped = _watch(process, reports_dir, processes, flag)
        finally:
            if process.poll() is None:  # the launcher itself is being torn down
                process.terminate()
                process.wait(timeout=60)
    reports = read_reports(reports_dir, processes)
    if process.returncode == 0:
        return 0
    if reports and all(r and r["state"] in ("preempted", "finished") for r in reports.values()):
        return EXIT_PREEMPTED
    message = diagnose(reports, timeout_s, stopped)
    _record_failure(state_dir, message)
    with open(Path(state_dir) / "train.log", "a", encoding="utf-8") as log:
        log.write(f"{utc_now()} ERROR {message}\n")
    raise failure(message, reports, state_dir)


def failure(message: str, reports: dict[int, dict | None], state_dir: Path) -> RgtError:
    """The error a failed launch ends with: a rank's config error with that config fix alone
    (rerunning cannot help), else a ``DistributedFailure`` that says a rerun resumes."""
    refused = [r for r in reports.values() if r and r["state"] == "failed"
               and r.get("config_error")]
    if refused:
        return ConfigError(message, refused[0].get("fix") or "correct the config named above")
    return DistributedFailure(
        message, "rerun the same command: every rank resumes from the newest complete "
                 f"checkpoint in {state_dir}. If the same rank fails again, fix its cause (its "
                 "own output and torch's launcher summary are above); a step that legitimately "
                 "takes longer needs a larger train.process_group_timeout_s")


def _die_with_parent():
    """On Linux, torch's launcher gets SIGTERM when this process dies (even by SIGKILL): its
    ranks then checkpoint and stop instead of training on, orphaned, beside a rerun."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    return lambda: libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def _watch(process: subprocess.Popen, reports_dir: Path, processes: int, flag) -> set[int]:
    """Wait for the launcher; forward preemption signals; stop the survivors of a failure.
    Returns the ranks this launcher had to kill."""
    forwarded, failed_at, stopped = set(), None, set()
    while process.poll() is None:
        time.sleep(POLL_S)
        reports = read_reports(reports_dir, processes)
        if flag:  # also to ranks that report only after the signal came
            pending = {rank: r for rank, r in reports.items() if rank not in forwarded}
            forwarded |= _signal_ranks(pending, getattr(signal, flag.signal_name))
        if failed_at is None and any(r and r["state"] == "failed" for r in reports.values()):
            failed_at = time.monotonic()
        if not stopped and failed_at is not None and time.monotonic() - failed_at > GRACE_S:
            stopped = _signal_ranks(reports, signal.SIGKILL, only_running=True) or {-1}
    return stopped


def _signal_ranks(reports: dict, signum: int, only_running: bool = False) -> set[int]:
    """Signal the ranks' processes that are still alive; returns the ranks signalled."""
    signalled = set()
    for rank, report in reports.items():
        if report and (not only_running or report["state"] == "running") and pid_alive(
                report["pid"]):
            with suppress(ProcessLookupError):  # it ended just now
                os.kill(report["pid"], signum)
                signalled.add(rank)
    return signalled


def read_reports(reports_dir: Path, processes: int) -> dict[int, dict | None]:
    """Each rank's report (None for a rank that never wrote one)."""
    return {rank: read_json(report_path(reports_dir, rank)) for rank in range(processes)}


def _clear_reports(reports_dir: Path) -> None:
    # Reports describe one launch; an earlier launch's outcome must not be read as this one's.
    for path in reports_dir.glob("rank-*.json") if reports_dir.is_dir() else ():
        path.unlink()


def diagnose(reports: dict[int, dict | None], timeout_s: float,
             stopped: set[int] = frozenset()) -> str:
    """Which rank brought the run down, and how, from the ranks' reports.

    ``stopped``: ranks the launcher killed after another rank had failed (collateral, unless
    a peer timed out waiting for them: then they hung).
    """
    failed = {rank: r for rank, r in reports.items() if r and r["state"] == "failed"}
    silent = [rank for rank, r in reports.items() if not r or r["state"] == "running"]
    timed_out = _join([rank for rank, r in failed.items() if r["timed_out"]])
    parts = _grouped({rank: r["error"] for rank, r in failed.items() if not r["collective"]})
    for rank in silent:
        pid = f" (pid {reports[rank]['pid']})" if reports[rank] else ""
        if timed_out:
            parts.append(f"rank {rank}{pid} stopped responding: rank {timed_out} timed out "
                         f"after {timeout_s:g} s (train.process_group_timeout_s) waiting for it")
        elif rank not in stopped:
            parts.append(f"rank {rank}{pid} died without reporting (killed by a signal or out "
                         "of memory)")
    if not parts:
        parts = [f"rank {rank} lost its peers: {r['error']}" for rank, r in failed.items()]
    return "multi-process training failed: " + ("; ".join(parts) or
                                                "the launcher failed before any rank reported")


def _grouped(errors: dict[int, str]) -> list[str]:
    """``rank 1 failed: E`` — or ``ranks 0, 1 failed: E`` when they failed alike."""
    by_error: dict[str, list[int]] = {}
    for rank, error in errors.items():
        by_error.setdefault(error, []).append(rank)
    return [f"rank{'s' if len(ranks) > 1 else ''} {_join(ranks)} failed: {error}"
            for error, ranks in by_error.items()]


def _join(ranks: list[int]) -> str:
    return ", ".join(str(rank) for rank in ranks)


def _record_failure(state_dir: Path, message: str) -> None:
    """``status.json`` says failed with the diagnosis (rank 0 may have recorded a mere symptom,
    such as a lost connection)."""
    status_path = Path(state_dir) / "status.json"
    previous = read_json(status_path) or {}
    write_json(status_path, {**previous, "state": "failed", "pid": os.getpid(),
                             "updated_at": utc_now(), "exit_code": 1, "error": message})
