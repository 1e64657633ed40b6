"""The training pod's preStop hook: checkpoint every running training, then let the pod go.

Kubernetes sends SIGTERM only to a container's PID 1. Under the Snakemake Kubernetes plugin
PID 1 is ``/bin/sh -c <snakemake job>``, which ignores it, so the training would only ever see
the SIGKILL at the end of the grace period. This hook (``python -m rgt.cluster.prestop``, run by
the kubelet before that SIGTERM) finds the trainings of this pod by the PIDs their own
``status.json`` records on the durable volume, sends each SIGTERM (so it checkpoints at the next
step boundary and exits 75, see :mod:`rgt.train.preemption`) and waits until they are gone.
Processes are chosen by recorded PID and host, never by name.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

from rgt.base.processes import pid_alive


def running_trainings(checkpoints: Path, host: str | None = None) -> dict[str, int]:
    """``{run_id: pid}`` of every run under ``checkpoints`` recorded running on ``host``."""
    host = host or socket.gethostname()
    found = {}
    for path in sorted(Path(checkpoints).glob("*/status.json")):
        try:
            status = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # a status being replaced right now, or not ours: nothing to stop
        pid = status.get("pid")
        if status.get("state") == "running" and status.get("host") == host and pid_alive(pid):
            found[path.parent.name] = pid
    return found


def stop_trainings(checkpoints: Path, grace_seconds: float, host: str | None = None,
                   poll_seconds: float = 0.2) -> dict[str, int]:
    """SIGTERM the running trainings and wait up to ``grace_seconds`` for them to exit.

    Returns:
        ``{run_id: pid}`` of those still alive at the deadline (empty when all checkpointed).
    """
    targets = running_trainings(checkpoints, host)
    for pid in targets.values():
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while targets and time.monotonic() < deadline:
        time.sleep(poll_seconds)
        targets = {run_id: pid for run_id, pid in targets.items() if pid_alive(pid)}
    return targets


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it finished meanwhile
        os.kill(pid, signum)


def main(argv: list[str] | None = None) -> int:
    """``python -m rgt.cluster.prestop --checkpoints DIR --grace SECONDS``."""
    parser = argparse.ArgumentParser(prog="python -m rgt.cluster.prestop", description=__doc__)
    parser.add_argument("--checkpoints", type=Path, required=True,
                        help="the durable checkpoints directory (on the persistent volume)")
    parser.add_argument("--grace", type=float, required=True,
                        help="seconds to wait for the checkpoints to be written")
    args = parser.parse_args(argv)
    left = stop_trainings(args.checkpoints, args.grace)
    for run_id, pid in left.items():
        print(f"rgt prestop: run {run_id} (pid {pid}) still running after {args.grace:g} s; "
              "it resumes from its last periodic checkpoint", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
