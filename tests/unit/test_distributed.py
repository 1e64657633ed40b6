"""Multi-process training, the pure parts: sharding, the world, config, diagnosis, confounding.

The real 2-process runs (gloo on the CPU) are in tests/integration/test_ddp.py.
"""

from __future__ import annotations

import json

import pytest
import torch

from rgt.base.errors import ConfigError
from rgt.config import load_config
from rgt.plan.runplan import plan_runs
from rgt.train.distributed import (
    SINGLE,
    World,
    check_world,
    is_collective_error,
    rank_seed,
    shard,
    world_from_env,
    write_report,
)
from rgt.train.launcher import diagnose, failure, launch_command, read_reports
from rgt.verify.compare import verdict_rule
from rgt.verify.configs import declared_keys, undeclared_differences


@pytest.mark.parametrize("samples, per_rank, size", [(1257, 64, 2), (10, 3, 4), (7, 4, 1)])
def test_shards_cover_each_epoch_exactly_once_and_differ_by_at_most_one(samples, per_rank,
                                                                         size):
    order = torch.randperm(samples, generator=torch.Generator().manual_seed(3))
    batches = -(-samples // (per_rank * size))
    seen = []
    for batch in range(batches):
        shards = [shard(order, batch, per_rank, World(rank, size)) for rank in range(size)]
        assert {total for _, total in shards} == {sum(len(s) for s, _ in shards)}
        lengths = [len(s) for s, _ in shards]
        assert max(lengths) - min(lengths) <= 1 and max(lengths) <= per_rank
        seen += [int(i) for s, _ in shards for i in s]
    assert sorted(seen) == sorted(order.tolist())


def test_one_process_takes_the_plain_consecutive_batches():
    order = torch.arange(100)
    index, total = shard(order, 2, 16, SINGLE)
    assert index.tolist() == list(range(32, 48)) and total == 16


def test_world_comes_from_the_launcher_environment():
    assert world_from_env({}) == SINGLE
    world = world_from_env({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"})
    assert (world.rank, world.size, world.local_rank) == (1, 2, 1)
    assert world.distributed and not world.is_main
    assert rank_seed(0, 0) != rank_seed(0, 1) != rank_seed(1, 0)


def test_a_single_process_world_needs_no_collectives():
    assert SINGLE.agree(True, False) == (True, False)
    assert SINGLE.sum(torch.tensor(2.5)).tolist() == [2.5]
    assert SINGLE.broadcast(7) == 7 and SINGLE.gather("x") == ["x"]
    model = torch.nn.Linear(2, 2)
    assert SINGLE.wrap(model, torch.device("cpu")) is model


def test_processes_default_to_one_and_are_validated(tiny_config):
    train = load_config(tiny_config).defaults.train
    assert (train.processes, train.process_group_timeout_s) == (1, 300)
    tiny_config["defaults"]["train"]["processes"] = 0
    with pytest.raises(ConfigError, match="processes"):
        load_config(tiny_config)


def test_a_worker_launched_with_another_world_size_is_refused():
    check_world(World(0, 2), 2, "abc")
    with pytest.raises(ConfigError, match="train.processes = 4.*WORLD_SIZE = 2") as caught:
        check_world(World(0, 2), 4, "abc")
    assert "torchrun" in caught.value.fix


def test_world_size_is_part_of_the_run_id_and_a_confounder(tiny_config):
    one = plan_runs(load_config(tiny_config))
    tiny_config["defaults"]["train"]["processes"] = 2
    two = plan_runs(load_config(tiny_config))
    assert {s.run_id for s in one}.isdisjoint(s.run_id for s in two)
    # baseline trained with 1 process, candidate (declaring only dropout) with 2
    baseline = next(s for s in one if s.variant == "plain")
    candidate = next(s for s in two if s.variant == "dropout")
    declared = declared_keys(candidate.variant_overrides)
    confounders = undeclared_differences([baseline.config, candidate.config], declared)
    assert confounders == ["train.processes"]
    assert verdict_rule(suspect=False, confounded=bool(confounders), testable=True,
                        significant=True, powered=True) == "confounded"


def test_reports_record_the_error_and_whether_the_group_failed(tmp_path):
    write_report(tmp_path, World(0, 2), "failed", RuntimeError(
        "[third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 3000ms"
        " for recv operation to complete"))
    write_report(tmp_path, World(1, 2), "failed", ValueError("bad shape\nmore detail"))
    reports = read_reports(tmp_path, 2)
    assert reports[0]["collective"] and reports[0]["timed_out"]
    assert reports[1]["error"] == "ValueError: bad shape" and not reports[1]["collective"]
    assert json.loads((tmp_path / "rank-1.json").read_text())["pid"] > 0
    assert is_collective_error(RuntimeError("Connection reset by peer [gloo]"))
    assert not is_collective_error(ValueError("gloo"))


def test_a_rank_refused_by_its_config_fails_the_launch_with_the_config_fix_only(tmp_path):
    refusal = ConfigError("train.processes = 2 but only 1 GPU(s) are visible: one process "
                          "per GPU", "set train.processes to the number of GPUs (a new run "
                          "id), or train.device: cpu")
    write_report(tmp_path, World(0, 2), "running")
    write_report(tmp_path, World(1, 2), "failed", refusal)
    reports = read_reports(tmp_path, 2)
    assert reports[1]["config_error"] and reports[1]["fix"] == refusal.fix
    error = failure(diagnose(reports, 300, stopped={0}), reports, tmp_path)
    assert isinstance(error, ConfigError) and error.exit_code == 2
    assert "rank 1 failed: ConfigError: train.processes = 2" in error.message
    assert error.fix == refusal.fix and "rerun" not in str(error)
    crashed = {0: _report(0, "failed", "RuntimeError: CUDA error")}
    other = failure(diagnose(crashed, 300), crashed, tmp_path)
    assert not isinstance(other, ConfigError) and "rerun the same command" in other.fix


def _report(rank, state, error="", collective=False, timed_out=False):
    return {"rank": rank, "pid": 100 + rank, "state": state, "error": error,
            "collective": collective, "timed_out": timed_out}


def test_diagnosis_names_a_killed_rank_not_the_survivor():
    reports = {0: _report(0, "failed", "RuntimeError: Connection reset by peer", True),
               1: _report(1, "running")}
    message = diagnose(reports, 300)
    assert "rank 1 (pid 101) died without reporting" in message
    assert "rank 0" not in message


def test_diagnosis_names_a_hung_rank_and_the_timeout():
    reports = {0: _report(0, "failed", "RuntimeError: Timed out", True, True),
               1: _report(1, "running")}
    message = diagnose(reports, 5, stopped={1})
    assert "rank 1 (pid 101) stopped responding: rank 0 timed out after 5 s" in message
    assert "train.process_group_timeout_s" in message


def test_diagnosis_names_the_rank_with_its_own_error_and_groups_alike_ones():
    reports = {0: _report(0, "failed", "RuntimeError: Connection reset by peer", True),
               1: _report(1, "failed", "ValueError: bad"), 2: _report(2, "running")}
    message = diagnose(reports, 300, stopped={2})
    assert "rank 1 failed: ValueError: bad" in message
    assert "rank 2" not in message and "rank 0" not in message  # collateral
    alike = {r: _report(r, "failed", "ConfigError: not planned") for r in (0, 1)}
    assert "ranks 0, 1 failed: ConfigError: not planned" in diagnose(alike, 300)
    assert "before any rank reported" in diagnose({0: None, 1: None}, 300, stopped={0, 1})


def test_the_launch_command_is_torchs_standalone_launcher():
    command = launch_command("config/c.yaml", "abc", 2, host_audit="audit.json")
    assert command[1:4] == ["-m", "torch.distributed.run", "--standalone"]
    assert command[command.index("--nproc_per_node") + 1] == "2"
    assert command[command.index("-m", 3):] == ["-m", "rgt", "train", "--config",
                                                "config/c.yaml", "--run-id", "abc",
                                                "--host-audit", "audit.json"]
