"""Young/Daly checkpoint cadence."""

from __future__ import annotations

import json
import math

import pytest

import rgt.train.cadence as cadence_module
from rgt.train.cadence import (
    CADENCE_FILE,
    CADENCE_SCHEMA,
    Cadence,
    interval_steps,
    read_ceiling,
    young_daly_seconds,
)


def test_young_daly_worked_example():
    # 30 s saves, a preemption every 3 h: sqrt(2 * 10800 * 30) = 804.98 s.
    assert math.isclose(young_daly_seconds(3 * 3600, 30), 804.98, rel_tol=1e-4)
    assert interval_steps(3 * 3600, 30, 2.0) == 402  # rounded down to a step boundary


def test_interval_is_at_least_one_step():
    assert interval_steps(60, 0.0, 1.0) == 1
    assert interval_steps(60, 1e-6, 100.0) == 1


def test_cadence_uses_measured_costs():
    cadence = Cadence(mtbf_hours=1.0)
    cadence.record_save(0, 0.02)
    for _ in range(10):
        cadence.record_step(0.01)
    expected = math.floor(math.sqrt(2 * 3600 * 0.02) / 0.01)
    assert cadence.interval() == expected
    assert not cadence.due(expected - 1) and cadence.due(expected)


def test_every_steps_overrides_young_daly():
    cadence = Cadence(mtbf_hours=1000.0, every_steps=5)
    cadence.record_save(10, 5.0)
    assert cadence.interval() == 5 and cadence.due(15) and not cadence.due(14)


def test_the_interval_follows_the_blocking_cost_and_write_times_are_only_recorded():
    cadence = Cadence(mtbf_hours=1.0)
    cadence.record_step(0.01)
    cadence.record_save(0, 0.002)  # a background save: the loop waited 2 ms
    cadence.record_write(3.0)  # ... while its write took 3 s beside training
    assert cadence.interval() == math.floor(math.sqrt(2 * 3600 * 0.002) / 0.01)
    assert cadence.totals == {"saves": 1, "blocked_seconds": 0.002,
                              "max_blocked_seconds": 0.002, "written": 1, "write_seconds": 3.0}


def test_resuming_restores_the_cost_without_counting_a_save():
    cadence = Cadence(mtbf_hours=1.0)
    cadence.resume(40, 0.5)
    assert (cadence.last_saved_step, cadence.save_seconds, cadence.totals["saves"]) == (
        40, 0.5, 0)


def write_ceiling(path, seconds) -> None:
    path.write_text(json.dumps({"schema": CADENCE_SCHEMA, "max_seconds": seconds}))


def test_a_mirror_ceiling_makes_a_save_due_once_its_seconds_have_passed(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(cadence_module.time, "monotonic", lambda: clock[0])
    ceiling = tmp_path / CADENCE_FILE
    cadence = Cadence(mtbf_hours=1000.0, ceiling_file=ceiling)
    cadence.record_save(0, 0.01)
    cadence.record_step(0.1)
    assert cadence.interval() > 1000 and not cadence.due(1)  # no ceiling yet: Young/Daly only
    write_ceiling(ceiling, 5.0)
    clock[0] += 1.0  # re-read at most once a second
    assert not cadence.due(2)
    clock[0] += 3.9  # 4.9 s since the save: one more step (0.1 s) and a save (0.01 s) pass 5
    assert cadence.due(3)
    cadence.record_save(3, 0.01)
    assert not cadence.due(3)  # never twice at one step


def test_the_ceiling_never_makes_saving_take_more_than_a_tenth_of_the_time(tmp_path):
    ceiling = tmp_path / CADENCE_FILE
    write_ceiling(ceiling, 5.0)
    cadence = Cadence(mtbf_hours=1.0, ceiling_file=ceiling)
    cadence.record_save(0, 2.0)  # a 2 s save: every 5 s would spend 40 % of the time saving
    assert cadence.ceiling_seconds() == 20.0


@pytest.mark.parametrize("text", ["", "{", '{"schema": "other", "max_seconds": 5}',
                                  f'{{"schema": "{CADENCE_SCHEMA}", "max_seconds": -1}}',
                                  f'{{"schema": "{CADENCE_SCHEMA}", "max_seconds": "NaN"}}'])
def test_an_unreadable_or_foreign_ceiling_is_ignored(tmp_path, text):
    (tmp_path / CADENCE_FILE).write_text(text)
    assert read_ceiling(tmp_path / CADENCE_FILE) is None
    assert read_ceiling(tmp_path / "absent.json") is None
