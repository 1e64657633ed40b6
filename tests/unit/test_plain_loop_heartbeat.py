"""The plain-loop API's heartbeat, in process: what `rgt watch` reads of a running job."""

from __future__ import annotations

import json

import rgt


def heartbeat(run) -> dict:
    return json.loads((run.checkpoint_dir / "heartbeat.json").read_text())


def test_a_step_that_logs_no_loss_keeps_the_newest_loss_in_the_heartbeat(tmp_path, monkeypatch):
    """Trainers log evaluations and learning rates on rows of their own (Hugging Face's does):
    such a row must not blank the loss of a running job."""
    monkeypatch.chdir(tmp_path)
    for name in ("RGT_RUN_RECORD", "RGT_CONFIG", "RGT_EVERY_STEPS", "RGT_SMOKE_STEPS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RGT_RUN_ID", "beat")
    monkeypatch.setenv("RGT_HEARTBEAT_SECONDS", "0")
    with rgt.run() as run:
        run.log(1, loss=0.5)
        run.log(2, eval_loss=0.3)
        assert (heartbeat(run)["step"], heartbeat(run)["loss"]) == (2, 0.5)
        run.save(2, {"weights": [1.0]})
        assert heartbeat(run)["loss"] == 0.5
        run.log(3, loss=0.25)
        assert heartbeat(run)["loss"] == 0.25
        run.finish({"loss": {"value": 0.25, "split": "test", "direction": "lower", "n": 1}})
