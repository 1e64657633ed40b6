"""The training-job contract: a config declaring your own command, its run identity (sources,
data, user packages), its figures, and the errors for what does not fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import TINY
from rgt.base.errors import ConfigError, DataError
from rgt.config import load_config
from rgt.data import Dataset, checked_dataset
from rgt.deliver.registry import figure_specs
from rgt.plan.runplan import plan_runs
from rgt.train.job import check_sealed_run, job_argv, job_environment

JOB = {"command": "python train.py --dropout {params.dropout} --seed {seed}",
       "sources": ["train.py", "mylab"], "data": ["data/*.txt"],
       "params": {"dropout": 0.0}, "metrics": {"perplexity": {"direction": "lower"}}}


def job_config(**job) -> dict:
    return {"defaults": {"job": {**JOB, **job},
                         "checkpoint": {"keep": 2, "mtbf_hours": 6, "heartbeat_seconds": 5}},
            "experiments": {"lm": {"baseline": "plain", "seeds": [1, 2], "variants": {
                "plain": {}, "dropout": {"job": {"params": {"dropout": 0.3}}}}}}}


@pytest.fixture
def job_project(tmp_path, monkeypatch):
    """A project of one's own: a script, a package it imports, a data folder."""
    (tmp_path / "train.py").write_text("import mylab.model\n")
    (tmp_path / "mylab").mkdir()
    (tmp_path / "mylab" / "__init__.py").write_text("")
    (tmp_path / "mylab" / "model.py").write_text("HIDDEN = 64\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.txt").write_text("the ship saw a wave .\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_ids(config: dict) -> list[str]:
    return [spec.run_id for spec in plan_runs(load_config(config))]


def test_editing_any_declared_source_or_data_file_changes_the_run_ids(job_project):
    before = run_ids(job_config())
    assert len(set(before)) == 4
    (job_project / "mylab" / "model.py").write_text("HIDDEN = 128\n")  # a module imported
    edited = run_ids(job_config())
    (job_project / "data" / "train.txt").write_text("the ship saw a tide .\n")
    data_edited = run_ids(job_config())
    assert not set(before) & set(edited) and not set(edited) & set(data_edited)
    (job_project / "notes.md").write_text("not declared: decides nothing\n")
    assert run_ids(job_config()) == data_edited


def test_editing_a_module_of_a_plugins_package_changes_the_run_ids(job_project, tiny_config):
    (job_project / "mylab" / "nets.py").write_text("from mylab.model import HIDDEN\n")
    tiny_config["defaults"]["model"]["name"] = "mylab.nets:Net"
    sys.path.insert(0, str(job_project))
    try:
        before = run_ids(tiny_config)
        (job_project / "mylab" / "model.py").write_text("HIDDEN = 32\n")  # not the named file
        assert not set(before) & set(run_ids(tiny_config))
    finally:
        sys.path.remove(str(job_project))
        sys.modules.pop("mylab", None)


def test_the_job_sees_its_params_seed_and_places(job_project):
    [spec, *_] = plan_runs(load_config(job_config()))
    argv = job_argv(spec, Path("runs/x"), Path("checkpoints/x"))
    assert argv == [sys.executable, "train.py", "--dropout", "0.0", "--seed", "1"]


def test_the_scripts_own_files_get_a_directory_of_each_run(job_project):
    config = job_config(command="python train.py --seed {seed} --out_dir {out_dir}")
    first, second, *_ = plan_runs(load_config(config))
    for spec in (first, second):
        state = Path("checkpoints") / spec.run_id
        assert job_argv(spec, Path("runs") / spec.run_id, state)[-1] == f"{state}/out"
        env = job_environment(spec, Path("runs") / spec.run_id, state, None, 0)
        assert env["RGT_OUT_DIR"] == str((state / "out").resolve())
        assert (state / "out").is_dir()
    assert first.run_id != second.run_id  # two seeds, two directories: no shared ckpt.pt


@pytest.mark.parametrize(("job", "words"), [
    ({"command": "python train.py --lr {params.lr}"}, ["params.lr", "job.params has dropout"]),
    ({"command": "python train.py --out {outdir}"}, ["{outdir}", "{out_dir}"]),
    ({"sources": ["nope.py"]}, ["job.sources", "'nope.py' names no file"]),
    ({"data": ["data/*.csv"]}, ["job.data", "names no file"]),
])
def test_bad_job_settings_name_the_key_and_the_fix(job_project, job, words):
    with pytest.raises(ConfigError) as error:
        spec = plan_runs(load_config(job_config(**job)))[0]
        job_argv(spec, Path("r"), Path("c"))
    for word in words:
        assert word in str(error.value)


def test_a_metric_without_a_direction_is_refused(job_project):
    with pytest.raises(ConfigError, match=r"job\.metrics\.perplexity: required key 'direction'"):
        load_config(job_config(metrics={"perplexity": {}}))


def test_job_and_built_in_sections_do_not_mix(job_project):
    config = job_config()
    config["defaults"]["train"] = yaml.safe_load(TINY.read_text())["defaults"]["train"]
    with pytest.raises(ConfigError, match="have no effect") as error:
        load_config(config)
    assert "job.params" in error.value.fix
    without = job_config()
    del without["defaults"]["job"]
    with pytest.raises(ConfigError, match="data, model, train, selection missing"):
        load_config(without)


def test_figures_follow_the_declared_metrics(job_project):
    assert list(figure_specs(load_config(job_config()))) == ["test_perplexity"]
    config = job_config()
    config["figures"] = {"ppl": {"metric": "bleu"}}
    with pytest.raises(ConfigError, match=r"figures\.ppl\.metric = 'bleu'.*\(perplexity\)"):
        figure_specs(load_config(config))


def sealed(run_dir: Path, metrics: list[dict]) -> None:
    run_dir.mkdir(parents=True)
    for name in ("config.yaml", "train.csv"):
        (run_dir / name).write_text("")
    (run_dir / "run.json").write_text(json.dumps({"run_id": run_dir.name, "status": "finished"}))
    (run_dir / "results.json").write_text(json.dumps({"metrics": metrics}))


def test_a_results_file_without_a_declared_metric_is_refused_with_the_call(job_project):
    spec = plan_runs(load_config(job_config()))[0]
    run_dir = job_project / "runs" / spec.run_id
    sealed(run_dir, [{"name": "loss", "split": "test", "value": 1.0, "direction": "lower"}])
    with pytest.raises(DataError, match="no 'perplexity' on the 'test' split") as error:
        check_sealed_run(spec, run_dir)
    assert "run.finish({'perplexity'" in error.value.fix


def test_a_metric_reported_the_other_way_round_is_refused(job_project):
    spec = plan_runs(load_config(job_config()))[0]
    run_dir = job_project / "runs" / spec.run_id
    sealed(run_dir, [{"name": "perplexity", "split": "test", "value": 9.0,
                      "direction": "higher"}])
    with pytest.raises(DataError, match="declared 'lower'"):
        check_sealed_run(spec, run_dir)


def test_per_position_labels_in_the_built_in_trainer_point_to_the_job_contract():
    inputs = np.zeros((4, 3), dtype=np.float32)
    dataset = Dataset("lm", inputs, np.zeros((4, 3), dtype=np.int64), np.arange(4), 7)
    with pytest.raises(DataError, match=r"labels have shape \(4, 3\)") as error:
        checked_dataset(dataset, "mylab.data:tokens")
    assert "defaults.job" in error.value.fix


def test_the_rgt_script_imports_a_project_local_plugin(job_project):
    (job_project / "mylab" / "nets.py").write_text("Net = None\n")
    config = yaml.safe_load(TINY.read_text())
    config["defaults"]["model"]["name"] = "mylab.nets:Net"
    (job_project / "config").mkdir()
    (job_project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    script = Path(sys.executable).parent / "rgt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(script), "plan"], cwd=job_project, capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and len(done.stdout.splitlines()) >= 2


def test_declared_packages_reach_the_host_check_and_the_run_id_only_when_set(job_project):
    from rgt.remote.deploy import job_packages

    plain = run_ids(job_config())
    config = job_config(packages={"lightning.pytorch": "lightning==2.6.6"})
    config["experiments"]["lm"]["variants"]["dropout"]["job"]["packages"] = {
        "transformers": "transformers>=4.40"}
    assert job_packages(load_config(config)) == {"lightning.pytorch": "lightning==2.6.6",
                                                 "transformers": "transformers>=4.40"}
    assert set(run_ids(config)).isdisjoint(plain)  # a pinned version decides the result
    assert run_ids(job_config(packages={})) == plain  # unset: the ids of before
    with pytest.raises(ConfigError, match=r"job\.packages\.lightning pytorch .*module name"):
        load_config(job_config(packages={"lightning pytorch": "lightning"}))
