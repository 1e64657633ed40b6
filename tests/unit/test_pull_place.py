"""A pulled training run is placed whole: every file of its bundle's run/ (model.pt,
predictions.parquet: what verify and delivery read), then the declared outputs last."""

from __future__ import annotations

import pytest

from rgt.base.errors import RgtError
from rgt.pull.home import place_outputs


def test_every_file_of_the_sealed_run_comes_home(tmp_path):
    run = tmp_path / "bundle" / "run"
    (run / "tb").mkdir(parents=True)
    for name in ("run.json", "train.csv", "config.yaml", "results.json", "model.pt",
                 "predictions.parquet", "tb/events.out"):
        (run / name).write_text(name)
    home = tmp_path / "runs" / "aaaa"
    outputs = [home / name for name in ("run.json", "train.csv", "config.yaml", "results.json")]
    place_outputs(tmp_path / "bundle", outputs)
    placed = sorted(path.relative_to(home).as_posix() for path in home.rglob("*")
                    if path.is_file())
    assert placed == ["config.yaml", "model.pt", "predictions.parquet", "results.json",
                      "run.json", "tb/events.out", "train.csv"]
    assert not list(home.rglob("*.tmp"))


def test_a_declared_output_the_bundle_lacks_is_refused_before_anything_is_placed(tmp_path):
    (tmp_path / "bundle" / "run").mkdir(parents=True)
    (tmp_path / "bundle" / "run" / "model.pt").write_text("w")
    with pytest.raises(RgtError) as caught:
        place_outputs(tmp_path / "bundle", [tmp_path / "runs" / "aaaa" / "run.json"])
    assert "has no run/run.json" in caught.value.message
    assert not (tmp_path / "runs").exists()
