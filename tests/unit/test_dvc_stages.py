"""``rgt dvc-yaml``: dvc.yaml written from the config — one stage pair per declared figure, the
data stage only where rgt owns the data, the claims file only where the project has one — and
``--check`` telling a file that no longer follows its config."""

from __future__ import annotations

import yaml

from conftest import ROOT, TINY, rgt, write_config
from rgt.config import load_config
from rgt.deliver.dvc_stages import dvc_yaml

WLM = ROOT / "examples" / "wlm" / "config" / "config.yaml"


def stages(text: str) -> dict:
    return yaml.safe_load(text)["stages"]


def test_the_built_in_trainer_gets_the_data_stage_and_its_figures():
    text = dvc_yaml(load_config(TINY), claims=True)
    document = yaml.safe_load(text)
    assert document["vars"] == [{"figures": ["test_accuracy"]}]
    assert set(stages(text)) == {"data", "source_data", "figure", "metrics", "evidence"}
    evidence = stages(text)["evidence"]
    assert evidence["cmd"].endswith("--claims evidence/claims.yaml")
    assert "evidence/claims.yaml" in evidence["deps"]
    assert "figures/test_accuracy/figure.png" in evidence["deps"]
    assert all(len(line) <= 100 for line in text.splitlines())


def test_a_declared_job_gets_one_stage_pair_per_figure_and_no_data_stage():
    text = dvc_yaml(load_config(WLM))
    document = yaml.safe_load(text)
    assert document["vars"] == [{"figures": ["test_perplexity", "train_loss"]}]
    assert "data" not in stages(text) and "--claims" not in stages(text)["evidence"]["cmd"]
    assert [dep for dep in stages(text)["evidence"]["deps"] if dep.startswith("figures/")] == [
        "figures/test_perplexity/figure.png", "figures/train_loss/figure.png"]
    [bar, curve] = [plot for plot in document["plots"] if isinstance(plot, dict)]
    assert bar["figures/test_perplexity/source_data.csv"]["x"] == "variant"
    assert curve["figures/train_loss/source_data.csv"]["x"] == "step"


def test_check_fails_with_the_fix_once_the_config_declares_another_figure(tmp_path):
    config = yaml.safe_load(WLM.read_text())
    write_config(tmp_path, config)
    assert rgt(["dvc-yaml"], tmp_path).returncode == 0
    assert rgt(["dvc-yaml", "--check"], tmp_path).returncode == 0
    config["figures"]["valid_loss"] = {"metric": "loss", "split": "valid"}
    write_config(tmp_path, config)
    checked = rgt(["dvc-yaml", "--check"], tmp_path)
    assert checked.returncode == 1
    assert "dvc.yaml does not follow config/config.yaml" in checked.stderr
    assert "fix: rgt dvc-yaml --config config/config.yaml --out dvc.yaml" in checked.stderr


def test_a_figure_of_an_unknown_metric_is_refused_without_a_traceback(tmp_path):
    config = yaml.safe_load(WLM.read_text())
    config["figures"]["oops"] = {"metric": "bleu"}
    write_config(tmp_path, config)
    result = rgt(["dvc-yaml"], tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "figures.oops.metric = 'bleu'" in result.stderr
    assert not (tmp_path / "dvc.yaml").exists()
