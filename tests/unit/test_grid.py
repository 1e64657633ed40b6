"""The grid: expected cells from the config, what this machine holds (real files, real pulled
bundles, real checkpoints), each host's view parsed from the real snapshot script's output, and
every cell's state with the command that closes its gap."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import torch
import yaml
from test_pull_verify import make_bundle, seal

from rgt.cli import main
from rgt.config import load_config
from rgt.grid.cells import Relaunch, classify, only_on, reconcile
from rgt.grid.expected import (
    Cell,
    LocalCheckpoint,
    LocalFacts,
    age_text,
    checkpoint_text,
    expected_cells,
    local_facts,
    newest_checkpoint,
)
from rgt.grid.host_views import FINISHED, PARTIAL, RUNNING, HostRun, HostView, read_reply
from rgt.mirror.record import MirrorRecord
from rgt.pull.closeout import closeout, partial_dir
from rgt.train.checkpoint import CheckpointStore
from rgt.watch.collect import snapshot_script

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
CELL = Cell("tiny", "plain", 0, "aaaa000011112222")
RELAUNCH = Relaunch({"gpu1": "runpod", "box": "ssh"}, default_host="gpu1")


def stamp(minutes_ago: float) -> str:
    return (NOW - timedelta(minutes=minutes_ago)).isoformat().replace("+00:00", "Z")


def mirror_record(step: int = 400) -> MirrorRecord:
    return MirrorRecord(CELL.run_id, "gpu1", step, 1000, f"step-{step:09d}.pt", 10, "0" * 64,
                        stamp(12), stamp(10), 1.0, 10, 60.0)


def seal_here(runs: Path, run_id: str, host_audit: dict | None = None) -> None:
    """The files ``rgt train`` seals (contents do not matter to the grid, presence does)."""
    run = runs / run_id
    run.mkdir(parents=True)
    for name in ("config.yaml", "train.csv", "model.pt"):
        (run / name).write_text("x\n")
    (run / "run.json").write_text(json.dumps({"run_id": run_id, "status": "finished",
                                              "host_audit": host_audit}))


def pulled(export: Path, run_id: str) -> Path:
    """A real verified bundle of a sealed run in ``export/<run_id>``."""
    parent = partial_dir(export, run_id).parent
    parent.mkdir(parents=True, exist_ok=True)
    bundle = make_bundle(parent, run_id, seal_it=False)
    (bundle / "run" / "config.yaml").write_text("seed: 0\n")
    seal(bundle, run_id)
    assert closeout(export, run_id).state == "exported"
    return export / run_id


# --- expected grid and local facts ----------------------------------------------------------


def test_the_expected_grid_is_one_cell_per_experiment_variant_and_seed(tiny_config):
    cells = expected_cells(load_config(tiny_config))
    assert [(c.exp_id, c.variant, c.seed) for c in cells] == [
        ("tiny", "plain", 0), ("tiny", "plain", 1), ("tiny", "dropout", 0), ("tiny", "dropout", 1)]
    assert len({c.run_id for c in cells}) == 4 and cells[2].label == "tiny/dropout/seed 0"


def test_local_facts_read_seals_origins_and_pulled_bundles(tmp_path):
    runs, states, export = tmp_path / "runs", tmp_path / "checkpoints", tmp_path / "export"
    seal_here(runs, "here0000")
    seal_here(runs, "host0000", {"host": "gpu1"})
    here, remote = (local_facts(i, runs, states, export) for i in ("here0000", "host0000"))
    assert (here.sealed, here.origin, here.verified) == (True, None, False)
    assert (remote.sealed, remote.origin, remote.verified) == (True, "gpu1", False)
    bundle = pulled(export, "host0000")
    assert local_facts("host0000", runs, states, export).verified
    assert local_facts("host0000", runs, states, export, deep=True).verified
    (bundle / "run" / "model.pt").unlink()
    facts = local_facts("host0000", runs, states, export)
    assert not facts.verified and "run/model.pt gone since the pull" in facts.bundle_problem


def test_the_newest_complete_checkpoint_and_its_mirror_are_read_from_disk(tmp_path):
    store = CheckpointStore(tmp_path / "ck")
    assert newest_checkpoint(tmp_path / "ck") is None
    for step in (10, 20):
        store.save(step, {"w": torch.zeros(2)})
    (tmp_path / "ck" / "step-000000030.pt").write_bytes(b"torn")  # no marker: not complete
    found = newest_checkpoint(tmp_path / "ck")
    assert found.step == 20 and found.mirror is None and found.saved_at.endswith("Z")
    assert checkpoint_text(found).startswith("local: step 20, 0 min old")
    mirror_record(20).write(tmp_path / "ck")
    found = newest_checkpoint(tmp_path / "ck")
    assert found.mirror.host == "gpu1"
    assert checkpoint_text(LocalCheckpoint(20, stamp(12), found.mirror), NOW) == (
        "mirror of gpu1: step 20, 12 min old")


@pytest.mark.parametrize(("minutes", "text"), [(0.2, "0 min old"), (12, "12 min old"),
                                               (210, "3.5 h old"), (60 * 72, "3.0 d old")])
def test_ages_are_readable(minutes, text):
    assert age_text(stamp(minutes), NOW) == text
    assert age_text(None, NOW) == age_text("garbage", NOW) == ""


# --- the host's view, parsed from the real snapshot script run here --------------------------


def real_snapshot(root: Path) -> str:
    result = subprocess.run(["bash", "-c", snapshot_script(str(root))], capture_output=True,
                            text=True, timeout=30, check=True)
    return result.stdout


def write(path: Path, body: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body))


def test_the_snapshot_reply_gives_finished_running_and_partial_runs(tmp_path):
    root = tmp_path / "root"
    write(root / "runs" / "done0000" / "run.json", {"run_id": "done0000"})
    write(root / "checkpoints" / "done0000" / "status.json", {"state": "finished", "step": 90})
    write(root / "checkpoints" / "stop0000" / "status.json",
          {"state": "preempted", "step": 40, "total_steps": 90, "started_at": stamp(30)})
    (root / "jobs" / "empty000").mkdir(parents=True)
    (root / "jobs" / "empty000" / "launches").write_text("1\n")  # launched, nothing written
    live = subprocess.Popen(["bash", "-c", ": rgt-job live0000; sleep 30; true"],
                            start_new_session=True)
    try:
        (root / "jobs" / "live0000").mkdir()
        (root / "jobs" / "live0000" / "pid").write_text(f"{live.pid}\n")
        write(root / "checkpoints" / "live0000" / "heartbeat.json",
              {"step": 120, "total_steps": 300, "updated_at": stamp(0)})
        write(root / "checkpoints" / "live0000" / "status.json",
              {"state": "running", "step": 100, "started_at": stamp(60)})
        view = read_reply("box", real_snapshot(root))
    finally:
        os.killpg(live.pid, signal.SIGKILL)
        live.wait(timeout=10)
    assert view.reachable and view.runs == {
        "done0000": HostRun(FINISHED, 90, None, None),
        "stop0000": HostRun(PARTIAL, 40, 90, stamp(30)),
        "live0000": HostRun(RUNNING, 120, 300, stamp(60))}


def test_a_cut_off_or_foreign_reply_makes_the_host_unreachable(tmp_path):
    whole = real_snapshot(tmp_path / "nothing")
    assert read_reply("box", whole) == HostView("box", {})
    for text in (whole.rsplit("end", 1)[0], "Welcome to the host!\n" + whole, ""):
        view = read_reply("box", text)
        assert not view.reachable and "not a complete rgt snapshot" in view.error


# --- each cell's state ------------------------------------------------------------------------


def state(local: LocalFacts, *hosts: HostView):
    return classify(CELL, local, hosts, RELAUNCH, NOW)


def on(alias: str, run: HostRun) -> HostView:
    return HostView(alias, {CELL.run_id: run})


def test_done_cells_are_verified_or_local_and_need_no_command():
    verified = state(LocalFacts(sealed=True, origin="gpu1", verified=True))
    assert (verified.state, verified.gap, verified.command) == ("verified", False, None)
    local = state(LocalFacts(sealed=True), HostView("gpu1", error="timed out"))
    assert (local.state, local.gap) == ("local", False)


def test_a_finished_run_on_a_host_is_pulled_with_the_exact_command():
    item = state(LocalFacts(sealed=True, origin="gpu1"), on("gpu1", HostRun(FINISHED, 90)))
    assert (item.state, item.host, item.gap) == ("on-host", "gpu1", True)
    assert item.command == f"rgt pull {CELL.run_id} --host gpu1"


def test_running_and_partial_cells_are_relaunched_on_their_host():
    mirror = LocalFacts(checkpoint=LocalCheckpoint(400, stamp(12), mirror_record()))
    running = state(mirror, on("box", HostRun(RUNNING, 520, 900)))
    assert (running.state, running.host, running.mirrored) == ("running", "box", True)
    assert running.detail == ("training on box at step 520/900; mirror of gpu1: step 400, "
                              "12 min old")
    assert running.command == f"snakemake --profile ssh --rgt-host box runs/{CELL.run_id}/run.json"
    partial = state(LocalFacts(), on("gpu1", HostRun(PARTIAL, 40)))
    assert (partial.state, partial.mirrored) == ("partial", False)
    assert partial.detail == "stopped on gpu1 at step 40; no local mirror"
    assert "--profile runpod --rgt-host gpu1" in partial.command


def test_the_most_telling_host_copy_wins():
    item = state(LocalFacts(), on("box", HostRun(PARTIAL, 40)), on("gpu1", HostRun(FINISHED)),
                 on("zz", HostRun(RUNNING, 3)))
    assert (item.state, item.host) == ("running", "zz")


def test_an_unreachable_host_makes_unplaced_cells_unknown_never_missing():
    down = HostView("gpu1", error="connection refused")
    item = state(LocalFacts(), down, HostView("box"))
    assert (item.state, item.command) == ("unknown", None) and "gpu1 unreachable" in item.detail
    assert state(LocalFacts(), on("box", HostRun(FINISHED)), down).state == "on-host"
    remote = LocalFacts(sealed=True, origin="box")
    assert state(remote, down).state == "local"  # sealed here; its origin answered
    assert state(remote, down, HostView("box", error="x")).state == "unknown"


def test_cells_nowhere_are_missing_or_partial_with_a_relaunch_command():
    missing = state(LocalFacts(), HostView("gpu1"))
    assert missing.state == "missing" and missing.command == (
        f"snakemake --profile runpod --rgt-host gpu1 runs/{CELL.run_id}/run.json")
    local_ck = state(LocalFacts(checkpoint=LocalCheckpoint(30, stamp(3), None)))
    assert local_ck.state == "partial" and local_ck.detail.startswith("local: step 30, 3 min")


def test_relaunch_commands_follow_the_profile_flag_config_and_runs_dir():
    relaunch = Relaunch({"gpu1": "autodl"}, None, "vastai", "my exp.yaml", "out/runs")
    assert relaunch.command("r1", "gpu1") == (
        "snakemake --profile vastai --rgt-host gpu1 --config 'config_file=my exp.yaml' "
        "out/runs/r1/run.json")
    assert Relaunch({}).command("r1", None) == "snakemake --profile local runs/r1/run.json"
    assert Relaunch({"gpu1": "autodl"}).command("r1", "gpu1").startswith(
        "snakemake --profile autodl --rgt-host gpu1 ")


def test_only_cells_living_only_on_the_host_block_its_down():
    cells = [Cell("e", "v", seed, f"run{seed}") for seed in range(5)]
    mirrored = LocalFacts(checkpoint=LocalCheckpoint(9, None, mirror_record()))
    local = {"run0": LocalFacts(sealed=True, origin="gpu1", verified=True), "run3": mirrored}
    view = HostView("gpu1", {"run0": HostRun(FINISHED), "run1": HostRun(FINISHED),
                             "run2": HostRun(PARTIAL, 7), "run3": HostRun(PARTIAL, 9),
                             "run4": HostRun(RUNNING, 5)})
    reasons = only_on(reconcile(cells, local, [view], RELAUNCH, NOW), "gpu1")
    assert [reason.split()[2] for reason in reasons] == ["e/v/seed", "e/v/seed"]
    assert "(run run1) lives only on gpu1: finished there" in reasons[0]
    assert "`rgt pull run1 --host gpu1`" in reasons[0]
    assert "(run run2) lives only on gpu1: stopped on gpu1 at step 7" in reasons[1]
    assert only_on(reconcile(cells, local, [view], RELAUNCH, NOW), "box") == []


# --- the verb ---------------------------------------------------------------------------------


def test_reconcile_grid_exits_1_with_gaps_and_0_when_complete(tmp_path, tiny_config, capsys,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(tiny_config))
    assert main(["reconcile-grid", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["complete"] is False and report["counts"] == {"missing": 4}
    assert report["hosts"] == []
    first = report["cells"][0]
    assert first["command"] == f"snakemake --profile local runs/{first['run_id']}/run.json"
    for cell in report["cells"]:
        seal_here(tmp_path / "runs", cell["run_id"])
    assert main(["reconcile-grid"]) == 0
    assert "4 local; the grid is complete" in capsys.readouterr().out


def test_an_unknown_host_flag_is_a_user_error(tmp_path, tiny_config, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(tiny_config))
    assert main(["reconcile-grid", "--host", "nope"]) == 1
    err = capsys.readouterr().err
    assert "--host nope: not in the hosts file" in err and "Traceback" not in err
