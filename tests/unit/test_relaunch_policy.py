"""The relaunch policy: preempted and vanished jobs go again within the budget, with a doubling
back-off; code errors never; a negative budget is refused with its fix."""

from __future__ import annotations

import pytest

from rgt.base.errors import ConfigError
from rgt.pool.relaunch import MAX_DELAY_S, ended_how, relaunch_policy


def test_preempted_and_vanished_jobs_go_again_within_the_budget_and_code_errors_never():
    policy = relaunch_policy(2, 10)
    assert policy.allows("preempted", 0) and policy.allows("dead", 1)
    assert not policy.allows("preempted", 2)  # the budget is spent
    assert not policy.allows("failed", 0)  # a traceback, TrainingDiverged: the same again
    assert not relaunch_policy(0, 10).allows("preempted", 0)


def test_the_back_off_doubles_and_is_capped():
    policy = relaunch_policy(20, 10)
    assert [policy.delay(n) for n in (1, 2, 3)] == [10, 20, 40]
    assert policy.delay(20) == MAX_DELAY_S


@pytest.mark.parametrize(("retries", "backoff", "named"), [(-1, 30, "--rgt-retries -1"),
                                                          (3, -5, "--rgt-retry-backoff -5")])
def test_a_negative_budget_or_back_off_is_refused_with_its_fix(retries, backoff, named):
    with pytest.raises(ConfigError, match="is negative") as error:
        relaunch_policy(retries, backoff)
    assert named in str(error.value) and error.value.fix


def test_the_message_says_why_a_job_was_not_relaunched():
    policy = relaunch_policy(3, 30)
    assert "relaunched 3 times, the budget of --rgt-retries 3" in ended_how(
        "preempted", 75, 3, policy)
    assert "a code error, not relaunched" in ended_how("failed", 1, 0, policy)
    assert "vanished" in ended_how("dead", None, 3, policy)
