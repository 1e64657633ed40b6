"""A full disk, for real: small tmpfs mounts in a user and mount namespace (`unshare -rm`).

- `rgt train` whose checkpoint directory fills up mid-run: one message naming the directory
  and the space needed, no traceback, `status.json` says failed with that cause, no temp file
  left, the previous checkpoint intact; with room again, the same command resumes and ends
  bit-identical to an uninterrupted run.
- `rgt pull` into a full export disk: refused before any byte moves with the same kind of
  message; with room again, the same command pulls and verifies.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import test_pull_ssh as pulls
import yaml

from conftest import TINY, rgt, write_config
from sshd import ALIAS

pytestmark = pytest.mark.integration
TIMEOUT = 300
PYTHON = sys.executable


def namespaces_available() -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


needs_tmpfs = pytest.mark.skipif(not namespaces_available(),
                                 reason="no user and mount namespace for a small tmpfs")


def in_namespace(script: str, cwd: Path) -> None:
    """Run ``script`` (bash) in a fresh user and mount namespace; its mounts vanish after."""
    subprocess.run(["unshare", "-rm", "bash", "-c", script], cwd=cwd, check=True,
                   timeout=TIMEOUT)


def project(directory: Path) -> tuple[Path, str]:
    config = yaml.safe_load(TINY.read_text())
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    config["defaults"]["train"].update(epochs=2, batch_size=16)
    config["defaults"]["checkpoint"].update(every_steps=10)
    write_config(directory, config)
    [row] = json.loads(rgt(["plan", "--json"], directory, 120).stdout)
    return directory, row["run_id"]


@needs_tmpfs
def test_a_checkpoint_disk_filling_up_fails_cleanly_and_resumes_bit_identical(tmp_path):
    reference, run_id = project(tmp_path / "reference")
    assert rgt(["train", "--run-id", run_id], reference, TIMEOUT).returncode == 0
    checkpoint = max(p.stat().st_size for p in (reference / "checkpoints" / run_id).glob("*.pt"))
    full, _ = project(tmp_path / "full")
    state = full / "checkpoints" / run_id
    state.mkdir(parents=True)
    # Room for the small files and one checkpoint, not two: the second save meets a full disk.
    size_k = (checkpoint * 3 // 2 + 32 * 1024) // 1024
    train = f"{PYTHON} -m rgt train --run-id {run_id}"
    in_namespace(f"mount -t tmpfs -o size={size_k}k tmpfs {state} && "
                 f"{{ {train} > first.out 2>&1; echo $? > first.code; }}; "
                 f"cp {state}/status.json status.full; ls -a {state} > listing.full; "
                 f"mount -o remount,size=8m {state} && "
                 f"{{ {train} > second.out 2>&1; echo $? > second.code; }}; "
                 f"cp {state}/train.log train.log", full)
    first = (full / "first.out").read_text()
    assert (full / "first.code").read_text().strip() == "1", first
    assert f"error: No space left on device in checkpoints/{run_id} writing step-" in first
    assert "KiB needed" in first and "fix: free space on the disk" in first
    assert "Traceback" not in first and "Warning" not in first
    status = json.loads((full / "status.full").read_text())
    assert status["state"] == "failed" and "No space left on device" in status["error"]
    listing = (full / "listing.full").read_text().split()
    assert "step-000000000.pt" in listing and "step-000000000.json" in listing
    assert not [name for name in listing if name.endswith(".tmp")]
    assert (full / "second.code").read_text().strip() == "0", (full / "second.out").read_text()
    assert "resumed from step-" in (full / "train.log").read_text()
    sealed = json.loads((full / "runs" / run_id / "run.json").read_text())
    expected = json.loads((reference / "runs" / run_id / "run.json").read_text())
    assert sealed["weights_sha256"] == expected["weights_sha256"]


@needs_tmpfs
@pytest.mark.ssh
def test_a_pull_into_a_full_disk_is_refused_then_pulls_with_room(sshd_server, remote_dir,
                                                                  tmp_path):
    pulls.plant_run(remote_dir / "proj")
    site = tmp_path / "site"
    (site / "config").mkdir(parents=True)
    (site / "config" / "hosts.yaml").write_text(yaml.safe_dump({"hosts": {ALIAS: {
        "platform": "ssh", "remote_root": str(remote_dir / "proj"), "python": PYTHON}}}))
    export = site / "export"
    export.mkdir()
    pull = (f"{PYTHON} -m rgt pull {pulls.RUN} --host {ALIAS} --hosts config/hosts.yaml "
            f"--ssh-config {sshd_server.ssh_config} --export {export}")
    in_namespace(f"mount -t tmpfs -o size=1m tmpfs {export} && "
                 f"{{ {pull} > first.out 2>&1; echo $? > first.code; }}; "
                 f"mount -o remount,size=32m {export} && "
                 f"{{ {pull} > second.out 2>&1; echo $? > second.code; }}; "
                 f"cp {export}/{pulls.RUN}/PULL_VERIFIED.json verified.json", site)
    first = (site / "first.out").read_text()
    assert (site / "first.code").read_text().strip() == "1", first
    assert f"error: No space left on device in {export}" in first
    assert "MiB needed" in first and "Traceback" not in first
    assert (site / "second.code").read_text().strip() == "0", (site / "second.out").read_text()
    assert json.loads((site / "verified.json").read_text())["run_id"] == pulls.RUN


def test_a_full_disk_in_a_library_write_is_one_message_at_the_cli(tmp_path, capsys,
                                                                   monkeypatch):
    from rgt import cli

    def full(_args):
        raise OSError(28, "No space left on device", str(tmp_path / "figure.png"))

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(full))
    assert cli.main(["x"]) == 1
    err = capsys.readouterr().err
    assert f"error: No space left on device writing {tmp_path / 'figure.png'}" in err


def _parser_running(func):
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("verb")
    parser.set_defaults(func=func)
    return parser


