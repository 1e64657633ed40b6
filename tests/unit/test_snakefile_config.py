"""Which config file the Snakefile runs: `--configfile` (the Snakemake way, several files
merged in order), `--config config_file=…`, or config/config.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import TINY
from rgt.base.errors import ConfigError
from rgt.config import load_config
from rgt.plan.snakefile import config_source


def test_the_default_the_named_file_and_one_configfile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.yaml").write_text(TINY.read_text())
    assert config_source([], {}) == "config/config.yaml"
    assert config_source([], {"config_file": "my.yaml"}) == "my.yaml"
    assert config_source([tmp_path / "my.yaml"], {}) == "my.yaml"  # Snakemake makes it absolute


def test_several_configfiles_merge_in_order_as_snakemake_merges_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base.yaml").write_text(TINY.read_text())
    (tmp_path / "longer.yaml").write_text("defaults: {train: {epochs: 7}}\n")
    merged = config_source([tmp_path / "base.yaml", tmp_path / "longer.yaml"], {})
    assert merged.startswith(".rgt/config/merged-")
    assert "# merged from base.yaml\n# merged from longer.yaml\n" in Path(merged).read_text()
    config = load_config(merged)
    assert config.defaults.train.epochs == 7 and config.defaults.train.batch_size == 64
    assert config_source([tmp_path / "base.yaml", tmp_path / "longer.yaml"], {}) == merged


def test_two_ways_at_once_or_a_setting_in_config_is_refused():
    with pytest.raises(ConfigError, match="two configs given") as both:
        config_source(["a.yaml"], {"config_file": "b.yaml"})
    assert "--configfile is the Snakemake way" in both.value.fix
    with pytest.raises(ConfigError, match=r"unknown --config key\(s\): epochs") as extra:
        config_source([], {"epochs": 3})
    assert "--configfile PATH" in extra.value.fix


def test_a_configfile_error_names_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = yaml.safe_load(TINY.read_text())
    bad["defaults"]["train"]["epochs"] = 0
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError, match=r"^bad.yaml is invalid:\n  defaults.train.epochs = 0 "):
        load_config(config_source([tmp_path / "bad.yaml"], {}))
