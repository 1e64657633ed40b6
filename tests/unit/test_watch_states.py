"""Run states from facts (rgt.watch.states): every state, and the ages they rest on."""

from __future__ import annotations

import pytest

from rgt.base.clock import parse_utc
from rgt.watch.states import (
    DEAD,
    FAILED,
    FINISHED,
    PREEMPTED,
    RUNNING,
    STALLED,
    RunFacts,
    heartbeat_age,
    progress_age,
    run_state,
    state_of_exit,
)

NOW = parse_utc("2025-03-01T12:00:00Z")
STALL = 600


def stamp(seconds_ago: float) -> str:
    from rgt.base.clock import utc_now

    return utc_now(NOW - seconds_ago)


def facts(**fields) -> RunFacts:
    return RunFacts(run_id="abc", **fields)


def test_parse_utc_reads_rgt_stamps_and_refuses_the_rest():
    assert parse_utc("1970-01-01T00:01:40Z") == 100.0
    assert parse_utc("2025-03-01T12:00:00+00:00") == NOW
    assert parse_utc("yesterday") is None
    assert parse_utc(None) is None and parse_utc(12) is None


def test_alive_with_a_fresh_heartbeat_is_running():
    run = facts(pid=10, alive=True, heartbeat={"updated_at": stamp(5)})
    assert run_state(run, NOW, STALL) == RUNNING
    assert heartbeat_age(run, NOW) == 5


def test_alive_with_an_old_heartbeat_is_stalled():
    run = facts(pid=10, alive=True, heartbeat={"updated_at": stamp(STALL + 1)},
                launched_at=int(NOW - 3 * STALL))
    assert run_state(run, NOW, STALL) == STALLED


def test_a_relaunch_newer_than_the_old_heartbeat_is_running_not_stalled():
    run = facts(pid=10, alive=True, heartbeat={"updated_at": stamp(5000)},
                launched_at=int(NOW - 3))
    assert run_state(run, NOW, STALL) == RUNNING
    assert progress_age(run, NOW) == 3
    assert heartbeat_age(run, NOW) == 5000  # the heartbeat's own age is still reported


def test_a_status_write_counts_as_progress():
    run = facts(alive=True, status={"state": "running", "updated_at": stamp(20)},
                heartbeat={"updated_at": stamp(5000)})
    assert run_state(run, NOW, STALL) == RUNNING


def test_alive_without_any_timestamp_is_running_never_guessed_stalled():
    assert run_state(facts(alive=True), NOW, STALL) == RUNNING
    assert progress_age(facts(alive=True), NOW) is None


@pytest.mark.parametrize(("code", "state"), [(0, FINISHED), (75, PREEMPTED), (1, FAILED),
                                             (2, FAILED), (137, FAILED)])
def test_an_exit_record_decides(code, state):
    assert state_of_exit(code) == state
    assert run_state(facts(pid=10, exit_code=code), NOW, STALL) == state


def test_sealed_is_finished_even_without_an_exit_record():
    # A job wrapper killed after the trainer sealed the run (captured: a SIGTERM to the wrapper).
    run = facts(pid=10, alive=False, sealed=True, status={"state": "running"})
    assert run_state(run, NOW, STALL) == FINISHED


def test_no_process_and_no_exit_record_is_dead():
    run = facts(pid=10, alive=False, status={"state": "running", "updated_at": stamp(30)},
                heartbeat={"updated_at": stamp(30)})
    assert run_state(run, NOW, STALL) == DEAD
    assert run_state(facts(), NOW, STALL) == DEAD


@pytest.mark.parametrize("recorded", ["failed", "preempted", "finished"])
def test_without_a_job_wrapper_the_trainers_own_end_record_counts(recorded):
    run = facts(alive=False, status={"state": recorded, "exit_code": 1})
    assert run_state(run, NOW, STALL) == recorded


def test_the_stall_limit_is_the_hosts():
    run = facts(alive=True, heartbeat={"updated_at": stamp(120)})
    assert run_state(run, NOW, stall_after_s=60) == STALLED
    assert run_state(run, NOW, stall_after_s=600) == RUNNING
