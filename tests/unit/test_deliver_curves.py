"""Curve figures (kind: curve): a scalar the runs logged while training, over steps, per variant
of one experiment — through the real verbs on synthetic sealed runs with a train.csv each."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from conftest import TINY
from evidence_helpers import ACCURACY, write_runs, write_verify
from rgt.base.errors import ConfigError
from rgt.cli import main
from rgt.config import load_config
from rgt.deliver.aggregate import build_aggregate
from rgt.deliver.curves import curves_from_rows, render_curve
from rgt.deliver.inputs import DeliveryError
from rgt.deliver.registry import curve_specs, figure_spec, figure_specs
from rgt.deliver.source_data import CURVE_COLUMNS, curve_rows, read_source_data

CURVE = {"kind": "curve", "metric": "train_loss", "experiment": "digits"}


def loss_at(variant: str, seed: int, step: int) -> float:
    """A decaying loss, a little different per seed; awkward floats for the round trip."""
    return (1.0 + 0.1 * seed + (0.3 if variant == "plain" else 0.0)) / (1 + step) + 1 / 3


def write_history(run_dir: Path, variant: str, seed: int, steps=(10, 20, 30)) -> None:
    """A built-in trainer's train.csv: train_loss every epoch, val_loss only at the last."""
    lines = ["epoch,step,train_loss,val_loss"]
    for epoch, step in enumerate(steps, 1):
        val = repr(0.5 + seed / 100) if step == steps[-1] else ""
        lines.append(f"{epoch},{step},{loss_at(variant, seed, step)!r},{val}")
    (run_dir / "train.csv").write_text("\n".join(lines) + "\n")


def config_with(tmp_path: Path, **figures) -> Path:
    """The tiny config with experiment ``digits`` (the synthetic runs') and ``figures``."""
    config = yaml.safe_load(TINY.read_text())
    config["experiments"] = {"digits": {"baseline": "plain", "seeds": [0, 1, 2], "variants": {
        "plain": {}, "dropout": {"model": {"dropout": 0.5}}}}}
    config["figures"] = {"test_accuracy": {"metric": "accuracy"}, **figures}
    path = tmp_path / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def runs(tmp_path) -> Path:
    write_runs(tmp_path / "runs")
    for variant, seed in ACCURACY:
        write_history(tmp_path / "runs" / f"{variant}-{seed}", variant, seed)
    return tmp_path / "runs"


def curves_of(tmp_path: Path, **figures) -> dict:
    return curve_specs(load_config(config_with(tmp_path, **figures)))


def test_the_aggregate_keeps_the_curves_scalars_and_nothing_without_a_curve(tmp_path, runs):
    assert "histories" not in build_aggregate(runs, curves=curves_of(tmp_path))
    aggregate = build_aggregate(runs, curves=curves_of(tmp_path, loss=CURVE))
    series = aggregate["histories"]["series"]["train_loss"]
    assert [(entry["variant"], entry["seed"]) for entry in series] == sorted(ACCURACY)
    assert series[0]["step"] == [10, 20, 30]
    assert series[0]["value"] == [loss_at("dropout", 0, step) for step in (10, 20, 30)]
    assert {Path(item["path"]).name for item in aggregate["histories"]["inputs"]} == {"train.csv"}
    assert len(aggregate["histories"]["inputs"]) == len(ACCURACY)


def test_curve_rows_are_long_format_exact_and_sorted(tmp_path, runs):
    spec = figure_spec(load_config(config_with(tmp_path, loss=CURVE)), "loss")
    aggregate = build_aggregate(runs, curves={"loss": spec})
    rows = curve_rows(aggregate, spec)
    assert len(rows) == 3 * len(ACCURACY)
    assert list(rows[0]) == list(CURVE_COLUMNS)
    assert rows == sorted(rows, key=lambda row: (row["variant"], row["seed"], row["step"]))
    assert rows[0] == {"variant": "dropout", "seed": 0, "run_id": "dropout-0", "step": 10,
                       "value": loss_at("dropout", 0, 10)}


def test_a_sparse_scalar_keeps_only_its_steps_and_a_repeated_step_its_last_value(tmp_path, runs):
    (runs / "plain-0" / "train.csv").write_text(
        "step,loss,val_loss\n1,2.0,\n2,1.5,\n2,,1.25\n2,,1.2\n4,1.0,0.9\n")
    spec = figure_spec(load_config(config_with(
        tmp_path, val={**CURVE, "metric": "val_loss"})), "val")
    series = build_aggregate(runs, curves={"val": spec})["histories"]["series"]["val_loss"]
    plain = next(entry for entry in series if entry["run_id"] == "plain-0")
    assert (plain["step"], plain["value"]) == ([2, 4], [1.2, 0.9])


def test_a_curve_of_a_scalar_no_run_logged_names_the_field_the_columns_and_the_fix(tmp_path,
                                                                                  runs):
    curves = curves_of(tmp_path, ppl={**CURVE, "metric": "perplexity"})
    with pytest.raises(DeliveryError) as error:
        build_aggregate(runs, curves=curves)
    assert "figures.ppl.metric = 'perplexity'" in error.value.message
    assert "epoch, train_loss, val_loss" in error.value.message
    assert "run.log(step, perplexity=value)" in error.value.fix


def test_a_curve_whose_column_holds_no_step_is_refused(tmp_path, runs):
    for run_dir in runs.iterdir():
        (run_dir / "train.csv").write_text("step,train_loss\n")
    with pytest.raises(DeliveryError, match="logged no step"):
        build_aggregate(runs, curves=curves_of(tmp_path, loss=CURVE))


def test_a_value_that_is_not_a_finite_number_names_the_file_and_column(tmp_path, runs):
    (runs / "plain-1" / "train.csv").write_text("step,train_loss\n1,nan\n")
    with pytest.raises(DeliveryError, match=r"plain-1/train.csv: column 'train_loss' holds 'nan'"):
        build_aggregate(runs, curves=curves_of(tmp_path, loss=CURVE))


@pytest.mark.parametrize(("figure", "words"), [
    ({**CURVE, "split": "val"}, "figures.loss.split = 'val'"),
    ({**CURVE, "experiment": "nope"}, "figures.loss.experiment = 'nope'"),
])
def test_a_curve_with_a_split_or_an_unknown_experiment_is_a_config_error(tmp_path, figure,
                                                                         words):
    with pytest.raises(ConfigError, match=words):
        figure_specs(load_config(config_with(tmp_path, loss=figure)))


def test_a_curve_takes_the_only_experiment_and_needs_one_among_several(tmp_path):
    curve = {"kind": "curve", "metric": "train_loss"}
    assert figure_specs(load_config(config_with(tmp_path, loss=curve)))["loss"].experiment == \
        "digits"
    config = yaml.safe_load(config_with(tmp_path, loss=curve).read_text())
    config["experiments"]["other"] = config["experiments"]["digits"]
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(ConfigError, match="figures.loss.experiment = None"):
        figure_specs(load_config(tmp_path / "config" / "config.yaml"))


def test_curves_are_the_seeds_mean_inside_their_min_max_band():
    rows = [{"variant": "a", "seed": seed, "run_id": f"a{seed}", "step": step, "value": value}
            for seed, values in enumerate([(3.0, 2.0), (5.0, 1.0), (4.0, 3.0)])
            for step, value in zip((1, 2), values, strict=True)]
    rows.append({"variant": "b", "seed": 0, "run_id": "b0", "step": 1, "value": 7.0})
    first, single = curves_from_rows(rows)
    assert (first.steps, first.mean, first.low, first.high, first.seeds) == \
        ((1, 2), (4.0, 2.0), (3.0, 1.0), (5.0, 3.0), 3)
    assert (single.mean, single.seeds) == ((7.0,), 1)


def test_rendering_is_deterministic_and_gated_with_a_band_per_multi_seed_variant(tmp_path):
    spec = figure_spec(load_config(config_with(tmp_path, loss=CURVE)), "loss")
    rows = [{"variant": variant, "seed": seed, "run_id": f"{variant}{seed}", "step": step,
             "value": loss_at(variant, seed, step)}
            for variant, seeds in (("plain", (0, 1)), ("wide", (0,)))
            for seed in seeds for step in range(0, 200, 10)]
    first, again = render_curve(rows, spec), render_curve(rows, spec)
    assert (first.png, first.pdf) == (again.png, again.pdf)
    assert first.facts["bands_expected"] == first.facts["bands_drawn"] == ["plain"]
    assert first.facts["clipped_text"] == [] and first.facts["bars"] == 2


def test_source_data_and_figure_verbs_deliver_a_curve_without_claims(tmp_path, runs,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    config_with(tmp_path, loss=CURVE)
    write_verify(tmp_path / "verify" / "report.json")
    assert main(["aggregate", "--runs", "runs", "--out", "evidence/results.json"]) == 0
    assert main(["source-data", "--fig", "loss", "--out", "figures/loss/source_data.csv"]) == 0
    assert main(["figure", "--fig", "loss", "--out-dir", "figures/loss"]) == 0
    rows = read_source_data("figures/loss/source_data.csv", "curve")
    assert all(math.isfinite(row["value"]) for row in rows) and len(rows) == 15
    provenance = json.loads(Path("figures/loss/provenance.json").read_text())
    assert provenance["pixel_gate"]["ok"], provenance["pixel_gate"]
    assert provenance["source_matches_aggregate"] is True
    assert provenance["claims"] == [] and len(provenance["run_ids"]) == len(ACCURACY)
    assert [check["name"] for check in provenance["pixel_gate"]["checks"]].count("bands") == 1


def test_an_aggregate_without_the_curves_scalars_is_refused_with_the_fix(tmp_path, runs,
                                                                         monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["aggregate", "--runs", "runs", "--out", "evidence/results.json"]) == 0
    config_with(tmp_path, loss=CURVE)  # declared after the aggregate was made
    assert main(["source-data", "--fig", "loss"]) != 0
    err = capsys.readouterr().err
    assert "holds no logged 'train_loss'" in err and "rgt aggregate --config" in err
    assert "Traceback" not in err


def test_the_snakefile_stops_on_a_bad_figure_with_its_message_not_a_traceback(tmp_path, capsys):
    from rgt.deliver.registry import figure_files
    from rgt.plan.snakefile import or_exit

    config = load_config(config_with(tmp_path, loss={**CURVE, "split": "val"}))
    with pytest.raises(SystemExit) as stop:
        or_exit(figure_files, config)
    err = capsys.readouterr().err
    assert stop.value.code == ConfigError.exit_code
    assert err.startswith("error: figures.loss.split = 'val'") and "fix: remove" in err
