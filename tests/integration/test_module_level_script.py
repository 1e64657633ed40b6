"""``rgt.start()`` on a script whose training loop runs at module level (examples/charlm, in
the shape of nanoGPT's train.py), as real processes: SIGKILL at random steps and SIGTERM resume
bit-identical; however the script ends, its status says how; one start per process."""

from __future__ import annotations

import ast
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import script_drills
from conftest import ROOT
from script_drills import finish, kill_at_random_steps, sealed, status, wait_for_step

pytestmark = pytest.mark.integration

EXAMPLE = ROOT / "examples" / "charlm"
STEPS = 60
# A checkpoint every 10 steps, so a kill lands between two of them.
CADENCE = {"RGT_EVERY_STEPS": "10"}


@pytest.fixture
def project(tmp_path) -> Path:
    """A copy of the example project (its script, its package, its data)."""
    shutil.copytree(EXAMPLE, tmp_path / "charlm", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "charlm"


def start(project: Path, run_id: str, sleep: float = 0.0, **env: str) -> subprocess.Popen:
    return script_drills.start(project / "train.py", project, run_id, "--max_iters", str(STEPS),
                               "--eval_interval", "20", "--sleep", str(sleep), **CADENCE, **env)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[str, str]:
    """An uninterrupted run's weights hash and history."""
    cwd = tmp_path_factory.mktemp("reference")
    shutil.copytree(EXAMPLE, cwd / "charlm", ignore=shutil.ignore_patterns("__pycache__"))
    code, output = finish(start(cwd / "charlm", "r"))
    assert code == 0, output
    return sealed(cwd / "charlm", "r")


def test_sigkill_at_random_steps_then_resume_is_bit_identical(project, reference):
    kill_at_random_steps(lambda: start(project, "k", sleep=0.02), project, "k",
                         range(5, STEPS - 5), seed=7)
    code, output = finish(start(project, "k"))
    assert code == 0, output
    assert "resumed k from step-" in output
    assert sealed(project, "k") == reference
    assert status(project, "k")["state"] == "finished" and status(project, "k")["attempts"] == 3


def test_sigterm_checkpoints_exits_75_and_resumes_bit_identical(project, reference):
    process = start(project, "t", sleep=0.02)
    wait_for_step(process, project, "t", 25)
    process.send_signal(signal.SIGTERM)
    code, output = finish(process)
    assert code == 75, output
    assert status(project, "t")["state"] == "preempted" and "received SIGTERM" in output
    code, output = finish(start(project, "t"))
    assert code == 0, output
    assert sealed(project, "t") == reference


def test_an_uncaught_error_is_the_recorded_failure_and_the_lock_is_released(project):
    script = project / "train.py"
    script.write_text(script.read_text().replace(
        "    iter_num += 1\n", "    iter_num += 1\n    assert iter_num < 15, 'diverged'\n"))
    code, output = finish(start(project, "e"))
    assert code == 1 and "AssertionError: diverged" in output
    assert status(project, "e")["state"] == "failed"
    assert status(project, "e")["error"] == "AssertionError: diverged"
    script.write_text(script.read_text().replace("    assert iter_num < 15, 'diverged'\n", ""))
    code, output = finish(start(project, "e"))  # the writer lock went with the process
    assert code == 0 and "resumed e from step-" in output, output


def test_a_script_that_ends_without_finish_is_recorded_as_failed(project):
    script = project / "train.py"
    script.write_text(script.read_text().split("run.finish(")[0])  # the last statement
    code, output = finish(start(project, "n"))
    assert code == 0, output
    assert status(project, "n")["state"] == "failed"
    assert status(project, "n")["error"] == "the loop ended without run.finish()"
    assert not (project / "runs" / "n").exists()


def test_a_second_start_in_one_process_is_refused_by_name(project):
    (project / "twice.py").write_text("import rgt\nrgt.start()\nrgt.start()\n")
    done = subprocess.run([sys.executable, "twice.py"], cwd=project, text=True,
                          capture_output=True, timeout=120,
                          env={**script_drills.os.environ, "RGT_RUN_ID": "twice"})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "rgt.start() was already called in this process (run twice)" in done.stderr
    assert status(project, "twice")["state"] == "failed"


def test_the_example_needs_nine_glue_lines_and_keeps_its_loop_at_module_level():
    code = (EXAMPLE / "train.py").read_text()
    glue = [line for line in code.splitlines() if "# rgt" in line]
    assert len(glue) == 9
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"\| a loop at module level \(`rgt.start`\) \| 9 \(`examples/charlm`\)",
                     readme)
    assert "(`examples/charlm/train.py`, in the shape of nanoGPT's `train.py`: 9 glue lines)" in \
        readme.replace("\n", " ")
    loops = [node for node in ast.parse(code).body if isinstance(node, ast.While)]
    assert len(loops) == 1 and any("run.checkpoint_due" in ast.unparse(node)
                                   for node in ast.walk(loops[0]))  # not re-indented in a with
