"""Run identity: equal inputs give equal ids; any change gives a new run."""

from __future__ import annotations

import copy

from rgt.config import load_config
from rgt.plan.runplan import find_run, plan_runs


def _ids(config: dict) -> dict:
    return {(s.exp_id, s.variant, s.seed): s.run_id for s in plan_runs(load_config(config))}


def test_plan_has_one_run_per_variant_and_seed(tiny_config):
    assert sorted(_ids(tiny_config)) == [("tiny", "dropout", 0), ("tiny", "dropout", 1),
                                         ("tiny", "plain", 0), ("tiny", "plain", 1)]


def test_run_ids_are_stable_and_distinct(tiny_config):
    first, second = _ids(tiny_config), _ids(copy.deepcopy(tiny_config))
    assert first == second
    assert len(set(first.values())) == len(first)


def test_new_seed_adds_a_run_and_keeps_the_others(tiny_config):
    before = _ids(tiny_config)
    tiny_config["experiments"]["tiny"]["seeds"].append(7)
    after = _ids(tiny_config)
    assert set(before.items()) < set(after.items())
    assert ("tiny", "plain", 7) in after


def test_config_change_gives_new_ids_only_where_it_applies(tiny_config):
    before = _ids(tiny_config)
    tiny_config["experiments"]["tiny"]["variants"]["dropout"]["model"]["dropout"] = 0.25
    after = _ids(tiny_config)
    assert after[("tiny", "plain", 0)] == before[("tiny", "plain", 0)]
    assert after[("tiny", "dropout", 0)] != before[("tiny", "dropout", 0)]


def test_paths_do_not_change_run_identity(tiny_config):
    before = _ids(tiny_config)
    tiny_config["paths"] = {"runs": "elsewhere", "checkpoints": "ckpt"}
    assert _ids(tiny_config) == before


def test_smoke_id_is_shared_by_the_seeds_of_a_variant(tiny_config):
    specs = plan_runs(load_config(tiny_config))
    by_variant = {}
    for spec in specs:
        by_variant.setdefault(spec.variant, set()).add(spec.smoke_id)
    assert all(len(ids) == 1 for ids in by_variant.values())
    assert len({next(iter(ids)) for ids in by_variant.values()}) == 2


def test_find_run_explains_an_unknown_id(tiny_config):
    import pytest

    from rgt.base.errors import ConfigError

    with pytest.raises(ConfigError, match="not in the plan"):
        find_run(load_config(tiny_config), "0" * 16)


# The resolved config of tiny.yaml's first run as every version of rgt has hashed it. A change
# here changes every run id (all results retrain): make it only on purpose.
TINY_FIRST_CONFIG_DIGEST = "395d251dc9187bb80c7a38279bf4643f4db7bf3b64e8395a956ef81ab7c06cb5"


def test_the_resolved_config_keeps_its_identity(tiny_config):
    spec = plan_runs(load_config(tiny_config))[0]
    assert spec.config_digest == TINY_FIRST_CONFIG_DIGEST
    assert spec.config["checkpoint"]["heartbeat_seconds"] == 5  # YAML's int stays an int
    assert "channels" in spec.config["model"]


def test_an_optional_key_the_file_leaves_out_stays_out_of_the_identity(tiny_config):
    del tiny_config["defaults"]["model"]["channels"]
    spec = plan_runs(load_config(tiny_config))[0]
    assert "channels" not in spec.config["model"] and spec.settings.model.channels is None


def test_the_host_plans_the_same_runs_from_the_config_it_is_sent(tiny_config):
    import yaml

    from rgt.remote.deploy import remote_config_text

    config = load_config(tiny_config)
    sent = load_config(yaml.safe_load(remote_config_text(config, "/r/runs", "/r/ckpt")))
    assert {s.run_id for s in plan_runs(sent)} == {s.run_id for s in plan_runs(config)}
    assert (sent.paths.runs, sent.paths.checkpoints) == ("/r/runs", "/r/ckpt")
