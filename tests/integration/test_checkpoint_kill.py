"""Atomic-write drill: SIGKILL a real process in the middle of CheckpointStore.save (and of a
loop of background saves).

The child processes monkeypatch only their own copies of torch / rgt (test side); the
production code runs unchanged.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest
import torch

from rgt.base.hashing import sha256_file
from rgt.train.checkpoint import CheckpointStore, CheckpointWarning

pytestmark = pytest.mark.integration

SRC = Path(__file__).resolve().parents[2] / "src"
READY_TIMEOUT_S = 90  # a cold `import torch` on a busy 2-core machine can take many seconds
EXIT_TIMEOUT_S = 15

CHILD = textwrap.dedent(
    """
    import io, sys, time
    from pathlib import Path

    import torch
    import rgt.train.checkpoint as checkpoint

    mode, directory, ready, numel = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    store = checkpoint.CheckpointStore(directory)

    def state(step):
        return {"step": step, "weights": torch.full((numel,), float(step))}

    def hang():
        ready.touch()
        time.sleep(120)  # the parent kills us long before this ends
        sys.exit("not killed")

    real_save = torch.save

    def torn_save(obj, f, *args, **kwargs):
        buffer = io.BytesIO()
        real_save(obj, buffer, *args, **kwargs)
        data = buffer.getvalue()
        with open(f, "wb") as handle:  # the store hands torch.save the temp file's path
            handle.write(data[: len(data) // 2])
        hang()

    if mode == "torn-write":
        store.save(1, state(1))
        torch.save = torn_save
        store.save(2, state(2))
    elif mode == "before-marker":
        store.save(1, state(1))
        checkpoint.write_json = lambda path, obj: hang()
        store.save(2, state(2))
    elif mode in ("loop", "async-loop"):
        loaded = store.load_latest()
        step = loaded[1].step + 1 if loaded else 1
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if mode == "loop":
                store.save(step, state(step))
            else:  # the next snapshot is taken while the previous save is still written
                pending = store.save_async(step, state(step))
                if not ready.exists():
                    pending.result()  # each round lands at least one save before the kill
            ready.touch()
            step += 1
        sys.exit("not killed")
    """
)


def start_child(tmp_path: Path, mode: str, directory: Path, ready: Path, numel: int):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), *inherited])}
    stderr = open(tmp_path / f"child-{ready.name}.err", "wb")  # noqa: SIM115 - closed by caller
    args = [sys.executable, str(script), mode, str(directory), str(ready), str(numel)]
    return subprocess.Popen(args, env=env, stderr=stderr), stderr


def wait_for(ready: Path, child: subprocess.Popen, stderr_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not ready.exists():
        if child.poll() is not None:
            pytest.fail(f"child exited with {child.returncode}:\n{stderr_path.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"child not ready after {READY_TIMEOUT_S} s")
        time.sleep(0.01)


def run_and_kill(tmp_path, mode, directory, ready, numel, delay_s: float = 0.0) -> None:
    child, stderr = start_child(tmp_path, mode, directory, ready, numel)
    try:
        wait_for(ready, child, Path(stderr.name))
        time.sleep(delay_s)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()  # no child may outlive a failed test
        child.wait(timeout=EXIT_TIMEOUT_S)
        stderr.close()
    died = Path(stderr.name).read_text()
    assert child.returncode == -signal.SIGKILL, f"the child ended before the kill:\n{died}"


def highest_verified_marker(directory: Path) -> int | None:
    """Independent of the store: the highest step whose marker's file hashes as it says."""
    verified = []
    for marker in directory.glob("step-*.json"):
        body = json.loads(marker.read_text())
        path = directory / body["file"]
        if path.exists() and sha256_file(path) == body["sha256"]:
            verified.append(body["step"])
    return max(verified, default=None)


def load_latest_quietly(store: CheckpointStore):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = store.load_latest()
    return loaded, [str(w.message) for w in caught if issubclass(w.category, CheckpointWarning)]


def assert_intact(state: dict, step: int, numel: int) -> None:
    assert state["step"] == step
    assert torch.equal(state["weights"], torch.full((numel,), float(step)))


def test_kill_mid_write_leaves_previous_checkpoint_loadable(tmp_path):
    directory, numel = tmp_path / "ckpt", 1 << 18
    run_and_kill(tmp_path, "torn-write", directory, tmp_path / "ready", numel)

    torn = directory / "step-000000002.pt.tmp"
    assert torn.stat().st_size > 0, "the kill did not land inside the write"
    store = CheckpointStore(directory)
    (state, info), _ = load_latest_quietly(store)
    assert info.step == 1
    assert_intact(state, 1, numel)
    assert [i.step for i in store.complete()] == [1]
    assert not (directory / "step-000000002.pt").exists()
    assert torn.exists(), "the torn temp file must be left alone"


def test_kill_before_marker_skips_the_unmarked_file(tmp_path):
    directory, numel = tmp_path / "ckpt", 1 << 18
    run_and_kill(tmp_path, "before-marker", directory, tmp_path / "ready", numel)

    unmarked = directory / "step-000000002.pt"
    assert unmarked.exists() and not unmarked.with_suffix(".json").exists()
    store = CheckpointStore(directory)
    (state, info), messages = load_latest_quietly(store)
    assert info.step == 1
    assert_intact(state, 1, numel)
    assert any("step-000000002.pt" in m and "no completion marker" in m for m in messages)
    assert unmarked.exists() and [i.step for i in store.complete()] == [1]


@pytest.mark.parametrize(("mode", "rounds"), [("loop", 5), ("async-loop", 3)])
def test_kill_at_random_moments_during_a_save_loop(tmp_path, mode, rounds):
    directory, numel = tmp_path / "ckpt", 1 << 21  # 8 MiB: a save spans many milliseconds
    seed = random.randrange(1 << 32)
    rng = random.Random(seed)
    previous = 0
    for round_ in range(rounds):
        ready = tmp_path / f"ready-{round_}"
        run_and_kill(tmp_path, mode, directory, ready, numel, delay_s=rng.uniform(0, 0.4))

        expected = highest_verified_marker(directory)
        (state, info), _ = load_latest_quietly(CheckpointStore(directory))
        context = f"seed {seed}, round {round_}: {sorted(os.listdir(directory))}"
        assert info.step == expected, context
        assert info.step > previous, context
        assert_intact(state, info.step, numel)
        previous = info.step
