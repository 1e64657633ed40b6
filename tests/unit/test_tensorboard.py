"""TensorBoard event files next to train.csv, read back with TensorBoard's own reader."""

from __future__ import annotations

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from conftest import ROOT
from rgt.train.plain_records import seal_plain_run
from rgt.train.tensorboard import write_scalars

HISTORY = [{"epoch": 1, "step": 10, "train_loss": 0.9, "val_loss": 0.8, "val_accuracy": 0.5,
            "lr": 0.01},
           {"epoch": 2, "step": 20, "train_loss": 0.4, "val_loss": 0.45, "val_accuracy": 0.75,
            "lr": 0.005}]


def scalars(run_dir) -> dict[str, list[tuple[int, float]]]:
    events = EventAccumulator(str(run_dir))
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)]
            for tag in events.Tags()["scalars"]}


def test_every_history_column_is_a_scalar_at_its_step(tmp_path):
    written = write_scalars(tmp_path, HISTORY)
    assert written.parent == tmp_path and written.name.startswith("events.out.tfevents.")
    found = scalars(tmp_path)
    assert set(found) == {"train_loss", "val_loss", "val_accuracy", "lr"}
    for tag, points in found.items():
        assert [step for step, _ in points] == [10, 20]
        assert [value for _, value in points] == pytest.approx([row[tag] for row in HISTORY])


def test_sealing_again_leaves_one_event_file(tmp_path):
    write_scalars(tmp_path, HISTORY)
    write_scalars(tmp_path, HISTORY)
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 1
    assert len(scalars(tmp_path)["lr"]) == 2


def test_a_plain_loop_run_gets_its_events_beside_train_csv(tmp_path, monkeypatch):
    monkeypatch.delenv("RGT_RUN_RECORD", raising=False)
    monkeypatch.delenv("RGT_CONFIG", raising=False)
    history = [{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.5, "perplexity": 4.5}]
    metrics = {"loss": {"value": 1.5, "split": "val", "direction": "lower"}}
    seal_plain_run(tmp_path, "r1", metrics, history, None, None, attempts=1, steps=2)
    assert (tmp_path / "train.csv").is_file()
    found = scalars(tmp_path)
    assert found["loss"] == [(1, 2.0), (2, 1.5)] and found["perplexity"] == [(2, 4.5)]


def test_watch_names_the_tensorboard_command_for_the_configured_runs(tmp_path):
    from rgt.watch.command import tensorboard_line

    assert tensorboard_line(tmp_path).endswith("tensorboard --logdir runs")  # no config: default
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(
        (ROOT / "tests/data/tiny.yaml").read_text() + "paths: {runs: results/runs}\n")
    assert tensorboard_line(tmp_path) == \
        "TensorBoard (sealed runs' scalars): tensorboard --logdir results/runs"
