"""The snapshot parser on the real output of the snapshot script over a planted root.

tests/data/logs/snapshot/planted.txt was produced by running ``snapshot_script`` for real (see
case_snapshot in tests/data/logs/capture.py): a live detached job, a sealed run, a failed run
with the code_error logs, a dead job, a job-less run whose status.json names a live process,
a watchdog heartbeat and an ALARM. No GPU there: the gpu tests splice in nvidia-smi output.
"""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest

from rgt.watch.collect import SnapshotError, parse_snapshot, snapshot_script
from rgt.watch.states import DEAD, FAILED, FINISHED, RUNNING, run_state

DATA = Path(__file__).resolve().parents[1] / "data"


def planted() -> str:
    return (DATA / "logs" / "snapshot" / "planted.txt").read_text().partition("\n")[2]


def test_host_facts():
    snap = parse_snapshot(planted())
    assert snap.now > 1_700_000_000 and snap.uptime_s > 0
    assert snap.oom_kills == 0 and snap.gpus is None  # no nvidia-smi on that machine
    assert snap.watchdog["updated_at"].endswith("Z")
    assert snap.alarm == {"message": "host idle for 1800 s"} and snap.stopped is None


def test_every_planted_run_and_its_state():
    snap = parse_snapshot(planted())
    runs = {run.run_id: run for run in snap.runs}
    assert sorted(runs) == ["bare0", "dead0", "failed0", "finished0", "running0"]
    states = {run_id: run_state(run, snap.now, 600) for run_id, run in runs.items()}
    assert states == {"bare0": RUNNING, "dead0": DEAD, "failed0": FAILED,
                      "finished0": FINISHED, "running0": RUNNING}


def test_job_fields_and_decoded_files():
    runs = {run.run_id: run for run in parse_snapshot(planted()).runs}
    running = runs["running0"]
    assert running.alive and running.pid > 1 and running.launches == 1
    assert running.launched_at is not None and running.exit_code is None
    assert running.heartbeat["step"] == 42 and running.status["step"] == 10
    failed = runs["failed0"]
    assert failed.exit_code == 1 and not failed.alive
    assert failed.job_log.rstrip().endswith("(64x32 and 64x10)")
    assert "starting tiny/plain" in failed.train_log
    assert runs["finished0"].sealed and not runs["dead0"].sealed
    assert runs["bare0"].pid is None and runs["bare0"].alive  # via status.json's pid


def test_a_cut_off_reply_is_refused_whole():
    text = planted()
    with pytest.raises(SnapshotError, match="not a complete"):
        parse_snapshot(text[: len(text) // 2])
    with pytest.raises(SnapshotError):
        parse_snapshot("Welcome to the machine!\n" + text)
    with pytest.raises(SnapshotError):
        parse_snapshot("")


def test_a_torn_json_file_is_no_fact():
    torn = base64.b64encode(b'{"step": 4').decode()
    text = planted().replace("watchdog ", f"watchdog {torn}\nignored ", 1)
    assert parse_snapshot(text).watchdog is None


def test_gpu_lines_are_parsed_with_the_audit_parser():
    smi = (DATA / "captured" / "nvidia_smi_multi_gpu.txt").read_text()
    rows = "".join(line + "\n" for line in smi.splitlines() if not line.startswith("#"))
    text = planted().replace("gpu -", "gpu " + base64.b64encode(rows.encode()).decode())
    gpus = parse_snapshot(text).gpus
    assert [gpu.utilization_percent for gpu in gpus] == [97, 0, 0, 0]
    assert gpus[0].memory_used_mib == 40963


def test_an_nvidia_smi_that_printed_garbage_gives_no_gpu_facts():
    text = planted().replace("gpu -", "gpu " + base64.b64encode(b"NVIDIA-SMI has failed\n")
                             .decode())
    assert parse_snapshot(text).gpus == []


def test_the_script_runs_over_an_empty_or_missing_root(tmp_path):
    for root in (tmp_path, tmp_path / "missing", tmp_path / "with space"):
        out = subprocess.run(["bash", "-c", snapshot_script(str(root))], capture_output=True,
                             text=True, timeout=60)
        snap = parse_snapshot(out.stdout)
        assert snap.runs == [] and snap.watchdog is None
