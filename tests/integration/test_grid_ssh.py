"""`rgt reconcile-grid` against the real loopback sshd: every cell's state from one snapshot of
the host and this machine's files; the printed pull command closes its gap; a dead host makes
the cells it might hold unknown, never missing."""

from __future__ import annotations

import json
import shlex
import shutil
import socket

import pytest
import yaml
from test_down_ssh import mirrored, training_on_host
from test_pull_ssh import build_site, plant_run, stop_job

from conftest import TINY
from rgt.cli import main
from rgt.config import load_config
from rgt.plan.runplan import plan_runs
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
DEAD = "rgt-dead"


@pytest.fixture
def site(sshd_server, remote_dir, tmp_path, monkeypatch):
    site = build_site(sshd_server, remote_dir, tmp_path, monkeypatch)
    shutil.copy(TINY, site.project / "config" / "config.yaml")
    return site


def ids(site) -> list[str]:
    return [spec.run_id for spec in plan_runs(load_config(site.project / "config" /
                                                          "config.yaml"))]


def grid(site, capsys, *extra: str) -> tuple[int, dict]:
    code = main(["reconcile-grid", "--json", *site.args(*extra)])
    return code, json.loads(capsys.readouterr().out)


def seal_here(project, run_id: str) -> None:
    run = project / "runs" / run_id
    run.mkdir(parents=True)
    for name in ("config.yaml", "train.csv", "model.pt"):
        (run / name).write_text("x\n")
    (run / "run.json").write_text(json.dumps({"run_id": run_id, "status": "finished"}))


def test_each_cell_gets_its_state_and_the_pull_command_closes_its_gap(site, capsys):
    done, live, stopped, here = ids(site)
    plant_run(site.root, done)
    job = training_on_host(site.root, live, 520, 3600)
    (site.root / "checkpoints" / stopped).mkdir(parents=True)
    (site.root / "checkpoints" / stopped / "status.json").write_text(
        json.dumps({"state": "preempted", "step": 40, "total_steps": 90}))
    mirrored(site.project, live, 400, 10.0)
    seal_here(site.project, here)
    try:
        code, report = grid(site, capsys)
    finally:
        stop_job(job)
    cells = {cell["run_id"]: cell for cell in report["cells"]}
    assert code == 1 and report["complete"] is False
    assert report["hosts"] == [{"alias": ALIAS, "reachable": True, "error": None,
                                "runs": sorted([done, live, stopped])}]
    assert [cells[i]["state"] for i in (done, live, stopped, here)] == [
        "on-host", "running", "partial", "local"]
    assert cells[done]["command"] == f"rgt pull {done} --host {ALIAS}"
    assert cells[live]["detail"].startswith(f"training on {ALIAS} at step 520/900; mirror of "
                                            f"{ALIAS}: step 400, ")
    assert cells[stopped]["command"] == (f"snakemake --profile runpod --rgt-host {ALIAS} "
                                         f"runs/{stopped}/run.json")
    assert main([*shlex.split(cells[done]["command"])[1:], *site.args()]) == 0
    capsys.readouterr()
    code, report = grid(site, capsys)
    assert code == 1 and report["counts"] == {"verified": 1, "partial": 2, "local": 1}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_host_makes_its_possible_cells_unknown(site, capsys):
    done, *_, here = ids(site)
    plant_run(site.root, done)
    seal_here(site.project, here)
    hosts = yaml.safe_load(site.hosts.read_text())
    hosts["hosts"][DEAD] = {"platform": "ssh", "remote_root": "/nowhere"}
    site.hosts.write_text(yaml.safe_dump(hosts))
    config = site.sshd.ssh_config.read_text()
    ssh_config = site.project / "ssh_config"
    ssh_config.write_text(config + f"\nHost {DEAD}\n  HostName 127.0.0.1\n  Port "
                                   f"{closed_port()}\n  User nobody\n  BatchMode yes\n")
    args = ["--hosts", str(site.hosts), "--ssh-config", str(ssh_config), "--export",
            str(site.export)]
    assert main(["reconcile-grid", "--json", *args]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["counts"] == {"on-host": 1, "unknown": 2, "local": 1}
    dead = [host for host in report["hosts"] if host["alias"] == DEAD][0]
    assert dead["reachable"] is False and dead["error"]
    unknown = [cell for cell in report["cells"] if cell["state"] == "unknown"]
    assert all(f"{DEAD} unreachable" in cell["detail"] and cell["command"] is None
               for cell in unknown)
    assert main(["reconcile-grid", *args]) == 1
    out = capsys.readouterr().out
    assert f"unreachable: {DEAD}" in out and "2 unknown" in out and "gap(s)" in out
