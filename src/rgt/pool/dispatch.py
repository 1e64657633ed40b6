"""Placement: which station takes a job now, and when a silent host's jobs move elsewhere.

One job per slot, sequential per host, parallel across hosts. A job placed before (the local
lease record) goes back to its host while that host answers; a host silent for longer than the
grace loses its jobs to the others, each under a new lease epoch, resumed from its mirror.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgt.base.errors import ConfigError
from rgt.pool.leases import LeaseBook, Placement
from rgt.pool.station import Station
from rgt.remote.jobs import Lease

DEFAULT_LEASE_S = 600
# The fence checks every second, a renewal in flight may land up to its timeout late, and the
# fenced job needs a few seconds to checkpoint and exit.
FENCE_MARGIN_S = 15
MIN_LEASE_S = 8  # renewed every quarter lease: shorter leases lapse on one slow renewal


@dataclass(frozen=True)
class LeasePolicy:
    """How long a lease holds unrenewed, and how long a silent host keeps its jobs."""

    seconds: int
    grace_seconds: float

    @property
    def enabled(self) -> bool:
        return self.seconds > 0


def lease_policy(hosts: int, lease_seconds: int | None, grace_seconds: float | None
                 ) -> LeasePolicy:
    """Leases for a pool (several hosts, or leases asked for); none for a single host.

    Raises ConfigError when the grace would let a job start elsewhere before its old copy
    has fenced itself.
    """
    seconds = lease_seconds if lease_seconds is not None else (
        DEFAULT_LEASE_S if hosts > 1 else 0)
    if seconds <= 0:
        return LeasePolicy(0, float("inf"))
    if seconds < MIN_LEASE_S:
        raise ConfigError(f"--rgt-lease-seconds {seconds} is below {MIN_LEASE_S} s: one slow "
                          "renewal would stop a healthy job",
                          f"set --rgt-lease-seconds to {MIN_LEASE_S} or more (default 600)")
    grace = grace_seconds if grace_seconds is not None else seconds + 60
    if grace < seconds + FENCE_MARGIN_S:
        raise ConfigError(
            f"--rgt-unknown-grace {grace:g} s is shorter than the lease ({seconds} s) plus "
            f"{FENCE_MARGIN_S} s: a job could run on two hosts at once",
            f"set --rgt-unknown-grace to at least {seconds + FENCE_MARGIN_S:g}")
    return LeasePolicy(seconds, grace)


def choose(stations: dict[str, Station], placement: Placement | None, policy: LeasePolicy
           ) -> Station | None:
    """The station that takes a job now, or None (it waits).

    Its recorded host while that host is in the pool and answers (reattach, or resume where
    its checkpoints are), or waits for it until the grace has passed; else the answering
    station with the most free slots.
    """
    if placement is not None and placement.host in stations:
        home = stations[placement.host]
        if home.unreachable_since is None:
            return home if home.free > 0 else None
        if not overdue(home, policy):
            return None
    free = [station for station in stations.values() if station.free > 0]
    return max(free, key=lambda station: station.free) if free else None


def overdue(station: Station, policy: LeasePolicy) -> bool:
    """Whether a silent station's jobs may start elsewhere: past the grace, so fenced."""
    return policy.enabled and station.unreachable_for() > policy.grace_seconds


def lease_for(book: LeaseBook, run_id: str, station: Station, policy: LeasePolicy
              ) -> Lease | None:
    """Record the placement (a new epoch when the job moves); the lease it runs under."""
    if not policy.enabled:
        return None
    return Lease(book.place(run_id, station.alias).epoch, policy.seconds)
