"""Benchmark: atomic full-state checkpoint save vs. raw and non-atomic writes of the same bytes.

    python bench/checkpoint.py [--mib 64] [--rounds 7] [--dir DIR] [--json OUT]

Variants, all timed in one process with ``time.perf_counter()``:
  A   CheckpointStore.save: atomic full-state save with sha256 and marker (keep=2, so it prunes)
  B   raw: the serialised bytes written with O_TRUNC over the previous file, then fsync
  B'  raw_atomic: the same bytes through the atomic protocol (tmp, fsync, replace, fsync dir)
  C   plain: torch.save(state, path), not atomic and not fsync'd
Each round runs the variants in rotated order with an untimed os.sync() before each; round 0 is
a warm-up and not counted. Ratios are throughput ratios paired within a round. B' exists because
on a VM with balloon free-page reporting any save that allocates fresh page cache (every atomic
save) is slower than an in-place rewrite (docs: shared/reference/perf-anchors.md, section 2).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from rgt.base.files import atomic_open
from rgt.train.checkpoint import CheckpointStore

CHUNK = 1 << 20
VARIANTS = ("A", "B", "B'", "C")
LABELS = {
    "A": "A  CheckpointStore.save (atomic)",
    "B": "B  raw write+fsync (O_TRUNC)",
    "B'": "B' raw bytes, atomic protocol",
    "C": "C  torch.save(path), no fsync",
}
RATIOS = (("A", "B"), ("A", "B'"), ("A", "C"))
GOALS = {("A", "B"): 0.9, ("A", "C"): 0.95}


def build_state(mib: float) -> dict:
    """A full training state (model, Adam moments, RNG, counters) of about ``mib`` MiB."""
    width = max(1, int(mib * 2**20 / 12 / 2049))  # 12 bytes per param: weight + two Adam moments
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2048, width), torch.nn.ReLU())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model(torch.randn(8, 2048)).sum().backward()
    optimizer.step()
    return {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "step": 1,
        "epoch": 0,
        "rng": {"torch": torch.get_rng_state()},
    }


def serialise(state: dict) -> bytes:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def write_chunks(handle_write: Callable[[memoryview], object], data: bytes) -> None:
    view = memoryview(data)
    for start in range(0, len(view), CHUNK):
        handle_write(view[start : start + CHUNK])


def raw_write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_chunks(lambda chunk: os.write(fd, chunk), data)
        os.fsync(fd)
    finally:
        os.close(fd)


def raw_atomic_write(path: Path, data: bytes) -> None:
    with atomic_open(path, "wb") as handle:
        write_chunks(handle.write, data)


def make_variants(scratch: Path, state: dict, data: bytes) -> dict[str, Callable[[], None]]:
    store = CheckpointStore(scratch / "store", keep=2)
    steps = iter(range(1, 1 << 30))
    return {
        "A": lambda: store.save(next(steps), state),
        "B": lambda: raw_write(scratch / "raw.bin", data),
        "B'": lambda: raw_atomic_write(scratch / "raw_atomic.bin", data),
        "C": lambda: torch.save(state, scratch / "plain.pt"),
    }


def timed(action: Callable[[], None]) -> float:
    os.sync()  # untimed: the previous variant's dirty pages must not land in this timing
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run_rounds(variants: dict[str, Callable[[], None]], rounds: int) -> list[dict[str, float]]:
    """Seconds per variant for each counted round (round 0 is a warm-up)."""
    counted = []
    for round_ in range(rounds):
        order = VARIANTS[round_ % len(VARIANTS) :] + VARIANTS[: round_ % len(VARIANTS)]
        seconds = {name: timed(variants[name]) for name in order}
        if round_ > 0:
            counted.append(seconds)
    return counted


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summarise(rounds: list[dict[str, float]], nbytes: int) -> dict:
    throughput = {v: [nbytes / 1e6 / r[v] for r in rounds] for v in VARIANTS}
    ratios = {f"{a}/{b}": [r[b] / r[a] for r in rounds] for a, b in RATIOS}
    goals = {
        f"{a}/{b}": {"goal": g, "median": statistics.median(ratios[f"{a}/{b}"])}
        for (a, b), g in GOALS.items()
    }
    for goal in goals.values():
        goal["met"] = goal["median"] >= goal["goal"]
    return {
        "mb_per_s": {v: {**spread(x), "rounds": x} for v, x in throughput.items()},
        "ratios": {k: {**spread(x), "rounds": x} for k, x in ratios.items()},
        "goals": goals,
    }


def print_report(summary: dict, nbytes: int, counted: int) -> None:
    print(f"checkpoint {nbytes:,} bytes ({nbytes / 2**20:.1f} MiB), {counted} counted rounds")
    print(f"{'variant':<36} {'MB/s min':>9} {'median':>9} {'max':>9}")
    for name in VARIANTS:
        s = summary["mb_per_s"][name]
        print(f"{LABELS[name]:<36} {s['min']:>9.0f} {s['median']:>9.0f} {s['max']:>9.0f}")
    print(f"\n{'paired throughput ratio':<36} {'min':>9} {'median':>9} {'max':>9}")
    for key, s in summary["ratios"].items():
        print(f"{key:<36} {s['min']:>9.2f} {s['median']:>9.2f} {s['max']:>9.2f}")
    print()
    for key, g in summary["goals"].items():
        verdict = "met" if g["met"] else "not met"
        print(f"goal {key} >= {g['goal']}: median {g['median']:.2f} -> {verdict}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=64, help="checkpoint size in MiB")
    parser.add_argument("--rounds", type=int, default=7, help="rounds, the first not counted")
    parser.add_argument("--dir", type=Path, help="scratch parent directory (default: tempdir)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (round 0 is not counted)")
    return args


def main() -> None:
    args = parse_args()
    state = build_state(args.mib)
    data = serialise(state)
    scratch = Path(tempfile.mkdtemp(prefix="rgt-bench-checkpoint-", dir=args.dir))
    try:
        rounds = run_rounds(make_variants(scratch, state, data), args.rounds)
    finally:
        shutil.rmtree(scratch)  # the big files must not outlive the run
    summary = summarise(rounds, len(data))
    print_report(summary, len(data), len(rounds))
    if args.json:
        meta = {
            "bytes": len(data),
            "mib": args.mib,
            "rounds": args.rounds,
            "torch": torch.__version__,
        }
        args.json.write_text(json.dumps({**meta, **summary}, indent=2) + "\n")


if __name__ == "__main__":
    main()
