"""One host of the pool as the controller sees it: its runner, its deployed code trees, its
mirror loop, its free slots and whether it answers."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.files import write_json
from rgt.base.hashing import digest_json
from rgt.config import Config
from rgt.hosts.register import record_host
from rgt.mirror import setup as mirror_setup
from rgt.mirror.bucket_store import BucketStore
from rgt.mirror.record import newer, read_mirror
from rgt.mirror.sync import MirrorTarget, prune, seed_host
from rgt.pool import SlotsTaken
from rgt.pool.keeper import LeaseKeeper
from rgt.pool.spec import PoolHost, audit_slots
from rgt.pull.home import Pulled, place_outputs, pull_bundle, verify_in_subprocess
from rgt.remote.hostfacts import owned_facts
from rgt.remote.jobs import JobStatus, Lease
from rgt.remote.ledger import record_launch
from rgt.remote.runner import RemoteRunner
from rgt.remote.spend import refuse_past_cap
from rgt.remote.ssh import RemoteHost
from rgt.remote.up import audit_path, planned_checkpoints
from rgt.remote.warnings_once import remember_host

MAX_BACKOFF_S = 60  # a silent host is retried, and reported, at least this often


@dataclass
class MirrorOptions:
    """The profile's mirror settings and the facts the interval depends on; ``bucket``: the
    host-side mirror's target (``--rgt-host-mirror``), checked reachable."""

    setting: str
    every_seconds: float | None
    platform: dict
    bucket: BucketStore | None = None
    bucket_every_seconds: float | None = None


@dataclass
class Station:
    """A host with ``slots`` places for jobs; ``running`` holds the keys it runs now."""

    member: PoolHost
    runner: RemoteRunner
    project: Path
    mirror_options: MirrorOptions
    report: Callable[[str], None]
    trees: dict[str, str] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    # Jobs alive on the host that this controller did not place (one before a restart, say):
    # they hold slots too. None: not listed yet.
    foreign: set[str] | None = None
    unreachable_since: float | None = None
    next_probe_at: float = 0.0
    backoff: float = 0.0
    mirror: object | None = None
    audit: dict | None = None
    keeper: object | None = None
    reached: bool = False  # answered at least once (audited) in this controller's life

    @property
    def alias(self) -> str:
        return self.member.alias

    @property
    def slots(self) -> int:
        """Fixed by the pool file, else one per GPU of the audit (one before any audit)."""
        return self.member.slots or audit_slots(self.audit)

    @property
    def free(self) -> int:
        """Free slots; none for a silent host, except that a host never reached is tried
        again by a placement once its back-off has passed (nothing else probes it)."""
        if self.unreachable_since is not None and (
                self.reached or time.monotonic() < self.next_probe_at):
            return 0
        return self.slots - len(self.running | (self.foreign or set()))

    def list_foreign(self) -> set[str]:
        """List the jobs alive on the host that this controller did not place; they keep
        their slots until they end (an unreachable host keeps the previous list)."""
        try:
            alive = self.runner.running_jobs()
        except RgtError as error:
            self.mark_unreachable(error)
            return self.foreign or set()
        ended = (self.foreign or set()) - alive
        self.foreign = alive - self.running
        if self.mirror is not None:
            for key in ended:
                self.mirror.forget(key)
        return self.foreign

    def tree(self, config: Config) -> str:
        """Audit the host and deploy the code once per config; the pushed tree's hash.

        The checkpoints are sized from the smoke gate's records: this process (Snakemake's)
        never builds a model nor imports torch."""
        key = config_key(config)
        if key not in self.trees:
            self.runner.resolve_root()
            self._record_host()
            plan = planned_checkpoints(config, self.project)
            self.audit = self.runner.audit(plan)
            self.reached = True
            remember_host(self.project, self.alias, self.member.entry.platform)
            write_json(audit_path(self.project, self.alias), self.audit)
            self.report(f"rgt: {self.alias}: "
                        f"{self.audit['budget']['summary'].splitlines()[0]}")
            self.trees[key] = self.runner.deploy(config, self.project)
        return self.trees[key]

    def _record_host(self) -> None:
        """The facts this controller uses, recorded where every verb reads them (a host not
        recorded yet, or a record that lacked one of them); the record's own never change."""
        entry = replace(self.member.entry, remote_root=self.runner.layout.root)
        changes = record_host(self.member.registry, self.alias, owned_facts(entry),
                              by="the executor (snakemake --rgt-host)")
        if changes:
            self.report(f"rgt: recorded {self.alias} in {self.member.registry}: "
                        + "; ".join(change.describe() for change in changes))
        self.member = replace(self.member, entry=entry, recorded=True)

    def keep_leases(self, seconds: int) -> None:
        """Start renewing the leases of this host's jobs (once; a thread of its own)."""
        if self.keeper is None:
            spec = self.runner.host.spec
            self.keeper = LeaseKeeper(
                lambda: RemoteHost(spec, connect_timeout=5, retries=0),
                lambda: self.runner.layout, seconds, lambda: sorted(self.running),
                lambda: self.unreachable_since is None)

    def probe(self, keys: list[str]) -> dict[str, JobStatus] | None:
        """The host's statuses, or None while it is unreachable (state unknown, unchanged)."""
        now = time.monotonic()
        if now < self.next_probe_at:
            return None
        try:
            statuses = self.runner.probe(keys)
        except RgtError as error:
            self._unreachable(now, error)
            return None
        if self.unreachable_since is not None:
            self.report(f"rgt: {self.alias} answers again")
        self.unreachable_since, self.backoff, self.next_probe_at = None, 0.0, 0.0
        return statuses

    def mark_unreachable(self, error: Exception) -> None:
        """The host did not answer: no probe until the back-off has passed."""
        self._unreachable(time.monotonic(), error)

    def _unreachable(self, now: float, error: Exception) -> None:
        first = self.unreachable_since is None
        self.unreachable_since = self.unreachable_since or now
        self.backoff = min(MAX_BACKOFF_S, max(10.0, 2 * self.backoff))
        self.next_probe_at = now + self.backoff
        what = "its job states are unknown, not changed" if self.running else "no job started"
        if first:
            self.report(f"rgt: {self.alias} unreachable ({error}); {what}; retrying in "
                        f"{self.backoff:.0f} s")
        else:
            silent = now - self.unreachable_since
            self.report(f"rgt: {self.alias} still unreachable for {silent:.0f} s; {what}; "
                        f"retrying in {self.backoff:.0f} s")

    def unreachable_for(self) -> float:
        """Seconds since the host last failed to answer after answering (0: it answers)."""
        if self.unreachable_since is None:
            return 0.0
        return time.monotonic() - self.unreachable_since

    def attach_or_launch(self, key: str, launch: Callable[[], None],
                         take_slot: bool = True) -> None:
        """Reattach to the job if it runs (or ran) here; else launch it — a training job
        (``take_slot``) only when a slot is free on the host, counting the jobs alive there
        that another controller placed (else ``SlotsTaken``: the job waits). A job running
        here is never launched a second time, whatever lease it runs under."""
        status = self.runner.probe([key]).get(key)
        state = status.state if status else "absent"
        if state in ("running", "finished"):
            self.report(f"rgt: {key} is {state} on {self.alias} "
                        f"(launched {status.launches}x): reattached, not relaunched")
        else:
            if take_slot:
                self._refuse_if_full(key)
            launch()
            self.report(f"rgt: launched {key} on {self.alias} (detached)")
        self.running.add(key)
        if self.foreign:
            self.foreign.discard(key)

    def _refuse_if_full(self, key: str) -> None:
        others = self.list_foreign() - {key}
        if len(self.running | others) >= self.slots:
            busy = ", ".join(sorted(others - self.running))
            self.report(f"rgt: {self.alias} runs {busy} already (launched before this "
                        f"controller started; {self.slots} slot(s)): {key} waits for it")
            raise SlotsTaken(f"{self.alias} has no free slot for {key}")

    def mirror_target(self, run_id: str, config: Config) -> MirrorTarget | None:
        """Where this run's checkpoints are mirrored (None: mirroring is off)."""
        options = self.mirror_options
        root = mirror_setup.mirror_root(options.setting, self.project, config)
        if root is None:
            return None
        if self.mirror is None:
            spec = self.runner.host.spec
            self.mirror = mirror_setup.new_loop(
                lambda: RemoteHost(spec), self.runner.python, options.every_seconds,
                mirror_setup.mtbf_hours(options.platform, config), self.report)
        return mirror_setup.target(run_id, self.runner.layout, root)

    def staging_target(self, run_id: str, config: Config) -> MirrorTarget | None:
        """Where a bucket's checkpoint lands on its way to a host when the controller does not
        mirror (``rgt-mirror: off``): the project's checkpoint directory."""
        if self.mirror_options.bucket is None:
            return None
        root = mirror_setup.mirror_root(mirror_setup.LOCAL, self.project, config)
        return mirror_setup.target(run_id, self.runner.layout, root)

    def plan_host_mirror(self, config: Config) -> None:
        """The ``rgt host-mirror`` options the runner starts it with, beside each job."""
        options = self.mirror_options
        if options.bucket is None:
            return
        target = options.bucket.target
        self.runner.host_mirror = [
            "--target", target.url, "--host-name", self.alias, "--mtbf-hours",
            str(mirror_setup.mtbf_hours(options.platform, config)),
            *(["--endpoint", target.endpoint] if target.endpoint else []),
            *(["--every", str(options.bucket_every_seconds)]
              if options.bucket_every_seconds else [])]

    def seed_and_launch(self, run_id: str, tree: str, target: MirrorTarget | None,
                        lease: Lease | None) -> None:
        """A host without the run's newest checkpoint gets the mirror's first (the newest of
        the controller's and the bucket's), then the job; none on a host already past its
        spending cap."""
        refuse_past_cap(self.runner.host, self.member.entry)
        if target is not None and self.mirror_options.bucket is not None:
            self._from_bucket(run_id, target)
        if target is not None:
            step = seed_host(self.runner.host, self.runner.python, target)
            if step is not None:
                self.report(f"rgt: {run_id}: pushed the mirrored checkpoint of step {step} to "
                            f"{self.alias}; training resumes from it")
        # In the ledger first: a controller killed mid-launch leaves no run unaccounted for.
        record_launch(self.project, self.alias, self.runner.layout.root, run_id)
        self.runner.launch(run_id, tree, lease=lease)

    def _from_bucket(self, run_id: str, target: MirrorTarget) -> None:
        """Bring the bucket's checkpoint here when it is newer than the local mirror's."""
        bucket = self.mirror_options.bucket
        remote, local = bucket.record(run_id), read_mirror(target.local_dir)
        if remote is None or newer(local, remote) is local:
            return
        bucket.download(run_id, remote, target.local_dir)
        prune(target.local_dir)
        self.report(f"rgt: {run_id}: the bucket {bucket.target.url} holds the newest checkpoint "
                    f"(step {remote.step}, mirrored by {remote.host}'s host-side mirror); "
                    "fetched, sha256 verified")

    def bring_home(self, run_id: str, outputs: list[Path], export: Path) -> Pulled:
        """A finished run as a verified bundle in ``export/<run-id>`` (the one ``rgt down``
        accepts), then Snakemake's ``outputs`` from it. After one last mirror: when the mirror
        (the project's own) then holds the host's newest checkpoint, the checkpoints stay on
        the host and the bundle is weights-only."""
        record = self.mirror.last_mirror(run_id) if self.mirror is not None else None
        weights_only = (record is not None and record.step == record.host_step
                        and self.mirror_options.setting == mirror_setup.LOCAL)
        runner = self.runner
        # The job just finished: its copy on the host is the run, so a bundle here of an
        # earlier state (pulled by hand while it was preempted) is refreshed, kept aside.
        pulled = pull_bundle(runner.host, runner.python, runner.layout.root, run_id, export,
                             weights_only, say=self.report, verify=verify_in_subprocess,
                             refresh=True)
        if pulled.bundle is None:
            raise RgtError(f"the bundle of {run_id} did not verify ({pulled.outcome.reason}); "
                           f"the attempt is kept in {pulled.outcome.path}",
                           f"read its REASON.json; `rgt pull {run_id} --host {self.alias}` "
                           "makes a fresh attempt")
        place_outputs(pulled.bundle, outputs)
        return pulled

    def release(self, key: str) -> None:
        """The job no longer runs here (finished, failed or moved)."""
        self.running.discard(key)
        if self.mirror is not None:
            self.mirror.forget(key)

    def close(self) -> None:
        """Stop the mirror and lease threads and close the connection."""
        for thread in (self.mirror, self.keeper):
            if thread is not None:
                thread.stop()
        self.runner.host.close()


def config_key(config: Config) -> str:
    """What a deployed tree is remembered by: the validated config's content."""
    return digest_json(config.to_dict())


def prepare_all(stations: list[Station], config: Config) -> dict[str, RgtError]:
    """Audit and deploy the code of ``config`` on every answering station at once (each host's
    first deploy takes seconds: serially, the last host would start that much later).

    Returns the error of each station that failed, by alias.
    """
    todo = [station for station in stations
            if config_key(config) not in station.trees and station.unreachable_since is None]

    def attempt(station: Station) -> RgtError | None:
        try:
            station.tree(config)
        except RgtError as error:
            return error
        return None

    if not todo:
        return {}
    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        outcomes = list(pool.map(attempt, todo))
    return {station.alias: error for station, error in zip(todo, outcomes, strict=True)
            if error is not None}
