"""The relaunch policy: which ended training jobs one Snakemake call starts again, and when.

A job preempted (exit 75: it checkpointed on SIGTERM/SIGUSR1) or vanished (no process and no
exit code: killed with its wrapper, the host rebooted) lost nothing it cannot resume: it is
relaunched, up to ``retries`` times, after a back-off that doubles each time, and resumes from
its newest checkpoint, or from the mirror's when the host holds an older one. Any other exit is a
code error (a traceback, ``TrainingDiverged``, a bad config): relaunching would fail the same
way, so it is reported with its log instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgt.base.errors import ConfigError

RETRIED_STATES = ("preempted", "dead")
MAX_DELAY_S = 600.0


@dataclass(frozen=True)
class RelaunchPolicy:
    """``retries`` relaunches per job and call; the first after ``backoff_s``, then doubling."""

    retries: int
    backoff_s: float

    def allows(self, state: str, relaunched: int) -> bool:
        """Whether a job that ended in ``state`` after ``relaunched`` relaunches goes again."""
        return state in RETRIED_STATES and relaunched < self.retries

    def delay(self, attempt: int) -> float:
        """Seconds to wait before relaunch number ``attempt`` (1, 2, ...)."""
        return min(MAX_DELAY_S, self.backoff_s * 2 ** (attempt - 1))


def relaunch_policy(retries: int, backoff_s: float) -> RelaunchPolicy:
    """The policy of ``--rgt-retries`` and ``--rgt-retry-backoff``; ConfigError when either is
    negative (nothing has been launched yet)."""
    if retries < 0:
        raise ConfigError(f"--rgt-retries {retries} is negative",
                          "give how many times a preempted or vanished job may be relaunched: "
                          "0 (never), or e.g. --rgt-retries 3 (the default)")
    if backoff_s < 0:
        raise ConfigError(f"--rgt-retry-backoff {backoff_s:g} is negative",
                          "give the seconds before the first relaunch, e.g. "
                          "--rgt-retry-backoff 30 (the default)")
    return RelaunchPolicy(retries, float(backoff_s))


def ended_how(state: str, exit_code: int | None, relaunched: int, policy: RelaunchPolicy,
              held: str | None = None) -> str:
    """Why a job that is not relaunched ended, and what to do (for the error message);
    ``held``: why the host's watchdog stopped it for good (its spending cap)."""
    if held:
        return (f"the host's watchdog checkpointed and stopped it ({held}); it is not "
                "relaunched: raise the cap in config/hosts.yaml, then rerun snakemake (it "
                "resumes from its checkpoint)")
    if state == "preempted":
        return (f"it was preempted (exit 75, checkpointed) and relaunched {relaunched} times, "
                f"the budget of --rgt-retries {policy.retries}; rerun snakemake to resume it")
    if state == "dead":
        return (f"its process vanished (killed, or the host rebooted) after {relaunched} "
                f"relaunches, the budget of --rgt-retries {policy.retries}; rerun snakemake to "
                "resume it from its last checkpoint")
    return (f"it failed with exit code {exit_code}: a code error, not relaunched (it would fail "
            "the same way); fix the cause in its log, then rerun snakemake (it resumes from its "
            "last checkpoint)")
