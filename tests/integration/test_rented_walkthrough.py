"""The README's "Training on a rented GPU" section, walked literally against a real loopback
OpenSSH host through the shipped autodl profile.

The commands are read from README.md itself, so the section cannot drift from what is tested;
only the alias (``gpubox``), the interpreter's path and the run id are substituted. The alias
lives in ``~/.ssh/config`` as the README says (the commands run with a home directory of the
test's own), and AutoDL's durable disk is a directory on the loopback host's disk (the project's own
``config/platforms/autodl.yaml`` overrides the fact), so the remote root the record gets is the
default the README describes: ``<durable dir>/rgt/<project>``.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, TINY
from sshd import ALIAS, start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
TIMEOUT = 600
BIN = Path(sys.executable).parent


def readme_commands() -> list[str]:
    """The commands of the section's first code block (comment lines and trailing comments
    dropped), as the README shows them."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Training on a rented GPU"):]
    block = section[section.index("```bash\n") + 8:section.index("\n```", section.index("```bash"))]
    commands = []
    for line in block.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(re.split(r"\s{2,}#", line)[0].strip())
    return commands


def substituted(command: str, run_id: str) -> list[str]:
    """A README command with the test's alias, interpreter and run id, as argv."""
    argv = shlex.split(command.replace("gpubox", ALIAS).replace("RUN_ID", run_id))
    return [sys.executable if part == "/root/miniconda3/bin/python" else part for part in argv]


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """The loopback host, a home directory whose ~/.ssh/config names it, the installed
    profiles, and a project whose AutoDL durable disk is the test's."""
    base = tmp_path_factory.mktemp("walk")
    host = start_sshd(base / "host")
    home = base / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copy(host.ssh_config, home / ".ssh" / "config")
    xdg = base / "xdg"
    subprocess.run([sys.executable, str(ROOT / "profiles/install.py"), str(xdg / "snakemake"),
                    "autodl"], check=True, capture_output=True)
    project = base / "myproject"
    shutil.copytree(ROOT / "rules", project / "rules")
    shutil.copy(ROOT / "Snakefile", project / "Snakefile")
    shutil.copytree(ROOT / "config" / "platforms", project / "config" / "platforms")
    durable = host.disk / "autodl-tmp"  # the rented machine's: released with it, watchdog too
    facts = project / "config" / "platforms" / "autodl.yaml"
    facts.write_text(facts.read_text().replace("/root/autodl-tmp", str(durable)))
    config = yaml.safe_load(TINY.read_text())
    config["experiments"]["tiny"].update(seeds=[3], variants={"plain": {}})
    config["defaults"]["checkpoint"]["every_steps"] = 5
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    (project / "my_experiment.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(xdg),
           "PATH": f"{BIN}:{os.environ['PATH']}", "PYTHONUNBUFFERED": "1", "COLUMNS": "300"}
    yield {"host": host, "project": project, "env": env, "root": durable / "rgt" / "myproject"}
    host.release()


def run(argv: list[str], walk: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(["timeout", "-k", "10", str(TIMEOUT), *argv], cwd=walk["project"],
                          env=walk["env"], capture_output=True, text=True, timeout=TIMEOUT + 30)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout[-3000:]}\n" \
                                 f"{done.stderr[-3000:]}"
    return done


def typed(argv: list[str], walk: dict, answer: str) -> tuple[int, str]:
    """Run a command on a terminal and type ``answer`` at its prompt."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, cwd=walk["project"], env=walk["env"], stdin=follower,
                               stdout=follower, stderr=follower)
    os.close(follower)
    seen, deadline = b"", time.monotonic() + 300
    try:
        while b"to run it" not in seen and time.monotonic() < deadline:
            seen += _read(leader)
        os.write(leader, answer.encode() + b"\r")
        process.wait(timeout=120)
        seen += _read(leader)
    finally:
        process.kill()
        process.wait(timeout=10)
        os.close(leader)
    return process.returncode, seen.decode(errors="replace")


def _read(fd: int) -> bytes:
    if not select.select([fd], [], [], 0.5)[0]:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def test_the_readme_rented_gpu_section_runs_as_written(walk):
    commands = readme_commands()
    assert [command.split()[:2] for command in commands] == [
        ["rgt", "platforms"], ["rgt", "up"], ["snakemake", "--profile"], ["rgt", "watch"],
        ["rgt", "pull"], ["rgt", "down"]]
    platforms, up, pipeline, watch, pull, down = commands
    project, root = walk["project"], walk["root"]

    assert "autodl" in run(substituted(platforms, ""), walk).stdout
    recorded = run(substituted(up, ""), walk)
    entry = yaml.safe_load((project / "config" / "hosts.yaml").read_text())["hosts"][ALIAS]
    assert (entry["platform"], entry["python"], entry["remote_root"]) == (
        "autodl", sys.executable, str(root))
    assert entry["recorded"]["by"] == "rgt up" and "ssh_config" not in entry
    assert f"remote root {root} (from the platform's durable dir" in recorded.stderr

    trained = run(substituted(pipeline, ""), walk)
    output = trained.stdout + trained.stderr
    assert "rgt: launched" in output and "sha256 verified" in output
    launched = [json.loads(line) for line in
                (project / ".rgt" / "launches.jsonl").read_text().splitlines()]
    (run_id,) = {launch["run_id"] for launch in launched}
    assert launched[0]["host"] == ALIAS and launched[0]["root"] == str(root)
    assert (root / "runs" / run_id / "run.json").is_file()  # trained under the recorded root
    steps = json.loads((project / "runs" / run_id / "run.json").read_text())["steps"]

    shown = run(substituted(watch, run_id), walk).stdout
    assert run_id in shown and "finished" in shown and f"{steps}/{steps}" in shown

    pulled = run(substituted(pull, run_id), walk).stdout
    assert "verified" in pulled
    assert not (project / "quarantine").exists()  # the pipeline's own copy was never set aside

    hosts = project / "config" / "hosts.yaml"  # "add stop_command by hand", as the README says
    stopped = project.parent / "meter-stopped"
    hosts.write_text(hosts.read_text() + f"    stop_command: [touch, {stopped}]\n")
    code, output = typed(substituted(down, run_id), walk, f"{ALIAS}:stop")
    assert code == 0, output[-3000:]
    assert stopped.exists() and "verified" in output
