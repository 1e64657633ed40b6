"""Config validation: every bad input fails before any work, naming key, value and fix."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conftest import ROOT, TINY, rgt, write_config
from rgt.base.errors import ConfigError
from rgt.config import load_config


def _set(config: dict, dotted: str, value) -> dict:
    *parents, leaf = dotted.split(".")
    node = config
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = value
    return config


BAD_INPUTS = [
    # (dotted key to set, value, words the message must contain, words the fix must contain)
    ("defaults.train.epochs", -3, ["defaults.train.epochs", "-3", ">= 1"], [">= 1"]),
    ("defaults.train.epochs", "ten", ["defaults.train.epochs", "'ten'", "whole number"],
     ["whole number"]),
    ("defaults.train.optimzer", "adam", ["defaults.train.optimzer", "unknown key"],
     ["rename it to 'optimizer'"]),
    ("defaults.train.optimizer", "adamw", ["'adamw'", "'adam'", "'sgd'"], ["one of"]),
    ("defaults.train.lr", 0, ["defaults.train.lr", "> 0"], ["> 0"]),
    ("defaults.model.dropout", 1.5, ["defaults.model.dropout", "1.5", "< 1"], ["< 1"]),
    ("defaults.data.split.val", 0.9, ["leaves no training data"], ["smaller than 1"]),
    ("defaults.selection.split", "test", ["'test'", "'val'"], ["'val'"]),
    ("defaults.checkpoint.keep", 1, ["defaults.checkpoint.keep", ">= 2"], [">= 2"]),
    ("experiments.tiny.baseline", "nope", ["'nope'", "not a variant"], ["plain", "dropout"]),
    ("experiments.tiny.seeds", [], ["experiments.tiny.seeds", "empty"], ["at least one"]),
    ("experiments.tiny.seeds", [1, 1], ["repeats"], ["once"]),
    ("experiments.tiny.variants.dropout.model.dropuot", 0.2, ["dropuot", "unknown key"],
     ["rename it to 'dropout'"]),
    ("defaults.model.name", "resnet9000", ["'resnet9000'", "not a built-in"],
     ["package.module:callable"]),
    ("experiments.tiny.variants.bad-name", {}, ["'bad-name'"], ["letters, digits"]),
    ("shedule", 1, ["unknown key 'shedule'"], ["remove it"]),
    # Absurd sizes and paths out of the project, refused before anything starts.
    ("defaults.train.epochs", 10**12, ["defaults.train.epochs", "<= 100000"], ["<= 100000"]),
    ("defaults.train.batch_size", 10**9, ["defaults.train.batch_size", "<= 1048576"],
     ["<= 1048576"]),
    ("paths.runs", "../../outside", ["paths.runs", "'../../outside'", "inside the project"],
     ["absolute path"]),
    ("paths.checkpoints", "state/../../x", ["paths.checkpoints"], ["inside the project"]),
]


@pytest.mark.parametrize("dotted, value, message_words, fix_words", BAD_INPUTS,
                         ids=[f"{case[0]}={case[1]!r}" for case in BAD_INPUTS])
def test_load_config_rejects_bad_value_naming_key_value_and_fix(
        tiny_config, dotted, value, message_words, fix_words):
    with pytest.raises(ConfigError) as caught:
        load_config(_set(tiny_config, dotted, value))
    for word in message_words:
        assert word in caught.value.message
    for word in fix_words:
        assert word in caught.value.fix


def test_load_config_accepts_the_shipped_configs():
    assert load_config(ROOT / "config" / "config.yaml").experiments
    assert load_config(TINY).defaults.train.device == "auto"


def test_load_config_reports_yaml_syntax_error_with_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("defaults:\n  train: [1, 2\n")
    with pytest.raises(ConfigError, match="line"):
        load_config(path)


def test_load_config_missing_file_names_it(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_missing_required_section_is_named(tiny_config):
    del tiny_config["defaults"]["train"]["epochs"]
    with pytest.raises(ConfigError, match="required key 'epochs'"):
        load_config(tiny_config)


def test_cli_prints_error_and_fix_without_traceback(tmp_path, tiny_config):
    path = write_config(tmp_path, _set(tiny_config, "defaults.train.epochs", -1))
    result = rgt(["plan", "--config", str(path)], cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    assert "defaults.train.epochs = -1" in result.stderr and "fix:" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


VERIFY_BAD_INPUTS = [
    ({"min_effect": 0.01}, ["verify.min_effect = 0.01", "one number for every metric"],
     ["per metric", "accuracy: 0.01"]),
    ({"bootstrap": 2000}, ["verify.bootstrap", "Welch"], ["remove verify.bootstrap"]),
    ({"min_effect": {"loss": "two%"}}, ["verify.min_effect.loss", "'two%'", '"2%"'],
     ["0.5sd"]),
    ({"min_effect": {"loss": -1}}, ["verify.min_effect.loss", "-1", "> 0"], ["0.5sd"]),
    ({"pairing": "both"}, ["verify.pairing", "'both'", "'paired'"], ["one of"]),
    ({"multiplicity": "bonferroni"}, ["verify.multiplicity", "'holm'"], ["one of"]),
]


@pytest.mark.parametrize("section, message_words, fix_words", VERIFY_BAD_INPUTS,
                         ids=[repr(case[0]) for case in VERIFY_BAD_INPUTS])
def test_bad_verify_settings_are_rejected_naming_key_value_and_fix(
        tiny_config, section, message_words, fix_words):
    tiny_config["verify"] = section
    with pytest.raises(ConfigError) as caught:
        load_config(tiny_config)
    for word in message_words:
        assert word in caught.value.message
    for word in fix_words:
        assert word in caught.value.fix


def test_verify_settings_per_metric_are_accepted(tiny_config):
    tiny_config["verify"] = {"min_effect": {"accuracy": 0.01, "perplexity": "2%",
                                            "loss": "0.5sd"}, "pairing": "paired"}
    assert load_config(tiny_config).verify.multiplicity == "holm"


def test_the_loaded_config_is_typed_and_frozen(tiny_config):
    config = load_config(tiny_config)
    assert config.defaults.train.epochs == 2 and config.experiments["tiny"].seeds == (0, 1)
    with pytest.raises(ValidationError):
        config.defaults.train.epochs = 3
    with pytest.raises(TypeError):
        config.experiments["other"] = config.experiments["tiny"]
    with pytest.raises(TypeError):
        config.experiments["tiny"].variants["dropout"]["model"]["dropout"] = 0.1
    tiny_config["defaults"]["train"]["epochs"] = 5  # the caller's mapping is not shared
    assert config.defaults.train.epochs == 2


def test_a_variant_gets_the_defaults_with_its_overrides(tiny_config):
    config = load_config(tiny_config)
    dropout = config.run_settings("tiny", "dropout", 1)
    assert (dropout.model.dropout, dropout.model.channels) == (0.5, 4)
    assert dropout.run.seed == 1 and config.variant_settings("tiny", "plain").model.dropout == 0.0


def test_the_executor_takes_the_config_the_snakefile_validated(tmp_path, tiny_config):
    from rgt.plan.snakefile import load_or_exit, workflow_config

    path = write_config(tmp_path, tiny_config)
    config_file, validated = load_or_exit([path], {})
    assert config_file == str(path)
    path.write_text("not: [valid")  # a file read again would now fail
    assert workflow_config(path) is validated


def test_absolute_paths_and_paths_inside_the_project_are_kept(tiny_config):
    tiny_config["paths"] = {"runs": "results/../results/runs", "checkpoints": "/mnt/state"}
    assert load_config(tiny_config).paths.checkpoints == "/mnt/state"


JOB = {"defaults": {"job": {"command": "python train.py --dropout {params.dropout}",
                            "params": {"dropout": 0.0}, "metrics": {"loss": {"direction":
                                                                             "lower"}}},
                    "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "heartbeat_seconds": 5}},
       "experiments": {"lm": {"baseline": "plain", "seeds": [0],
                              "variants": {"plain": {},
                                           "dropout": {"job": {"params": {"dropuot": 0.3}}}}}}}


def test_a_variant_param_the_defaults_lack_is_refused_with_the_known_keys():
    with pytest.raises(ConfigError) as caught:
        load_config(JOB)
    assert caught.value.message.startswith(
        "config: experiments.lm.variants.dropout.job.params.dropuot: defaults.job.params has "
        "no 'dropuot' (it has: dropout), so this variant would run with the defaults' values")
    assert caught.value.fix == ("correct the name to one of dropout, or add dropuot to "
                                "defaults.job.params so every variant has it")


def test_a_variant_with_its_own_model_or_command_brings_its_own_params(tiny_config):
    tiny_config["experiments"]["tiny"]["variants"]["dropout"] = {
        "model": {"name": "mylab.nets:Wide", "params": {"width": 64}}}
    assert load_config(tiny_config)  # another model: its params are its own
    tiny_config["experiments"]["tiny"]["variants"]["dropout"] = {
        "model": {"params": {"width": 64}}}
    with pytest.raises(ConfigError, match="defaults.model.params has no 'width'"):
        load_config(tiny_config)


def test_a_typoed_variant_param_fails_the_pipeline_before_any_job(tmp_path):
    write_config(tmp_path, JOB)
    result = rgt(["plan"], tmp_path, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "job.params.dropuot: defaults.job.params has no 'dropuot'" in result.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "checkpoints").exists()
