"""The pool's pure parts: host lists and pool files, lease records, placement and the grace."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.pool.dispatch import LeasePolicy, choose, lease_for, lease_policy, overdue
from rgt.pool.leases import LeaseBook
from rgt.pool.spec import PoolHost, audit_slots, parse_host_list, pool_hosts
from rgt.pool.station import MirrorOptions, Station


def station(alias: str, slots: int = 1, running=(), silent_for: float | None = None):
    """A station with no runner: placement reads only slots, running jobs and silence."""
    made = Station(PoolHost(HostEntry(alias, "ssh"), slots), runner=None, project=Path("."),
                   mirror_options=MirrorOptions("off", None, {}), report=print)
    made.running = set(running)
    if silent_for is not None:  # it answered once, then fell silent
        made.reached, made.unreachable_since = True, time.monotonic() - silent_for
    return made


def test_host_list_parses_and_rejects_bad_or_repeated_aliases():
    assert parse_host_list(" boxA, boxB ,boxC") == ["boxA", "boxB", "boxC"]
    with pytest.raises(ConfigError, match="'bad alias'"):
        parse_host_list("boxA,bad alias")
    with pytest.raises(ConfigError, match="boxA more than once"):
        parse_host_list("boxA,boxB,boxA")


def test_pool_file_gives_every_host_with_its_slots(tmp_path):
    pool = tmp_path / "pool.yaml"
    pool.write_text("hosts:\n  a: {platform: runpod, slots: 2}\n  b: {platform: vastai}\n")
    members = pool_hosts(None, str(pool), tmp_path / "none.yaml", "ssh")
    assert [(m.alias, m.entry.platform, m.slots) for m in members] == [
        ("a", "runpod", 2), ("b", "vastai", None)]
    with pytest.raises(ConfigError, match="both --rgt-host and --rgt-pool"):
        pool_hosts("a", str(pool), tmp_path / "none.yaml", "ssh")
    with pytest.raises(ConfigError, match="no host"):
        pool_hosts(None, None, tmp_path / "none.yaml", "ssh")


def test_pool_file_rejects_unknown_keys_naming_them(tmp_path):
    pool = tmp_path / "pool.yaml"
    pool.write_text("hosts:\n  a: {platform: ssh, slot: 2}\n")
    with pytest.raises(ConfigError, match="slot"):
        pool_hosts(None, str(pool), tmp_path / "none.yaml", "ssh")


def test_slots_come_from_the_audit_when_not_fixed():
    assert audit_slots({"gpus": [{}, {}, {}]}) == 3
    assert audit_slots({"gpus": []}) == audit_slots(None) == 1
    free = station("a", slots=None)
    free.audit = {"gpus": [{}, {}]}
    assert free.slots == 2 and free.free == 2


def test_lease_book_keeps_the_epoch_while_the_job_stays_and_bumps_it_when_it_moves(tmp_path):
    book = LeaseBook(tmp_path)
    assert book.get("r1") is None
    assert book.place("r1", "a").epoch == 1
    assert book.place("r1", "a").epoch == 1
    moved = book.place("r1", "b")
    assert (moved.host, moved.epoch) == ("b", 2)
    assert LeaseBook(tmp_path).get("r1") == moved  # on disk, for the next controller


def test_policy_defaults_and_refuses_a_grace_that_allows_two_copies():
    assert not lease_policy(1, None, None).enabled
    pooled = lease_policy(3, None, None)
    assert (pooled.seconds, pooled.grace_seconds) == (600, 660)
    with pytest.raises(ConfigError, match="at least 615"):
        lease_policy(2, 600, 610)
    with pytest.raises(ConfigError, match="below 8 s"):
        lease_policy(2, 3, None)


def test_choose_takes_the_freest_answering_station():
    stations = {"a": station("a", 2, running=["x"]), "b": station("b", 2),
                "c": station("c", 4, silent_for=1)}
    policy = LeasePolicy(60, 80)
    assert choose(stations, None, policy).alias == "b"
    stations["b"].running = {"y", "z"}
    assert choose(stations, None, policy).alias == "a"
    stations["a"].running.add("w")
    assert choose(stations, None, policy) is None  # every answering slot is taken


def test_a_job_waits_for_its_silent_host_until_the_grace_then_moves(tmp_path):
    book = LeaseBook(tmp_path)
    policy = LeasePolicy(60, 80)
    placement = book.place("r1", "a")
    stations = {"a": station("a", silent_for=30), "b": station("b")}
    assert not overdue(stations["a"], policy)
    assert choose(stations, placement, policy) is None
    stations["a"] = station("a", silent_for=81)
    assert overdue(stations["a"], policy)
    target = choose(stations, placement, policy)
    assert target.alias == "b"
    lease = lease_for(book, "r1", target, policy)
    assert (lease.epoch, lease.seconds) == (2, 60)
    assert lease_for(book, "r1", target, LeasePolicy(0, float("inf"))) is None


def test_a_job_goes_back_to_its_answering_host():
    placement = LeaseBook(Path("/nonexistent")).get("r1")
    assert placement is None
    from rgt.pool.leases import Placement

    home = Placement("r1", "a", 1, "2026-01-01T00:00:00Z")
    stations = {"a": station("a"), "b": station("b", 4)}
    assert choose(stations, home, LeasePolicy(60, 80)).alias == "a"
