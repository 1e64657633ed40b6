"""Re-capture the failure logs of tests/data/logs/ by really causing each failure.

Run from the repository root: ``.venv/bin/python tests/data/logs/capture.py`` (about two
minutes on 2 cores). Each case trains the tiny config (tests/data/tiny.yaml, one run) with the
real ``rgt train``, launched detached by ``rgt.remote.jobs.launch_script`` exactly as on a
rented host, and saves ``<case>/train.log``, ``<case>/job.log`` and ``<case>/facts.json``
(exit code as the job wrapper recorded it, last heartbeat loss). Every saved file starts with a
one-line ``#`` header saying how it was produced; the tests drop it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "src"))

from rgt.remote.jobs import RemoteLayout, launch_script  # noqa: E402

BROKEN_MODEL = '''
from torch import nn


class Broken(nn.Module):
    """Trains a few steps, then fails the way user code does: a shape bug in forward."""

    def __init__(self, input_shape, num_classes):
        super().__init__()
        self.calls = 0
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, num_classes))

    def forward(self, inputs):
        self.calls += 1
        if self.calls > 5:
            inputs = inputs[:, :, :4]
        return self.head(inputs)
'''


CUDA_OOM_MODEL = '''
import torch
from torch import nn


class CudaOom(nn.Module):
    """Raises the real torch.OutOfMemoryError class with the CUDA caching allocator's message."""

    def __init__(self, input_shape, num_classes):
        super().__init__()
        self.calls = 0
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, num_classes))

    def forward(self, inputs):
        self.calls += 1
        if self.calls > 5:
            raise torch.OutOfMemoryError(
                "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
                "23.65 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this "
                "process has 22.45 GiB memory in use. Of the allocated memory 21.87 GiB is "
                "allocated by PyTorch, and 139.52 MiB is reserved by PyTorch but unallocated. "
                "If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                "documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
        return self.head(inputs)
'''


def config(**train) -> dict:
    data = yaml.safe_load((ROOT / "tests" / "data" / "tiny.yaml").read_text())
    data["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    data["defaults"]["train"].update(train)
    data["defaults"]["checkpoint"]["heartbeat_seconds"] = 0.001
    return data


def prepare(work: Path, settings: dict) -> tuple[RemoteLayout, str]:
    """A host root with the config in code/t, runs/checkpoints under it; returns the run id."""
    layout = RemoteLayout(str(work))
    code = Path(layout.code("t"))
    code.mkdir(parents=True)
    settings["paths"] = {"runs": layout.runs, "checkpoints": layout.checkpoints}
    (code / "config.yaml").write_text(yaml.safe_dump(settings))
    (code / "mylab").mkdir()
    (code / "mylab" / "__init__.py").write_text("")
    (code / "mylab" / "broken.py").write_text(BROKEN_MODEL)
    (code / "mylab" / "cuda_oom.py").write_text(CUDA_OOM_MODEL)
    plan = subprocess.run([sys.executable, "-m", "rgt", "plan", "--config", "config.yaml",
                           "--json"], cwd=code, capture_output=True, text=True, check=True,
                          timeout=120)
    return layout, json.loads(plan.stdout)[0]["run_id"]


def launch(layout: RemoteLayout, run_id: str, run_id_arg: str | None = None) -> None:
    command = [sys.executable, "-m", "rgt", "train", "--config", "config.yaml", "--run-id",
               run_id_arg or run_id]
    env = {"PYTHONPATH": layout.code("t"), "PYTHONUNBUFFERED": "1"}
    script = launch_script(layout, run_id, layout.code("t"), command, env, None, "setsid")
    subprocess.run(["bash", "-c", script], check=True, timeout=60)


def wait(predicate, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the case did not reach its condition")
        time.sleep(0.1)


def heartbeat(layout: RemoteLayout, run_id: str) -> dict:
    try:
        return json.loads((Path(layout.checkpoints) / run_id / "heartbeat.json").read_text())
    except (OSError, ValueError):
        return {}


def exit_code(layout: RemoteLayout, run_id: str) -> int | None:
    path = Path(layout.job(run_id)) / "exit_code"
    return int(path.read_text()) if path.exists() else None


def python_pid(layout: RemoteLayout, run_id: str) -> int:
    """The trainer itself (a child of the job's bash wrapper)."""
    group = int((Path(layout.job(run_id)) / "pid").read_text())
    out = subprocess.run(["pgrep", "-g", str(group), "-f", "rgt train"], capture_output=True,
                         text=True, timeout=10).stdout.split()
    return next(int(pid) for pid in out if int(pid) != group)  # not the bash wrapper


def save(case: str, how: str, layout: RemoteLayout, run_id: str, train_log: Path | None = None,
         code: int | None = None) -> None:
    target = HERE / case
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    header = f"# {case}: {how} (captured by tests/data/logs/capture.py)\n"
    train_log = train_log or Path(layout.checkpoints) / run_id / "train.log"
    for name, source in (("train.log", train_log), ("job.log", Path(layout.job(run_id)) /
                                                       "job.log")):
        text = source.read_text() if source.exists() else ""
        (target / name).write_text(header + text)
    loss = heartbeat(layout, run_id).get("loss")
    facts = {"exit_code": exit_code(layout, run_id) if code is None else code,
             "heartbeat_loss": None if loss is None or math.isfinite(loss) else str(loss)}
    (target / "facts.json").write_text(header + json.dumps(facts, indent=2) + "\n")


def case_finished(work: Path) -> None:
    layout, run_id = prepare(work, config())
    launch(layout, run_id)
    wait(lambda: exit_code(layout, run_id) is not None)
    save("finished", "a normal tiny run to the end", layout, run_id)


def case_nonfinite(work: Path) -> None:
    layout, run_id = prepare(work, config(lr=1e12, optimizer="sgd"))
    launch(layout, run_id)
    wait(lambda: exit_code(layout, run_id) is not None)
    save("nonfinite", "lr 1e12 with sgd: the loss turns NaN; the trainer runs on", layout, run_id)


def case_code_error(work: Path) -> None:
    settings = config()
    settings["defaults"]["model"] = {"name": "mylab.broken:Broken"}
    layout, run_id = prepare(work, settings)
    launch(layout, run_id)
    wait(lambda: exit_code(layout, run_id) is not None)
    save("code_error", "a user model whose forward breaks a shape at its 6th call", layout,
         run_id)


def case_cuda_oom(work: Path) -> None:
    settings = config()
    settings["defaults"]["model"] = {"name": "mylab.cuda_oom:CudaOom"}
    layout, run_id = prepare(work, settings)
    launch(layout, run_id)
    wait(lambda: exit_code(layout, run_id) is not None)
    save("cuda_oom", "no GPU here: a user model raising the real torch.OutOfMemoryError at its "
         "6th call, with the message in PyTorch's CUDA allocator format (as quoted in "
         "pytorch/pytorch#16417)", layout, run_id)


def case_preempted(work: Path) -> None:
    layout, run_id = prepare(work, config(epochs=50))
    launch(layout, run_id)
    wait(lambda: heartbeat(layout, run_id).get("step", 0) >= 5)
    os.kill(python_pid(layout, run_id), signal.SIGTERM)
    wait(lambda: exit_code(layout, run_id) is not None)
    save("preempted", "SIGTERM to the trainer at step >= 5", layout, run_id)


def case_sigkill(work: Path) -> None:
    layout, run_id = prepare(work, config(epochs=50))
    launch(layout, run_id)
    wait(lambda: heartbeat(layout, run_id).get("step", 0) >= 5)
    os.kill(python_pid(layout, run_id), signal.SIGKILL)  # what the OOM killer does
    wait(lambda: exit_code(layout, run_id) is not None)
    save("sigkill", "SIGKILL to the trainer only (as the OOM killer does); its bash wrapper "
         "recorded the exit", layout, run_id)


def case_dead(work: Path) -> None:
    layout, run_id = prepare(work, config(epochs=50))
    launch(layout, run_id)
    wait(lambda: heartbeat(layout, run_id).get("step", 0) >= 5)
    os.killpg(int((Path(layout.job(run_id)) / "pid").read_text()), signal.SIGKILL)
    time.sleep(0.5)
    save("dead", "SIGKILL to the job's whole process group: no exit record", layout, run_id)


def case_user_error(work: Path) -> None:
    layout, run_id = prepare(work, config())
    launch(layout, run_id, run_id_arg="0123456789abcdef")
    wait(lambda: exit_code(layout, run_id) is not None)
    save("user_error", "rgt train with a run id that is not in the plan", layout, run_id)


def case_disk_full(work: Path) -> None:
    """A real 16 KiB tmpfs over the checkpoint directory, in a user + mount namespace."""
    layout, run_id = prepare(work, config())
    state = Path(layout.checkpoints) / run_id
    state.mkdir(parents=True)
    job = Path(layout.job(run_id))
    job.mkdir(parents=True)
    kept = work / "train.log.kept"
    train = (f"{sys.executable} -m rgt train --config config.yaml --run-id {run_id}")
    script = (f"mount -t tmpfs -o size=16k tmpfs {state} && cd {layout.code('t')} && "
              f"PYTHONUNBUFFERED=1 {train} > {job}/job.log 2>&1; echo $? > {job}/exit_code; "
              f"cp {state}/train.log {kept}")
    subprocess.run(["unshare", "-rm", "bash", "-c", script], check=True, timeout=180)
    save("disk_full", "rgt train with its checkpoint directory on a real 16 KiB tmpfs "
         "(unshare -rm; mount -t tmpfs -o size=16k)", layout, run_id, train_log=kept)


def case_snapshot(work: Path) -> None:
    """The snapshot script's real output over a planted root (saved as snapshot/planted.txt).

    running: a detached launch_script job (sleep) with a fresh heartbeat; finished: sealed, exit
    0; failed: exit 1 with the code_error logs; dead: a pid that is gone, no exit; bare: only
    checkpoints/ with a status.json naming a live process that carries the run id; plus a
    watchdog heartbeat and ALARM.
    """
    from rgt.base.clock import utc_now
    from rgt.watch.collect import snapshot_script

    layout = RemoteLayout(str(work))
    now = utc_now()
    ckpt = Path(layout.checkpoints)

    def files(run_id: str, **named: object) -> None:
        (ckpt / run_id).mkdir(parents=True, exist_ok=True)
        for name, body in named.items():
            (ckpt / run_id / f"{name}.json").write_text(json.dumps(body, indent=2,
                                                                   sort_keys=True) + "\n")

    subprocess.run(["bash", "-c", launch_script(layout, "running0", str(work), ["sleep", "60"],
                                                {}, None, "setsid")], check=True, timeout=30)
    files("running0", status={"state": "running", "pid": 1, "step": 10, "total_steps": 100,
                              "started_at": now, "updated_at": now},
          heartbeat={"step": 42, "total_steps": 100, "loss": 0.25, "pid": 1, "updated_at": now})
    for run_id, code in (("finished0", 0), ("failed0", 1), ("dead0", None)):
        job = Path(layout.job(run_id))
        job.mkdir(parents=True)
        (job / "launches").write_text("1\n")
        (job / "pid").write_text("999999999\n")
        if code is not None:
            (job / "exit_code").write_text(f"{code}\n")
    files("finished0", status={"state": "finished", "step": 100, "total_steps": 100})
    (Path(layout.runs) / "finished0").mkdir(parents=True)
    (Path(layout.runs) / "finished0" / "run.json").write_text("{}\n")
    for name in ("train.log", "job.log"):
        text = (HERE / "code_error" / name).read_text().split("\n", 1)[1]
        target = (ckpt / "failed0" / name) if name == "train.log" else Path(
            layout.job("failed0")) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    bare = subprocess.Popen(["bash", "-c", ": bare0; sleep 60; true"], start_new_session=True)
    files("bare0", status={"state": "running", "pid": bare.pid, "step": 0, "total_steps": 5})
    (work / "watchdog").mkdir()
    (work / "watchdog" / "heartbeat.json").write_text(json.dumps({"updated_at": now}))
    (work / "watchdog" / "ALARM").write_text(json.dumps({"message": "host idle for 1800 s"}))
    try:
        out = subprocess.run(["bash", "-c", snapshot_script(str(work))], capture_output=True,
                             text=True, timeout=60, check=True).stdout
    finally:
        os.killpg(int((Path(layout.job("running0")) / "pid").read_text()), signal.SIGKILL)
        os.killpg(bare.pid, signal.SIGKILL)
    (HERE / "snapshot").mkdir(exist_ok=True)
    (HERE / "snapshot" / "planted.txt").write_text(
        f"# snapshot: real output of snapshot_script over a planted root ({work}; see "
        "case_snapshot in tests/data/logs/capture.py)\n" + out)


def main() -> None:
    cases = [name for name in globals() if name.startswith("case_")]
    chosen = sys.argv[1:] or [name.removeprefix("case_") for name in cases]
    for name in chosen:
        with tempfile.TemporaryDirectory() as work:
            print(f"capturing {name}", flush=True)
            globals()[f"case_{name}"](Path(work))


if __name__ == "__main__":
    main()
