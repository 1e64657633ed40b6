"""Kill drills on real ``rgt train`` processes with background checkpoint writes, shared by
the test suite (CPU, and CUDA behind ``--run-gpu``) and ``bench/gpu_check.py``.

No pytest here: ``gpu_check`` runs these on a GPU host that has only torch and rgt's own
dependencies. The data is a small synthetic set written into the project (no download, no
scikit-learn). A drill raises ``DrillFailure`` when a guarantee breaks and returns what it saw.

The write window is forced, never hoped for: the child process (``HOLD_WRAPPER``) wraps its own
``torch.save`` so that, in the background writer's thread, the first save at or after a given
step is held — torn halfway and frozen (``kill``), or complete but not yet renamed until the
drill releases it (``term``). The production code runs unchanged.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

SRC = Path(__file__).resolve().parents[1] / "src"
TIMEOUT_S = 300
HOLD_ENV = "RGT_DRILL_HOLD"
EVERY_STEPS = 20
HOLD_AT_STEP = 60
RELEASE_AFTER_S = 1.0  # the loop reaches its next boundary and waits on the held write

DATA_MODULE = textwrap.dedent(
    """
    import os
    from pathlib import Path

    import numpy as np

    from rgt.data import Dataset


    def blobs(samples=1500, classes=4, seed=0):
        rng = np.random.default_rng(seed)
        labels = np.arange(samples) % classes
        centers = rng.normal(size=(classes, 1, 8, 8))
        inputs = centers[labels] + 0.8 * rng.normal(size=(samples, 1, 8, 8))
        return Dataset("drill-blobs", inputs.astype(np.float32), labels.astype(np.int64),
                       np.arange(samples, dtype=np.int64), classes)


    def blobs_on_disk(**params):  # the same samples, inputs memory-mapped from a .npy file
        in_memory = blobs(**params)
        path = Path(__file__).with_name("blobs.npy")
        if not path.exists():
            np.save(path.with_suffix(".tmp.npy"), in_memory.inputs)
            os.replace(path.with_suffix(".tmp.npy"), path)
        return Dataset("drill-blobs", np.load(path, mmap_mode="r"), in_memory.labels,
                       in_memory.ids, in_memory.num_classes)
    """
)

HOLD_WRAPPER = textwrap.dedent(
    """
    import io, os, sys, threading, time
    from pathlib import Path

    import torch

    mode, at_step, where = os.environ["RGT_DRILL_HOLD"].split(":", 2)
    where, held, real_save = Path(where), [], torch.save


    def save(obj, f, *args, **kwargs):
        in_writer = threading.current_thread().name.startswith("rgt-checkpoint_")
        if held or not in_writer or not isinstance(obj, dict) or obj.get("step", -1) < int(
                at_step):
            return real_save(obj, f, *args, **kwargs)
        held.append(obj["step"])
        if mode == "kill":  # torn halfway, then frozen until the drill kills the process
            buffer = io.BytesIO()
            real_save(obj, buffer, *args, **kwargs)
            with open(f, "wb") as handle:
                handle.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
            (where / f"in-write-{obj['step']}").touch()
            time.sleep(600)
            os._exit(3)
        real_save(obj, f, *args, **kwargs)  # term: complete, but not renamed until released
        (where / f"in-write-{obj['step']}").touch()
        deadline = time.monotonic() + 120
        while not (where / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.01)


    torch.save = save
    from rgt.cli import main

    sys.exit(main(sys.argv[1:]))
    """
)


class DrillFailure(AssertionError):
    """A guarantee the drill checks did not hold."""


def check(condition: bool, message: str) -> None:
    """``assert`` that survives ``python -O`` and names what broke."""
    if not condition:
        raise DrillFailure(message)


@dataclass(frozen=True)
class DrillProject:
    """A project directory with one planned run and the environment its processes need."""

    root: Path
    config: Path
    run_id: str
    env: dict

    @property
    def state_dir(self) -> Path:
        return self.root / "checkpoints" / self.run_id

    def rgt(self, *args: str) -> list[str]:
        return [*args, "--config", str(self.config), "--run-id", self.run_id]


# The GPU-grade runtime in one run: bf16 autocast, two micro-batches per step (33 steps an
# epoch), clipping, inputs memory-mapped from disk and read by a DataLoader worker process.
RUNTIME = {"precision": "bf16", "accumulate": 2, "clip_grad_norm": 1.0, "loader_workers": 1}
RUNTIME_KILL_STEPS = (25, 47)  # mid-epoch in both epochs, between checkpoints


def make_project(root: Path, device: str, runtime: dict | None = None) -> DrillProject:
    """The drill's run (2 epochs of 66 steps, dropout, a checkpoint every 20 steps) in
    ``root``, training on ``device``; with ``runtime`` (train settings such as ``RUNTIME``),
    on memory-mapped data."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "drilldata.py").write_text(DATA_MODULE)
    config = {
        "defaults": {
            "data": {"name": "drilldata:blobs_on_disk" if runtime else "drilldata:blobs",
                     "split": {"val": 0.15, "test": 0.15, "seed": 0}},
            "model": {"name": "small_cnn", "channels": 4, "dropout": 0.3},
            "train": {"epochs": 2, "batch_size": 16, "lr": 0.01, "weight_decay": 0.0,
                      "optimizer": "adam", "scheduler": "cosine", "threads": 1,
                      "device": device, **(runtime or {})},
            "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "every_steps": EVERY_STEPS,
                           "heartbeat_seconds": 0.001},
            "selection": {"metric": "accuracy", "split": "val"},
        },
        "experiments": {"drill": {"baseline": "only", "seeds": [0],
                                  "variants": {"only": {}}}},
    }
    path = root / "config" / "config.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    paths = [str(root), str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}
    env.pop(HOLD_ENV, None)
    return DrillProject(root, path, _run_id(path, root), env)


def _run_id(config: Path, root: Path) -> str:
    sys.path.insert(0, str(root))  # the data plugin: planning hashes its data
    try:
        from rgt.config import load_config
        from rgt.plan.runplan import plan_runs

        return plan_runs(load_config(config))[0].run_id
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("drilldata", None)  # another project's module of the same name


def start(project: DrillProject, hold: str | None = None) -> subprocess.Popen:
    """``rgt train`` as a process; with ``hold`` (``kill`` or ``term``) through the wrapper."""
    if hold is None:
        command, env = [sys.executable, "-m", "rgt"], project.env
    else:
        command = [sys.executable, "-c", HOLD_WRAPPER]
        env = {**project.env, HOLD_ENV: f"{hold}:{HOLD_AT_STEP}:{project.root}"}
    return subprocess.Popen([*command, *project.rgt("train")], cwd=project.root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def train(project: DrillProject) -> str:
    """Train (or resume) to the end; the output. ``DrillFailure`` unless it exits 0."""
    process = start(project)
    output, _ = process.communicate(timeout=TIMEOUT_S)
    check(process.returncode == 0, f"rgt train exited {process.returncode}:\n{output}")
    return output


def outcome(project: DrillProject) -> dict:
    """What must be bit-identical between an uninterrupted and an interrupted run."""
    run_dir = project.root / "runs" / project.run_id
    record = json.loads((run_dir / "run.json").read_text())
    return {"weights": record["weights_sha256"], "selected": record["selected_weights_sha256"],
            "history": (run_dir / "train.csv").read_text(), "device": record["device"]}


def reference(root: Path, device: str, runtime: dict | None = None) -> dict:
    """The outcome of the drill's run trained without interruption."""
    project = make_project(root, device, runtime)
    train(project)
    return outcome(project)


def kill_during_write(root: Path, device: str, expected: dict) -> dict:
    """SIGKILL while a background write is torn halfway (training went on meanwhile): the
    previous checkpoint is the newest complete one, and resuming ends bit-identical."""
    started = time.monotonic()
    project = make_project(root, device)
    process = start(project, hold="kill")
    try:
        held = _held_step(project, process)
        going_on = _wait(lambda: _beat_from(project, held + 3), process,
                         "training past the held save")
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=TIMEOUT_S)
    finally:
        _reap(process)
    torn = project.state_dir / f"step-{held:09d}.pt.tmp"
    check(torn.exists() and torn.stat().st_size > 0, f"no torn write of step {held}: {torn}")
    check(not torn.with_name(f"step-{held:09d}.json").exists(), "a marker for the torn save")
    newest = _newest_complete(project)
    check(newest == held - EVERY_STEPS, f"newest complete checkpoint {newest}, expected "
                                        f"{held - EVERY_STEPS}")
    output = train(project)
    check(f"resumed from step-{newest:09d}.pt" in output, f"did not resume from {newest}:\n"
                                                          f"{output}")
    check(outcome(project) == expected, "resumed run differs from the uninterrupted one")
    return {"held_step": held, "trained_to_while_held": going_on, "resumed_from": newest,
            "seconds": time.monotonic() - started}


def term_during_write(root: Path, device: str, expected: dict) -> dict:
    """SIGTERM while a background write is in flight: that save completes, the preemption
    checkpoint follows, the process exits 75, and resuming ends bit-identical."""
    started = time.monotonic()
    project = make_project(root, device)
    process = start(project, hold="term")
    try:
        held = _held_step(project, process)
        process.send_signal(signal.SIGTERM)
        time.sleep(RELEASE_AFTER_S)
        (project.root / "release").touch()
        output, _ = process.communicate(timeout=TIMEOUT_S)
    finally:
        _reap(process)
    check(process.returncode == 75, f"exit {process.returncode}, expected 75:\n{output}")
    status_path = project.state_dir / "status.json"
    status = json.loads(status_path.read_text())
    check(status["state"] == "preempted", f"status {status}")
    check(_verified_marker(project, held) is not None,
          f"the save of step {held}, in flight at SIGTERM, never landed")
    check(_newest_complete(project) == status["step"] >= held,
          f"newest checkpoint {_newest_complete(project)}, preempted at {status['step']}")
    last = _verified_marker(project, status["step"])
    check(last.stat().st_mtime_ns <= status_path.stat().st_mtime_ns,
          "the process recorded its exit before its last checkpoint was durable")
    train(project)
    check(outcome(project) == expected, "resumed run differs from the uninterrupted one")
    return {"held_step": held, "preempted_at": status["step"],
            "seconds": time.monotonic() - started}


def kill_and_resume(root: Path, device: str, expected: dict, at_steps=(37, 90),
                    runtime: dict | None = None) -> dict:
    """SIGKILL at the given steps (no write held), then resume: bit-identical."""
    started = time.monotonic()
    project = make_project(root, device, runtime)
    for step in at_steps:
        process = start(project)
        try:
            _wait(lambda step=step: _beat_from(project, step), process, f"step {step}")
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=TIMEOUT_S)
        finally:
            _reap(process)
    train(project)
    check(outcome(project) == expected, f"killed at {at_steps}: differs from uninterrupted")
    record = json.loads((project.root / "runs" / project.run_id / "run.json").read_text())
    check(record["attempts"] == len(at_steps) + 1, f"attempts {record['attempts']}")
    return {"killed_at": list(at_steps), "seconds": time.monotonic() - started}


def runtime_kill_and_resume(root: Path, device: str, compiled: bool = False) -> dict:
    """The ``RUNTIME`` run (bf16, accumulation, clipping, a loader worker over memory-mapped
    data; ``compiled``: also ``torch.compile`` and channels-last) uninterrupted, then
    SIGKILLed mid-epoch twice and resumed: bit-identical."""
    runtime = RUNTIME | ({"compile": True, "channels_last": True} if compiled else {})
    expected = reference(root / "reference", device, runtime)
    seen = kill_and_resume(root / "killed", device, expected, RUNTIME_KILL_STEPS, runtime)
    return {**seen, "runtime": runtime, "device": expected["device"]}


def snapshot_on(device: str) -> dict:
    """A host snapshot of a state on ``device``: pinned buffers for CUDA, and the values at
    the call even though the tensor is changed right after (the copy is queued first)."""
    import torch

    from rgt.train.snapshot import HostSnapshot

    started = time.monotonic()
    weights = torch.arange(1 << 22, dtype=torch.float32, device=device)
    snapshots = HostSnapshot()
    for _ in range(2):  # the second take reuses the first one's buffers
        taken = snapshots.take({"w": weights})
        weights.add_(1.0)
        taken.wait_copied()
    buffer = taken.state["w"]
    check(buffer.device.type == "cpu", f"snapshot on {buffer.device}")
    check(buffer.is_pinned() == (device == "cuda"), "pinned only for a CUDA state")
    check(torch.equal(buffer, torch.arange(1 << 22, dtype=torch.float32) + 1.0),
          "the snapshot does not hold the values at the call")
    return {"bytes": buffer.numel() * 4, "pinned": buffer.is_pinned(),
            "seconds": time.monotonic() - started}


def _held_step(project: DrillProject, process: subprocess.Popen) -> int:
    marker = _wait(lambda: next(project.root.glob("in-write-*"), None), process,
                   "the held background write")
    return int(marker.name.rsplit("-", 1)[1])


def _wait(predicate, process: subprocess.Popen, what: str):
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        if process.poll() is not None:
            raise DrillFailure(f"rgt train ended ({process.returncode}) before {what}:\n"
                               f"{process.communicate()[0]}")
        time.sleep(0.005)
    raise DrillFailure(f"timed out waiting for {what}")


def _beat_from(project: DrillProject, step: int) -> int | None:
    """The heartbeat's step once it has reached ``step``, else None."""
    try:
        seen = json.loads((project.state_dir / "heartbeat.json").read_text())["step"]
    except (OSError, ValueError, KeyError):
        return None
    return seen if seen >= step else None


def _newest_complete(project: DrillProject) -> int | None:
    from rgt.train.checkpoint import CheckpointStore

    loaded = CheckpointStore(project.state_dir).load_latest()
    return loaded[1].step if loaded else None


def _verified_marker(project: DrillProject, step: int) -> Path | None:
    from rgt.base.hashing import sha256_file

    marker = project.state_dir / f"step-{step:09d}.json"
    if not marker.exists():
        return None
    body = json.loads(marker.read_text())
    return marker if sha256_file(project.state_dir / body["file"]) == body["sha256"] else None


def _reap(process: subprocess.Popen) -> None:
    if process.poll() is None:  # no child may outlive a failed drill
        process.kill()
        process.communicate(timeout=30)
