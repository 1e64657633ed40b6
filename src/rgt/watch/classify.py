"""Why a run failed: read its own log tails (train.log, job.log), exit code and OOM counter.

Pure functions, tested on logs captured from real failures (tests/data/logs/). The first rule
that matches names the cause; explicit resource causes come before the generic traceback rule,
since a disk-full or CUDA-OOM failure also ends in a traceback.

Causes: ``preempted``, ``disk_full``, ``cuda_oom``, ``host_oom``, ``nonfinite``, ``user_error``
(rgt refused with ``error:``/``fix:``, e.g. a bad config), ``code_error`` (a Python traceback),
``unknown``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rgt.watch.states import DEAD, EXIT_PREEMPTED, FAILED, PREEMPTED, STALLED, RunFacts

EXIT_SIGKILL = 137  # 128 + 9, as the job's bash wrapper records a SIGKILLed trainer
DISK_FULL = re.compile(r"No space left on device|ENOSPC|\[Errno 28\]")
CUDA_OOM = re.compile(r"CUDA out of memory|torch\.(?:cuda\.)?OutOfMemoryError|"
                      r"CUDA error: out of memory")
HOST_OOM = re.compile(r"^(?:\S.*\s)?Killed(?:\s.*)?$|\bMemoryError\b", re.MULTILINE)
NONFINITE = re.compile(r"\b(?:train_loss|val_loss|loss)[ =:]+[-+]?(?:nan|inf)\b",
                       re.IGNORECASE)
PREEMPTION = re.compile(r"\bpreempted at step \d+|\breceived SIG(?:TERM|USR1)\b")
USER_ERROR = re.compile(r"^error: (?P<message>.+)$", re.MULTILINE)
TRACEBACK = "Traceback (most recent call last):"
# The first line of each attempt in train.log: a cause from an earlier attempt is not this one's.
ATTEMPT_START = re.compile(r"^.* INFO (?:starting \S+ seed \d+ \(|resumed from )", re.MULTILINE)


@dataclass(frozen=True)
class Cause:
    """A named cause and the fact it rests on (a log line, an exit code)."""

    name: str
    detail: str


def classify(facts: RunFacts, state: str, oom_kills: int | None = None) -> Cause | None:
    """The cause of a failed, dead, stalled or preempted run; ``nonfinite`` for any run whose
    loss is NaN/Inf; None for a healthy run.

    ``oom_kills`` is the host cgroup's ``oom_kill`` counter (None where it cannot be read).
    """
    text = last_attempt(facts.train_log) + "\n" + facts.job_log
    if state not in (FAILED, DEAD, STALLED, PREEMPTED):
        return _nonfinite(facts, text)
    for rule in (_preempted, _disk_full, _cuda_oom):
        cause = rule(facts, text)
        if cause:
            return cause
    cause = _host_oom(facts, text, oom_kills) or _nonfinite(facts, text)
    cause = cause or _user_error(facts, text) or _code_error(text)
    if cause or state == STALLED:
        return cause
    return Cause("unknown", _unknown_detail(facts, state))


def last_attempt(train_log: str) -> str:
    """The part of a train.log tail written by the newest attempt."""
    starts = list(ATTEMPT_START.finditer(train_log))
    return train_log[starts[-1].start():] if starts else train_log


def _line(pattern: re.Pattern, text: str) -> str | None:
    """The last whole line of ``text`` that matches ``pattern``."""
    found = None
    for line in text.splitlines():
        if pattern.search(line):
            found = line.strip()
    return found


def _preempted(facts: RunFacts, text: str) -> Cause | None:
    if facts.exit_code == EXIT_PREEMPTED:
        return Cause("preempted", f"exit {EXIT_PREEMPTED}: checkpointed on SIGTERM/SIGUSR1; "
                                  "rerun to resume")
    line = _line(PREEMPTION, text)
    return Cause("preempted", line) if line and facts.exit_code is None else None


def _disk_full(facts: RunFacts, text: str) -> Cause | None:
    line = _line(DISK_FULL, text)
    return Cause("disk_full", line) if line else None


def _cuda_oom(facts: RunFacts, text: str) -> Cause | None:
    line = _line(CUDA_OOM, text)
    return Cause("cuda_oom", line[:300]) if line else None


def _host_oom(facts: RunFacts, text: str, oom_kills: int | None) -> Cause | None:
    if facts.exit_code == EXIT_SIGKILL:
        if oom_kills == 0:
            return None  # SIGKILL, but the cgroup saw no OOM kill: not memory (see unknown)
        counted = "unknown" if oom_kills is None else str(oom_kills)
        return Cause("host_oom", f"killed by SIGKILL (exit {EXIT_SIGKILL}); cgroup oom_kill "
                                 f"count: {counted}")
    line = _line(HOST_OOM, facts.job_log)
    if line and ("MemoryError" in line or (oom_kills or 0) > 0):
        return Cause("host_oom", f"{line} (cgroup oom_kill count: {oom_kills})")
    return None


def _nonfinite(facts: RunFacts, text: str) -> Cause | None:
    loss = (facts.heartbeat or {}).get("loss")
    if isinstance(loss, (int, float)) and not math.isfinite(loss):
        return Cause("nonfinite", f"heartbeat loss is {loss} at step "
                                  f"{(facts.heartbeat or {}).get('step')}")
    line = _line(NONFINITE, text)
    return Cause("nonfinite", line) if line else None


def _user_error(facts: RunFacts, text: str) -> Cause | None:
    matches = list(USER_ERROR.finditer(text))
    return Cause("user_error", matches[-1].group("message")) if matches else None


def _code_error(text: str) -> Cause | None:
    """The exception line that ends the last traceback (its first unindented line)."""
    start = text.rfind(TRACEBACK)
    if start < 0:
        return None
    for line in text[start + len(TRACEBACK):].splitlines():
        if line.strip() and not line[0].isspace():
            return Cause("code_error", line.strip()[:300])
    return Cause("code_error", "a traceback without its exception line (log cut off)")


def _unknown_detail(facts: RunFacts, state: str) -> str:
    if facts.exit_code == EXIT_SIGKILL:
        return (f"killed by SIGKILL (exit {EXIT_SIGKILL}) but the cgroup counted no OOM kill: "
                "killed by hand or by the platform?")
    if state == DEAD:
        return "the job's processes are gone and nothing recorded an exit (reboot, kill -9?)"
    return f"exit code {facts.exit_code}; nothing in the log tails names a cause"
