"""The hosts the executor places jobs on: their stations, the lease policy and book, and the
placement decisions (which host takes a job, when a silent host's jobs move).

``rgt.remote`` and ``rgt.pool`` (paramiko and the host code) load with this module, which the
executor imports when it is used, never when Snakemake collects plugins at each start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from rgt.base.errors import ConfigError, RgtError
from rgt.config import Config
from rgt.mirror.bucket import parse_target
from rgt.mirror.bucket_store import BucketStore
from rgt.plan.snakefile import workflow_config
from rgt.platforms.facts import load_platform, project_platforms
from rgt.pool import SlotsTaken
from rgt.pool.dispatch import LeasePolicy, choose, lease_for, lease_policy, overdue
from rgt.pool.leases import LeaseBook
from rgt.pool.spec import PoolHost, pool_hosts
from rgt.pool.station import MirrorOptions, Station, prepare_all
from rgt.remote.hostfacts import SETTINGS, default_root, settle
from rgt.remote.jobs import RemoteLayout
from rgt.remote.network import HostNetwork
from rgt.remote.runner import RemoteRunner
from rgt.remote.snakejobs import SnakeJob, snake_job
from rgt.remote.ssh import ConnectionLost, RemoteHost, RemoteTimeout, resolve_host
from rgt.remote.warnings_once import first_use_warnings
from rgt.remote.watchdog_start import watchdog_options

DEFAULT_PLATFORM = "ssh"


@dataclass
class Pool:
    """The stations of ``--rgt-host``/``--rgt-pool`` and how jobs are leased among them."""

    project: Path
    stations: dict[str, Station]
    policy: LeasePolicy
    leases: LeaseBook

    @classmethod
    def open(cls, settings, project: Path, secrets: dict[str, str],
             warn: Callable[[str], None], report: Callable[[str], None]) -> Pool:
        """The pool of the profile's settings (``warn`` gets the platforms' first-use notes;
        ``secrets`` go to each host over stdin)."""
        members = [settled(member, settings) for member in pool_hosts(
            settings.host, settings.pool, project / "config" / "hosts.yaml",
            settings.platform or DEFAULT_PLATFORM)]
        for member in members:
            # Shown until the host is reached (then recorded by rgt.pool.station).
            for line in first_use_warnings(project, member.entry.platform, member.alias):
                warn(f"rgt: {line}")
        policy = lease_policy(len(members), settings.lease_seconds, settings.unknown_grace)
        bucket = host_bucket(settings, secrets)
        stations = {member.alias: station(member, settings, project, secrets, report, bucket)
                    for member in members}
        return cls(project, stations, policy, LeaseBook(project))

    def config(self, config_file: str) -> Config:
        """The workflow's config: the one the Snakefile validated in this process."""
        return workflow_config(self.project / config_file)

    def prepare(self, config: Config) -> dict[str, RgtError]:
        """Every host audited and deployed at once, before the first placement (a pool of
        one prepares on its first placement); the errors by alias."""
        if len(self.stations) < 2:
            return {}
        return prepare_all(list(self.stations.values()), config)

    def choose(self, run_id: str) -> Station | None:
        """The station that takes the job now, or None (it waits). A host whose slots were
        held by jobs another controller placed is listed again first."""
        for station in self.stations.values():
            if station.foreign and station.unreachable_since is None:
                station.list_foreign()
        placement = self.leases.get(run_id) if self.policy.enabled else None
        return choose(self.stations, placement, self.policy)

    def start_training(self, station: Station, run_id: str, config: Config) -> str:
        """Deploy (once), reattach or launch ``run_id`` on ``station``; the code tree's hash."""
        tree = station.tree(config)
        target = station.mirror_target(run_id, config)
        seeding = target or station.staging_target(run_id, config)
        lease = lease_for(self.leases, run_id, station, self.policy)
        station.plan_host_mirror(config)
        try:
            station.attach_or_launch(
                run_id, lambda: station.seed_and_launch(run_id, tree, seeding, lease))
        except SlotsTaken:
            self._mirror_foreign(station, config)
            raise
        if target is not None:
            station.mirror.watch(target)
        if lease is not None:
            station.keep_leases(lease.seconds)
        return tree

    def _mirror_foreign(self, station: Station, config: Config) -> None:
        """The jobs a controller before this one left running keep being mirrored while
        they hold the host's slots (their runs wait to be reattached)."""
        for key in sorted(station.foreign or ()):
            target = station.mirror_target(key, config)
            if target is not None:
                station.mirror.watch(target)

    def freest(self) -> Station:
        """The station with the most free slots (where any other job goes)."""
        return max(self.stations.values(), key=lambda each: each.free)

    def start_snakejob(self, station: Station, rules, sources: list[str], inputs,
                       products: list[str], command: str) -> SnakeJob:
        """Any other job: Snakemake's own job command, in a working directory of its own."""
        spec = snake_job(self.project, rules, sources, inputs, products, command)
        station.attach_or_launch(spec.key, lambda: station.runner.launch_snakejob(spec),
                                 take_slot=False)
        return spec

    def overdue(self, station: Station) -> bool:
        """Whether a silent station's jobs may start elsewhere (past the grace, so fenced)."""
        return overdue(station, self.policy)

    def slots(self) -> int:
        """Every station's job slots (one for a host whose slots are not known yet)."""
        return sum(station.member.slots or 1 for station in self.stations.values())

    @staticmethod
    def is_unreachable(error: RgtError) -> bool:
        """A host that does not answer (its jobs wait), as opposed to one that refuses."""
        return isinstance(error, ConnectionLost | RemoteTimeout)


def host_bucket(settings, secrets: dict[str, str]) -> BucketStore | None:
    """The bucket of ``--rgt-host-mirror``, reached from here with the credentials the host
    will get (a clear error now rather than an unmirrored run later); None without one."""
    if not settings.host_mirror:
        return None
    target = parse_target(settings.host_mirror, settings.host_mirror_endpoint)
    needed = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    unnamed = [name for name in needed if name not in settings.secrets]
    unset = [name for name in needed if name in settings.secrets and name not in secrets]
    if unnamed or unset:
        raise ConfigError(
            f"--rgt-host-mirror {target.url} needs {', '.join(unnamed + unset)} "
            f"{'among --rgt-secrets' if unnamed else 'set here'}: the host-side mirror reads "
            "the credentials from the job's secrets (sent over stdin, mode 600)",
            "export AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… and pass --rgt-secrets "
            "AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY")
    store = BucketStore(target)
    store.check()
    return store


def settled(member: PoolHost, settings) -> PoolHost:
    """``member`` with the facts its record holds, the profile's and the command line's filling
    what it lacks; a value that differs from the record is refused (``rgt.remote.hostfacts``)."""
    wanted = {key: getattr(settings, key) for key in SETTINGS}
    entry = settle(member.alias, member.entry if member.recorded else None, wanted,
                   settings.platform or DEFAULT_PLATFORM)
    return replace(member, entry=entry)


def with_platform_python(member: PoolHost, settings, facts: dict) -> PoolHost:
    """A host not recorded yet, with no --rgt-python, runs its platform's interpreter."""
    if member.recorded or settings.python is not None:
        return member
    python = facts.get("python") or member.entry.python
    return replace(member, entry=replace(member.entry, python=python))


def station(member: PoolHost, settings, project: Path, secrets: dict[str, str],
            report: Callable[[str], None], bucket: BucketStore | None = None) -> Station:
    """A runner for one host: at the root `rgt watch`, `rgt pull` and `rgt down` read (the
    record's; a host not recorded yet gets the platform's default root, and the station
    records it when it first reaches the host)."""
    facts = load_platform(member.entry.platform, project_platforms(project))
    member = with_platform_python(member, settings, facts)
    entry = member.entry
    root = entry.remote_root or default_root(facts, project)
    runner = RemoteRunner(RemoteHost(resolve_host(member.alias, entry.ssh_config)),
                          RemoteLayout(root), entry.python, settings.detach,
                          settings.gpu, secrets)
    runner.watchdog_options = watchdog_options(entry, facts)
    runner.platform = facts  # the audit applies its facts as `rgt up` does
    runner.alarm_webhook = entry.alarm_webhook
    if bucket is not None:
        runner.extra_modules = {"boto3": "boto3>=1.34"}
    runner.network = HostNetwork.of(facts)
    return Station(member, runner, project,
                   MirrorOptions(settings.mirror, settings.mirror_every, facts, bucket,
                                 settings.host_mirror_every), report)

