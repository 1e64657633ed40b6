"""One command for a machine with a GPU: the CUDA drills and the GPU benchmarks, in one go.

    python bench/gpu_check.py [--out DIR] [--quick] [--dry-run]

Needs only torch and rgt's own dependencies (no pytest, no network, no scikit-learn: the drills
train on synthetic data). Runs, in order, each step timed and recorded even when one fails:

  environment       torch, CUDA, the GPU, CUBLAS_WORKSPACE_CONFIG
  snapshot          a CUDA state copied into pinned host memory, values as at the call
  drills            (fp32, real ``rgt train`` processes, tests/drills.py) an uninterrupted
                    reference; SIGKILL at two steps then resume; SIGKILL while a background
                    write is torn halfway; SIGTERM while one is in flight (exit 75); a
                    bf16 run with gradient accumulation, clipping and a DataLoader worker
                    over memory-mapped inputs killed twice mid-epoch, and the same run
                    compiled and channels-last — each resumed run bit-identical to its
                    uninterrupted reference
  gpu_loop          bench/gpu_loop.py: rgt's loop / a plain PyTorch loop (goal >= 0.97), in
                    fp32 and again with both loops under bf16 autocast
  checkpoint        bench/checkpoint.py with a GPU-resident state (async_stall_ratio, A/B')
  overhead          bench/overhead.py: async saves every 50 steps vs the bare loop (<= 2 %);
                    it trains the bundled example, whose data needs scikit-learn (skipped,
                    and said so, where that is not installed)

Everything lands in ``--out`` (``gpu-check.json`` with every figure, each benchmark's own JSON
and output). Without a GPU, or with ``--dry-run``, the same steps run on the CPU with smaller
sizes: the script is known to work before it meets a GPU. ``--quick`` shrinks the benchmarks.
Exit status 0 when every step ran and every drill held, else 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

import drills  # noqa: E402

BENCH_TIMEOUT_S = 1800


def environment(device: str) -> dict:
    import torch

    facts = {"python": platform.python_version(), "torch": torch.__version__,
             "cuda_available": torch.cuda.is_available(), "device": device,
             "torch_cuda": torch.version.cuda,
             "cublas_workspace_config": os.environ.get("CUBLAS_WORKSPACE_CONFIG")}
    if device == "cuda":
        facts["gpu"] = torch.cuda.get_device_name(0)
        facts["gpu_count"] = torch.cuda.device_count()
    return facts


def drill_steps(device: str, scratch: Path) -> list[tuple[str, object]]:
    """The drills, in order; each later one compares with the reference's outcome."""
    expected: dict = {}

    def reference() -> dict:
        started = time.monotonic()
        expected.update(drills.reference(scratch / "reference", device))
        return {"device": expected["device"], "seconds": time.monotonic() - started}

    return [
        ("drill: uninterrupted reference", reference),
        ("drill: SIGKILL at steps, resume", lambda: drills.kill_and_resume(
            scratch / "kill-resume", device, expected)),
        ("drill: SIGKILL during a background write", lambda: drills.kill_during_write(
            scratch / "kill-write", device, expected)),
        ("drill: SIGTERM during a background write", lambda: drills.term_during_write(
            scratch / "term-write", device, expected)),
        ("drill: bf16 + accumulation + loader worker, SIGKILL twice, resume",
         lambda: drills.runtime_kill_and_resume(scratch / "runtime", device)),
        ("drill: the same compiled, channels-last", lambda: compiled_drill(scratch, device)),
    ]


def compiled_drill(scratch: Path, device: str) -> dict:
    """The runtime drill under ``torch.compile``; on the CPU only where a C++ compiler is (the
    CPU backend compiles C++; a GPU host needs none)."""
    if device == "cpu" and shutil.which("g++") is None:
        return {"skipped": "no C++ compiler for torch.compile's CPU backend"}
    return drills.runtime_kill_and_resume(scratch / "compiled", device, compiled=True)


def bench_steps(device: str, quick: bool, out: Path) -> list[tuple[str, object]]:
    """The benchmarks as processes (each sets up torch its own way), sized for the device."""
    cpu = device == "cpu"
    loop = ["--device", device] + (["--channels", "16", "--blocks", "3", "--steps", "50"]
                                   if quick or cpu else [])
    mib = "64" if quick or cpu else "1024"
    checkpoint = ["--device", device, "--mib", mib] + (["--rounds", "3"] if quick else [])
    overhead = ["--blocks", "4", "--steps", "100"] if quick or cpu else []
    bf16_loop = [*loop, "--precision", "bf16"]
    runs = (("gpu_loop", "gpu_loop", loop), ("gpu_loop_bf16", "gpu_loop", bf16_loop),
            ("checkpoint", "checkpoint", checkpoint), ("overhead", "overhead", overhead))
    return [(f"bench: {label}", lambda label=label, script=script, args=args: run_bench(
        label, script, args, out)) for label, script, args in runs]


def run_bench(name: str, script: str, args: list[str], out: Path) -> dict:
    """``python bench/<script>.py ARGS --json``; its figures, and its output saved beside as
    ``<name>.json`` and ``<name>.txt``."""
    if script == "overhead" and importlib.util.find_spec("sklearn") is None:
        return {"skipped": "scikit-learn is not installed (the bundled example's digits)"}
    figures = out / f"{name}.json"
    command = [sys.executable, str(ROOT / "bench" / f"{script}.py"), *args, "--json",
               str(figures)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BENCH_TIMEOUT_S,
                          cwd=ROOT)
    (out / f"{name}.txt").write_text(done.stdout + done.stderr)
    drills.check(done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stderr[-2000:]}")
    print(done.stdout.rstrip())
    return {key: value for key, value in json.loads(figures.read_text()).items()
            if key in ("ratio_vs_plain_loop", "async_stall_ratio", "median_overhead",
                       "goals", "device", "mib", "blocked_ms_per_save", "write_ms_per_save",
                       "precision")}


def run_all(steps: list[tuple[str, object]]) -> dict:
    """Run every step, recording its result or its error and its duration."""
    results = {}
    for name, step in steps:
        print(f"== {name}", flush=True)
        started = time.monotonic()
        try:
            results[name] = {"ok": True, "result": step()}
        except Exception as error:  # noqa: BLE001 - record it, go on with the next step
            traceback.print_exc()
            results[name] = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        results[name]["seconds"] = round(time.monotonic() - started, 1)
        print(f"   {'ok' if results[name]['ok'] else 'FAILED'} "
              f"({results[name]['seconds']} s)", flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="where the figures go (default: a new "
                                                 "gpu-check-* directory here)")
    parser.add_argument("--quick", action="store_true", help="smaller benchmarks")
    parser.add_argument("--dry-run", action="store_true", help="on the CPU even with a GPU")
    args = parser.parse_args(argv)
    import torch

    device = "cuda" if torch.cuda.is_available() and not args.dry_run else "cpu"
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-check-", dir=Path.cwd()))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rgt-gpu-check-") as scratch:
        steps = [("environment", lambda: environment(device)),
                 ("snapshot", lambda: drills.snapshot_on(device)),
                 *drill_steps(device, Path(scratch)), *bench_steps(device, args.quick, out)]
        results = run_all(steps)
    (out / "gpu-check.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    failed = [name for name, result in results.items() if not result["ok"]]
    print(f"\n{len(results) - len(failed)} of {len(results)} steps ok on {device}; figures in "
          f"{out / 'gpu-check.json'}" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
