"""`rgt down` against the real loopback sshd: refused before the pull, allowed after it with the
exact approval (the harmless stop_command leaves a file only then); a file changed on the host
(until one `rgt pull --refresh`), a running job (unless its quantified loss is approved), a
launch of the ledger the host no longer holds, a remote root that does not exist, an unreachable
host, a missing stop_command or a wrong approval refuse again; typed confirmation."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest
import torch
import yaml
from test_pull_ssh import RUN, build_site, plant_run, start_job, stop_job

from rgt.cli import main
from rgt.mirror.record import MirrorRecord
from rgt.remote.ledger import record_launch
from rgt.train.checkpoint import CheckpointStore
from s3server import free_port
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
APPROVE = f"{ALIAS}:terminate"


@pytest.fixture
def site(sshd_server, remote_dir, tmp_path, monkeypatch):
    return build_site(sshd_server, remote_dir, tmp_path, monkeypatch)


def down(site, *extra: str) -> int:
    return main(["down", ALIAS, *site.args(*extra)])


def test_down_is_refused_before_the_pull_and_allowed_after_it(site, capsys):
    plant_run(site.root)
    assert down(site, "--approve", APPROVE) == 1
    err = capsys.readouterr().err
    assert f"run {RUN} is not pulled: no verified bundle" in err
    assert f"rgt pull {RUN} --host {ALIAS}" in err and not site.stopped.exists()
    assert site.pull() == 0
    capsys.readouterr()
    assert down(site, "--approve", f"{ALIAS}:stop") == 1
    assert f"is not the exact action '{APPROVE}'" in capsys.readouterr().err
    assert down(site, "--dry-run", "--approve", APPROVE) == 0
    out = capsys.readouterr().out
    assert "meter-stop verb: terminate (irreversible)" in out
    assert "trap: RunPod stop still bills the volume" in out and "still bills:" in out
    assert "released after 30 days" in out and "dry run: allowed" in out
    assert not site.stopped.exists()
    assert down(site, "--approve", APPROVE) == 0
    assert site.stopped.exists()


def test_a_file_changed_on_the_host_after_the_pull_refuses_until_one_refresh(site, capsys):
    plant_run(site.root)
    assert site.pull() == 0
    with open(site.root / "checkpoints" / RUN / "train.log", "a") as log:
        log.write("a line written after the pull\n")
    capsys.readouterr()
    assert down(site, "--approve", APPROVE) == 1
    err = capsys.readouterr().err
    assert "manifest changed since the pull" in err
    assert f"rgt pull {RUN} --host {ALIAS} --refresh" in err
    assert not site.stopped.exists()
    assert site.pull() == 1  # refused before any transfer, nothing set aside: no loop
    err = capsys.readouterr().err
    assert "the host's copy has changed since: checkpoints/train.log" in err
    assert "nothing was transferred" in err and "--refresh" in err
    assert not (site.project / "quarantine").exists()
    assert main(["pull", RUN, "--host", ALIAS, "--refresh", *site.args()]) == 0
    aside = list((site.project / "quarantine").iterdir())
    assert [path.name for path in aside] == [f"{RUN}--1"]
    assert "rgt pull --refresh" in (aside[0] / "REASON.json").read_text()
    assert "a line written after the pull" in (site.export / RUN / "checkpoints" /
                                               "train.log").read_text()
    assert site.pull() == 0 and "nothing to do" in capsys.readouterr().out
    assert down(site, "--dry-run", "--approve", APPROVE) == 0


def test_a_running_job_and_an_unpulled_second_run_are_each_listed(site, capsys):
    plant_run(site.root)
    assert site.pull() == 0
    (site.root / "checkpoints" / "fedcba9876543210").mkdir(parents=True)
    (site.root / "checkpoints" / "fedcba9876543210" / "train.log").write_text("epoch 1\n")
    (site.root / "checkpoints" / "0f0f0f0f0f0f0f0f").mkdir()  # empty: nothing to lose
    process = start_job(site.root)
    just_launched = start_job(site.root, "0000111122223333")  # no run directories yet
    try:
        assert down(site, "--approve", APPROVE) == 1
    finally:
        stop_job(process)
        stop_job(just_launched)
    captured = capsys.readouterr()
    assert f"run {RUN} is still training on {ALIAS}: stopping now loses everything since " \
           "launch" in captured.err
    assert "run 0000111122223333 is still training" in captured.err
    assert "--approve-loss 0000111122223333" in captured.err
    assert "run fedcba9876543210 is not pulled: no verified bundle" in captured.err
    assert "0f0f0f0f0f0f0f0f" not in captured.err and "empty" in captured.out
    assert "runs on rgt-loop: 4" in captured.out and not site.stopped.exists()


LIVE = "1111222233334444"


def utc(seconds_ago: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds_ago))


def training_on_host(root, run_id: str, step: int, started_s_ago: float):
    """A live job with the heartbeat and status files a training run writes."""
    state = root / "checkpoints" / run_id
    state.mkdir(parents=True, exist_ok=True)
    (state / "heartbeat.json").write_text(json.dumps(
        {"step": step, "total_steps": 900, "loss": 0.5, "updated_at": utc(0)}))
    (state / "status.json").write_text(json.dumps(
        {"state": "running", "step": step - 20, "total_steps": 900,
         "started_at": utc(started_s_ago), "updated_at": utc(0)}))
    return start_job(root, run_id)


def mirrored(project, run_id: str, step: int, step_seconds: float | None) -> None:
    """A complete mirrored checkpoint and the MIRROR.json the mirror writes after it."""
    state = project / "checkpoints" / run_id
    saved = CheckpointStore(state).save(step, {"w": torch.zeros(2)})
    MirrorRecord(run_id, ALIAS, step, 900, saved.path.name, saved.bytes, saved.sha256,
                 utc(240), utc(180), 1.0, saved.bytes, 60.0, step, step_seconds).write(state)


def test_a_running_run_blocks_with_its_quantified_loss_until_it_is_approved(site, capsys):
    mirrored(site.project, LIVE, 400, 10.5)
    live = training_on_host(site.root, LIVE, 520, 7200)
    unmirrored = training_on_host(site.root, "5555666677778888", 100, 5400)
    try:
        assert down(site, "--dry-run", "--approve", APPROVE) == 1
        err = capsys.readouterr().err
        assert down(site, "--dry-run", "--approve", APPROVE, "--approve-loss", LIVE) == 1
        one_approved = capsys.readouterr()
        assert down(site, "--dry-run", "--approve", APPROVE, "--approve-loss", LIVE,
                    "--approve-loss", "5555666677778888", "--approve-loss", RUN) == 0
        both = capsys.readouterr().out
    finally:
        stop_job(live)
        stop_job(unmirrored)
    assert (f"run {LIVE} is still training on {ALIAS}: stopping now loses 120 steps (~0.35 h "
            "of training) since its newest mirrored checkpoint (step 400, mirrored 3 min ago) "
            f"(fix: wait for it to finish and `rgt pull {LIVE} --host {ALIAS}`, or pass "
            f"--approve-loss {LIVE})") in err
    assert ("run 5555666677778888 is still training on rgt-loop: stopping now loses everything "
            "since launch: 100 steps (~1.50 h of training); it has no mirrored checkpoint") in err
    assert LIVE not in one_approved.err and "5555666677778888" in one_approved.err
    assert "loss approved" in one_approved.out
    assert "dry run: allowed" in both and not site.stopped.exists()
    assert f"--approve-loss {RUN}: no such run on {ALIAS} nor in the launch ledger" in both


def launched(site, run_id: str, root=None) -> None:
    """A launch of ``run_id`` in the project's ledger, as the executor appends it."""
    record_launch(site.project, ALIAS, str(root or site.root), run_id)


def test_a_launch_the_host_no_longer_holds_refuses_until_its_loss_is_approved(site, capsys):
    plant_run(site.root)
    assert site.pull() == 0
    launched(site, RUN)
    launched(site, "abcabcabcabcabca")  # launched, then wiped from the host
    capsys.readouterr()
    assert down(site, "--dry-run", "--approve", APPROVE) == 1
    captured = capsys.readouterr()
    assert (f"run abcabcabcabcabca was launched on {ALIAS} (attempt 1, ") in captured.err
    assert "but the host has no trace of it there and no verified bundle of it is here" in \
        captured.err and "--approve-loss abcabcabcabcabca" in captured.err
    assert f"run {RUN}" not in captured.err  # launched and pulled: accounted for
    assert "missing" in captured.out
    assert down(site, "--dry-run", "--approve", APPROVE, "--approve-loss",
                "abcabcabcabcabca") == 0


def test_a_remote_root_that_does_not_exist_refuses_naming_the_launched_runs(site, capsys):
    launched(site, RUN)
    assert not site.root.exists()
    assert down(site, "--dry-run", "--approve", APPROVE) == 1
    err = capsys.readouterr().err
    assert f"{site.root} does not exist on {ALIAS}, so rgt cannot see what the host holds" in err
    assert f"not pulled here: {RUN})" in err and f"rgt up {ALIAS} --root PATH" in err
    assert not site.stopped.exists()


def test_runs_launched_under_an_older_root_are_checked_there_too(site, capsys):
    older = site.root.parent / "older-root"
    plant_run(older, "fedcba9876543210")
    launched(site, "fedcba9876543210", older)
    site.root.mkdir(parents=True)
    assert down(site, "--dry-run", "--approve", APPROVE) == 1
    captured = capsys.readouterr()
    assert "run fedcba9876543210 is not pulled: no verified bundle" in captured.err
    assert str(older) in captured.out
    assert main(["pull", "fedcba9876543210", "--host", ALIAS, *site.args()]) == 0
    capsys.readouterr()
    assert down(site, "--dry-run", "--approve", APPROVE) == 0


def test_an_unreachable_host_refuses_and_stops_nothing(site, capsys, tmp_path):
    silent = tmp_path / "silent_config"
    silent.write_text(f"Host {ALIAS}\n  HostName 127.0.0.1\n  Port {free_port()}\n")
    site.write_hosts(ssh_config=str(silent))
    launched(site, RUN)
    assert main(["down", ALIAS, "--approve", APPROVE, "--hosts", str(site.hosts),
                 "--export", str(site.export)]) == 1
    err = capsys.readouterr().err
    assert f"rgt down {ALIAS} refused: {ALIAS} cannot be reached" in err
    assert "nothing was stopped" in err and not site.stopped.exists()


def test_without_a_stop_command_down_is_refused_with_the_fix(site, capsys):
    site.write_hosts(stop_command=None)
    plant_run(site.root)
    assert site.pull() == 0
    assert down(site, "--approve", APPROVE) == 1
    err = capsys.readouterr().err
    assert f"no stop_command for {ALIAS}" in err and "add stop_command" in err


def test_stale_platform_facts_are_warned_about(site, capsys):
    facts = site.project / "config" / "platforms" / "runpod.yaml"
    data = yaml.safe_load(facts.read_text())
    data["meter_stop"]["verified"] = "2020-01"
    facts.write_text(yaml.safe_dump(data, allow_unicode=True))
    site.root.mkdir(parents=True)
    assert down(site, "--dry-run", "--approve", APPROVE) == 0  # no runs on the host yet
    out = capsys.readouterr().out
    assert "warning: meter_stop.verified is older than 6 months" in out


def read_until(fd: int, text: bytes, timeout: float = 60) -> bytes:
    """Read a pty until ``text`` shows up (or fail with what came)."""
    seen, deadline = b"", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                break
    assert text in seen, seen.decode(errors="replace")[-2000:]
    return seen


def typed_down(site, answer: str) -> tuple[int, str]:
    """Run ``rgt down`` on a terminal and type ``answer`` at its prompt."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "rgt", "down", ALIAS, *site.args()], cwd=site.project,
        stdin=follower, stdout=follower, stderr=follower,
        env={**os.environ, "COLUMNS": "300", "PYTHONUNBUFFERED": "1"})
    os.close(follower)
    try:
        seen = read_until(leader, b"to run it")
        os.write(leader, answer.encode() + b"\r")
        process.wait(timeout=120)
        while select.select([leader], [], [], 0.2)[0]:
            try:
                seen += os.read(leader, 4096)
            except OSError:
                break
    finally:
        process.kill()
        process.wait(timeout=10)
        os.close(leader)
    return process.returncode, seen.decode(errors="replace")


def test_typed_confirmation_on_a_terminal(site):
    plant_run(site.root)
    assert main(["pull", RUN, "--host", ALIAS, *site.args()]) == 0
    code, output = typed_down(site, f"{ALIAS}:destroy")
    assert code == 1 and "is not the exact action" in output and not site.stopped.exists()
    code, output = typed_down(site, APPROVE)
    assert code == 0, output
    assert site.stopped.exists()
    assert json.loads((site.export / RUN / "PULL_VERIFIED.json").read_text())["run_id"] == RUN
