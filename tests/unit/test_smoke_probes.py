"""The smoke gate runs the probes: broken models fail it with the cause, advisories are kept."""

from __future__ import annotations

import pytest

from conftest import write_config
from rgt.config import load_config
from rgt.plan.runplan import plan_runs
from rgt.train.smoke import SmokeFailure, smoke_test

MODELS = '''
import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, input_shape, num_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, num_classes))
        self.side = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.net(x)


class Unused(Base):
    pass


class Dead(Base):
    def forward(self, x):
        return self.net(x) + 0.0 * self.side(x.flatten(1))


class Exploding(Base):
    def __init__(self, input_shape, num_classes):
        super().__init__(input_shape, num_classes)
        self.side = nn.Identity()
        with torch.no_grad():
            self.net[1].weight[0, 0] = float("inf")
'''


def first_spec(tmp_path, tiny_config, model=None):
    if model:
        (tmp_path / "probe_models.py").write_text(MODELS)
        tiny_config["defaults"]["model"] = {"name": f"probe_models:{model}", "params": {}}
    tiny_config["experiments"]["tiny"]["variants"] = {"plain": {}}
    return plan_runs(load_config(write_config(tmp_path, tiny_config)))[0]


def test_clean_variant_records_every_probe_with_no_advisory(tmp_path, tiny_config):
    record = smoke_test(first_spec(tmp_path, tiny_config))
    assert record["ok"] and record["advisories"] == [] and len(record["losses"]) == 2
    assert all(result["ok"] for result in record["probes"].values())
    assert record["probes"]["overfit-one-batch"]["steps"] > 0


def test_unused_parameters_fail_the_gate_by_name(tmp_path, tiny_config, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SmokeFailure, match=r"no finite gradient: side\.weight, side\.bias") as e:
        smoke_test(first_spec(tmp_path, tiny_config, "Unused"))
    assert "forward()" in e.value.fix


def test_all_zero_gradient_is_recorded_not_fatal(tmp_path, tiny_config, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(tmp_path))
    record = smoke_test(first_spec(tmp_path, tiny_config, "Dead"))
    assert record["probes"]["no-grad-params"]["zero"] == ["side.weight", "side.bias"]
    assert record["advisories"][0].startswith("parameters whose gradient is all zero")
    assert "all zero: side.weight" in capsys.readouterr().err


def test_non_finite_output_names_the_first_bad_module(tmp_path, tiny_config, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SmokeFailure, match=r"non-finite loss.*first module .* net\.1"):
        smoke_test(first_spec(tmp_path, tiny_config, "Exploding"))
