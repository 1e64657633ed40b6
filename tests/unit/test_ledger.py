"""The launch ledger: one line per launch, appended before the job starts, read back whole; a
line that is not a launch record is refused by number, never skipped."""

from __future__ import annotations

import pytest

from rgt.remote.ledger import LedgerError, by_root, launches, ledger_path, record_launch


def test_launches_are_appended_and_counted_per_run_and_root(tmp_path):
    first = record_launch(tmp_path, "gpubox", "/root/autodl-tmp/rgt/p", "aaaa")
    record_launch(tmp_path, "gpubox", "/root/autodl-tmp/rgt/p", "bbbb")
    again = record_launch(tmp_path, "gpubox", "/root/autodl-tmp/rgt/p", "aaaa")
    elsewhere = record_launch(tmp_path, "other", "/workspace/rgt/p", "aaaa")
    assert (first.attempt, again.attempt, elsewhere.attempt) == (1, 2, 1)
    assert [entry.run_id for entry in launches(tmp_path, "gpubox")] == ["aaaa", "bbbb", "aaaa"]
    assert list(by_root(launches(tmp_path))) == ["/root/autodl-tmp/rgt/p", "/workspace/rgt/p"]
    assert len(ledger_path(tmp_path).read_text().splitlines()) == 4
    assert first.at.endswith("Z") and "attempt 1" in first.describe()


def test_an_unreadable_line_is_refused_by_its_number(tmp_path):
    record_launch(tmp_path, "gpubox", "/r", "aaaa")
    with open(ledger_path(tmp_path), "a") as ledger:
        ledger.write('{"schema": "rgt/launch/v1", "host": "gpubox", "ro\n')
    with pytest.raises(LedgerError) as caught:
        launches(tmp_path, "gpubox")
    assert "line 2 of" in caught.value.message and "is not a launch record" in \
        caught.value.message
    assert "check that run by hand" in caught.value.fix


def test_no_ledger_means_no_launch(tmp_path):
    assert launches(tmp_path) == []
