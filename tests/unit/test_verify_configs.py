"""Config diffs behind the ``confounded`` verdict."""

from __future__ import annotations

from rgt.verify.configs import declared_keys, differing_keys, flatten, undeclared_differences


def test_flatten_gives_dotted_leaves():
    nested = {"model": {"dropout": 0.1, "layers": [32, 32], "extra": {}}, "seed": 3}
    assert flatten(nested) == {"model.dropout": 0.1, "model.layers": [32, 32],
                               "model.extra": {}, "seed": 3}


def test_seed_is_ignored_and_missing_keys_differ():
    configs = [{"seed": 0, "a": {"b": 1}}, {"seed": 1, "a": {"b": 1, "c": 2}}]
    assert differing_keys(configs) == ["a.c"]


def test_only_undeclared_differences_are_reported():
    configs = [{"model": {"dropout": 0.0}, "lr": 0.1}, {"model": {"dropout": 0.3}, "lr": 0.2}]
    declared = declared_keys({"model": {"dropout": 0.3}})
    assert declared == ["model.dropout"]
    assert undeclared_differences(configs, declared) == ["lr"]


def test_keys_below_a_declared_key_are_declared():
    configs = [{"optim": {"name": "adam"}}, {"optim": {"name": "sgd", "momentum": 0.9}}]
    assert undeclared_differences(configs, ["optim"]) == []
    assert undeclared_differences(configs, ["optim.name"]) == ["optim.momentum"]
