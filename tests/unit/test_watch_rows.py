"""Rows of `rgt watch` (throughput, ETA, money, host facts), the view, and watchdog options."""

from __future__ import annotations

import pytest
from rich.console import Console

from rgt.base.clock import duration, parse_utc, utc_now
from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.platforms.host_audit import Gpu
from rgt.remote.watchdog_start import watchdog_options
from rgt.watch.collect import Snapshot
from rgt.watch.rows import host_rows, json_number, step_rate, unreachable_row
from rgt.watch.states import RunFacts
from rgt.watch.view import render

NOW = int(parse_utc("2025-03-01T12:00:00Z"))
HOST = HostEntry(alias="gpu1", platform="autodl", price_per_hour=3.6, currency="CNY",
                 stall_after_s=600)


def ago(seconds: float) -> str:
    return utc_now(NOW - seconds)


def running(step: int, beat_ago: float) -> RunFacts:
    # The attempt began training at step 100, 1000 s ago (status.json), after a 200 s start-up.
    return RunFacts(run_id="r1", pid=5, alive=True, launched_at=NOW - 1200,
                    status={"state": "running", "step": 100, "total_steps": 1100,
                            "started_at": ago(1200), "updated_at": ago(1000)},
                    heartbeat={"step": step, "total_steps": 1100, "loss": 0.5,
                               "updated_at": ago(beat_ago)})


def test_first_refresh_rate_eta_and_money_from_the_status_record():
    previous = {}
    [row] = host_rows(HOST, Snapshot(now=NOW, uptime_s=7200, runs=[running(600, 0)]), previous)
    assert row["state"] == "running" and (row["step"], row["total"]) == (600, 1100)
    assert row["steps_per_s"] == 0.5 and row["eta_s"] == 1000
    assert row["cost_so_far"] == 1.2  # 1200 s at 3.6 per hour
    assert row["cost_projected"] == 2.2  # plus 1000 s of ETA
    assert row["host_cost_so_far"] == 7.2 and row["heartbeat_age_s"] == 0
    assert previous == {("gpu1", "r1"): (600, NOW)}


def test_a_second_refresh_uses_the_rate_between_heartbeats():
    previous = {("gpu1", "r1"): (600, NOW - 100)}
    [row] = host_rows(HOST, Snapshot(now=NOW, runs=[running(800, 0)]), previous)
    assert row["steps_per_s"] == 2.0 and row["eta_s"] == 150


def test_no_rate_without_progress_facts():
    assert step_rate({}, {}, None) is None
    assert step_rate({"step": 5, "updated_at": ago(0)}, {"state": "failed"}, None) is None


def test_a_stalled_run_has_no_eta_and_a_finished_run_costs_until_its_end():
    stalled = running(600, 700)
    ended = RunFacts(run_id="r2", exit_code=0, status={
        "state": "finished", "started_at": ago(3600), "updated_at": ago(1800)})
    rows = host_rows(HOST, Snapshot(now=NOW, runs=[stalled, ended]), {})
    assert rows[0]["state"] == "stalled" and rows[0]["eta_s"] is None
    assert rows[1]["state"] == "finished" and rows[1]["cost_so_far"] == 1.8


def test_no_price_means_no_money():
    free = HostEntry(alias="lab", platform="ssh")
    [row] = host_rows(free, Snapshot(now=NOW, uptime_s=60, runs=[running(600, 0)]), {})
    assert row["cost_so_far"] is None and row["host_cost_so_far"] is None


def test_host_columns_gpu_watchdog_alarm():
    snap = Snapshot(now=NOW, gpus=[Gpu(0, "H100", 81559, 40963, 97)],
                    watchdog={"updated_at": ago(12)}, alarm={"message": "idle"},
                    stopped={"command": ["touch", "x"]})
    [row] = host_rows(HOST, snap, {})
    assert row["state"] == "no_runs" and row["gpu_util"] == [97]
    assert row["watchdog_age_s"] == 12 and row["alarm"] == "idle"
    assert row["auto_stopped"] == ["touch", "x"]


def test_json_number_spells_nan():
    assert json_number(float("nan")) == "nan" and json_number(float("-inf")) == "-inf"
    assert json_number(0.5) == 0.5 and json_number(None) is None


def test_render_shows_runs_hosts_and_unreachable():
    rows = host_rows(HOST, Snapshot(now=NOW, uptime_s=7200, watchdog={"updated_at": ago(3)},
                                    runs=[running(600, 0)]), {})
    rows.append(unreachable_row("gpu2", "cannot connect after 1 tries"))
    console = Console(record=True, width=200)
    console.print(render(rows))
    text = console.export_text()
    assert "r1" in text and "600/1100" in text and "16m40s" in text
    assert "gpu1: up 2h00m, spent 7.20 CNY, watchdog 3s ago" in text
    assert "gpu2: UNREACHABLE (cannot connect after 1 tries)" in text


def test_duration():
    assert [duration(s) for s in (None, 5, 425, 10920, 190000)] == [
        "-", "5s", "7m05s", "3h02m", "2d04h"]


def test_watchdog_options_pass_auto_stop_only_for_a_reversible_verb():
    opted = HostEntry(alias="a", platform="autodl", auto_stop=True,
                      host_stop_command=("shutdown", "-h", "now"), idle_alarm_after_s=900)
    reversible = {"meter_stop": {"verb": "stop", "irreversible": False}}
    assert watchdog_options(opted, reversible) == [
        "--idle-alarm-after", "900", "--stall-after", "600", "--host-name", "a", "--auto-stop",
        "--stop-irreversible", "false", "--stop-command", "shutdown", "-h", "now"]
    with pytest.raises(ConfigError, match="irreversible"):
        watchdog_options(opted, {"meter_stop": {"verb": "terminate", "irreversible": True}})
    assert "--auto-stop" not in watchdog_options(HostEntry(alias="b", platform="x"),
                                                 reversible)


def test_watchdog_options_carry_the_price_and_the_spending_caps():
    capped = HostEntry(alias="a", platform="autodl", price_per_hour=2.5, currency="CNY",
                       max_spend=40.0, max_spend_per_run=10.0)
    options = watchdog_options(capped, {"meter_stop": {"verb": "stop", "irreversible": False}})
    assert options[6:] == ["--price-per-hour", "2.5", "--currency", "CNY", "--max-spend",
                           "40.0", "--max-spend-per-run", "10.0"]
    assert "--max-spend" not in watchdog_options(HostEntry(alias="b", platform="x"), {})


def test_a_finished_run_shows_its_final_step_and_metrics_not_its_last_heartbeat():
    # The last heartbeat (written every few seconds) was 52 steps short of the end.
    ended = RunFacts(run_id="r3", exit_code=0, sealed=True,
                     status={"state": "finished", "step": 1201, "total_steps": 1201,
                             "started_at": ago(600), "updated_at": ago(10)},
                     heartbeat={"step": 1149, "total_steps": 1201, "loss": 2.3016,
                                "updated_at": ago(12)},
                     results={"metrics": [{"name": "perplexity", "split": "test",
                                           "value": 112.375, "direction": "lower"},
                                          {"name": "loss", "split": "val", "value": 4.7}]})
    [row] = host_rows(HOST, Snapshot(now=NOW, runs=[ended]), {})
    assert (row["state"], row["step"], row["total"]) == ("finished", 1201, 1201)
    assert row["result"] == "test perplexity 112.4"
    out = Console(width=300, record=True)
    out.print(render([row]))
    text = out.export_text()
    assert "1201/1201" in text and "test perplexity 112.4" in text and "1149" not in text


def test_a_pulled_run_shows_the_metrics_sealed_here(tmp_path):
    from rgt.base.files import write_json
    from rgt.watch.poll import add_local_results

    write_json(tmp_path / "r4" / "results.json",
               {"metrics": [{"name": "accuracy", "split": "test", "value": 0.95294}]})
    rows = add_local_results([{"run_id": "r4", "state": "finished", "result": None},
                              {"run_id": "r5", "state": "finished", "result": None}], tmp_path)
    assert [row["result"] for row in rows] == ["test accuracy 0.9529", None]
