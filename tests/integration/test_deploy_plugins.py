"""A user's own model module travels with the code: a run using it trains on the host; a job's
declared data travels once per content (the host's data cache) into every code tree."""

from __future__ import annotations

import json
import sys
import time

import pytest

from conftest import rgt, write_config
from rgt.base.hashing import sha256_file
from rgt.config import load_config
from rgt.remote.jobs import RemoteLayout
from rgt.remote.runner import RemoteRunner

pytestmark = [pytest.mark.integration, pytest.mark.ssh]

LAYERS = "WIDTH = 12\n"
NETS = '''import torch

from mymodels.layers import WIDTH


class Net(torch.nn.Module):
    """A user's model importing a sibling module of its own package."""

    def __init__(self, input_shape, num_classes):
        super().__init__()
        channels, height, width = input_shape
        self.body = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(channels * height * width, WIDTH),
            torch.nn.ReLU(), torch.nn.Linear(WIDTH, num_classes))

    def forward(self, inputs):
        return self.body(inputs)
'''


def test_a_run_with_a_user_model_trains_on_the_host(project, tiny_config, remote_host,
                                                     remote_dir):
    (project / "mymodels").mkdir()
    (project / "mymodels" / "__init__.py").write_text("")
    (project / "mymodels" / "layers.py").write_text(LAYERS)
    (project / "mymodels" / "nets.py").write_text(NETS)
    tiny_config["defaults"]["model"] = {"name": "mymodels.nets:Net"}
    tiny_config["experiments"]["tiny"].update(seeds=[0], baseline="plain",
                                              variants={"plain": {}})
    config_file = write_config(project, tiny_config)
    [run_id] = [row["run_id"] for row in json.loads(rgt(["plan", "--json"], project).stdout)]

    runner = RemoteRunner(remote_host, RemoteLayout(str(remote_dir / "root")), sys.executable)
    tree = runner.deploy(load_config(config_file), project)
    assert (remote_dir / "root" / "code" / tree / "src" / "mymodels" / "layers.py").is_file()
    runner.launch(run_id, tree)
    deadline = time.monotonic() + 240
    while runner.probe([run_id])[run_id].state == "running" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert runner.probe([run_id])[run_id].state == "finished", runner.job_log_tail(run_id)
    record = json.loads((remote_dir / "root" / "runs" / run_id / "run.json").read_text())
    assert record["run_id"] == run_id and record["status"] == "finished"


def job_project(project, script: str) -> dict:
    """A training job's project: ``train.py`` and two declared data files."""
    (project / "train.py").write_text(script)
    (project / "data").mkdir(exist_ok=True)
    (project / "data" / "corpus.bin").write_bytes(bytes(range(256)) * 8192)  # 2 MiB
    (project / "data" / "vocab.txt").write_text("a\nb\n")
    return {"defaults": {"job": {"command": "python train.py", "sources": ["train.py"],
                                 "data": ["data"], "metrics": {"loss": {"direction": "lower"}}},
                         "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "heartbeat_seconds": 5}},
            "experiments": {"e": {"baseline": "a", "seeds": [1], "variants": {"a": {}}}}}


def test_declared_data_travels_once_per_content_and_a_code_change_sends_none(
        tmp_path, remote_host, remote_dir):
    config = load_config(write_config(tmp_path, job_project(tmp_path, "print(1)\n")))
    runner = RemoteRunner(remote_host, RemoteLayout(str(remote_dir / "root")), sys.executable)
    first = runner.deploy(config, tmp_path)
    data_bytes = 2 * 1024 * 1024 + 4
    assert runner.sent["data"].bytes_sent == data_bytes
    (tmp_path / "train.py").write_text("print(2)\n")  # a new code tree, the same data
    second = runner.deploy(config, tmp_path)
    assert second != first
    assert runner.sent["data"].bytes_sent == 0 and runner.sent["data"].files_skipped == 2
    assert runner.sent["code"].bytes_sent > 0  # the code itself did travel
    code = remote_dir / "root" / "code"
    cached = remote_dir / "root" / "data-cache"
    for tree in (first, second):  # the job's relative paths hold, on the one cached copy
        for name in ("corpus.bin", "vocab.txt"):
            placed = code / tree / "data" / name
            assert placed.read_bytes() == (tmp_path / "data" / name).read_bytes()
            assert placed.samefile(cached / sha256_file(tmp_path / "data" / name))
    runner.verify_code(second)

    # A cache entry damaged on the host is sent again (verified), and relinked into the tree.
    damaged = cached / sha256_file(tmp_path / "data" / "corpus.bin")
    damaged.write_bytes(b"rot")
    runner.deploy(config, tmp_path)
    assert runner.sent["data"].bytes_sent == data_bytes - 4
    assert (code / second / "data" / "corpus.bin").read_bytes() == \
        (tmp_path / "data" / "corpus.bin").read_bytes()
    runner.verify_code(second)

    # An upload cut half-way resumes from the bytes the host already holds.
    damaged.unlink()
    damaged.with_name(damaged.name + ".part").write_bytes(
        (tmp_path / "data" / "corpus.bin").read_bytes()[:1 << 20])
    runner.deploy(config, tmp_path)
    assert runner.sent["data"].bytes_sent == data_bytes - 4 - (1 << 20)
    assert (code / second / "data" / "corpus.bin").samefile(damaged)
    runner.verify_code(second)
