"""A user's own model module travels with the code: a run using it trains on the host."""

from __future__ import annotations

import json
import sys
import time

import pytest

from conftest import rgt, write_config
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
