"""Benchmark: the cost of the training contract inside the example's training loop.

Baseline: the bare loop (``Trainer.train_step`` and nothing else). Candidate: the loop exactly
as ``rgt train`` runs it — step timing, Young/Daly cadence with real atomic checkpoints,
heartbeat file, SIGTERM/SIGUSR1 handlers installed. Two persistent trainers of the bundled
example are advanced in alternating blocks (order rotated, round 0 not counted); each block's
time is paired with the other's in the same round, and the median of the paired overheads is
the figure. Goal: <= 2 % slower.

    python bench/overhead.py [--blocks 15] [--steps 200] [--mtbf-hours 6] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rgt.config import Settings, load_config  # noqa: E402
from rgt.data import load_dataset, make_split  # noqa: E402
from rgt.plan.runplan import plan_runs  # noqa: E402
from rgt.train.cadence import Cadence  # noqa: E402
from rgt.train.checkpoint import CheckpointStore  # noqa: E402
from rgt.train.determinism import configure  # noqa: E402
from rgt.train.preemption import preemption_flag  # noqa: E402
from rgt.train.run import LoopHooks  # noqa: E402
from rgt.train.run_status import RunStatus  # noqa: E402
from rgt.train.trainer import Trainer  # noqa: E402


def example_trainer(epochs: int) -> tuple[Trainer, Settings]:
    """A trainer of the bundled example's first run, with enough epochs for the benchmark."""
    spec = plan_runs(load_config(ROOT / "config" / "config.yaml"))[0]
    settings = spec.settings.model_copy(
        update={"train": spec.settings.train.model_copy(update={"epochs": epochs})})
    configure(settings.train.threads)
    dataset = load_dataset(settings.data)
    return Trainer(settings, dataset, make_split(dataset, settings.data.split),
                   spec.seed), settings


def bare_block(trainer: Trainer, steps: int) -> float:
    """Seconds for ``steps`` bare optimizer steps."""
    started = time.perf_counter()
    for _ in range(steps):
        trainer.train_step()
    return time.perf_counter() - started


class InstrumentedLoop:
    """The loop of ``rgt train``: hooks, cadence, real checkpoints, heartbeat, signals."""

    def __init__(self, trainer: Trainer, settings: Settings, directory: Path, mtbf_hours: float):
        self.trainer = trainer
        self.store = CheckpointStore(directory, keep=2)
        self.cadence = Cadence(mtbf_hours, None)
        status = RunStatus(directory, trainer.total_steps,
                           settings.checkpoint.heartbeat_seconds)
        logger = logging.getLogger("bench.overhead")
        self.hooks = LoopHooks(trainer, self.store, self.cadence, status, None, logger)
        self.hooks.save()  # as rgt train does at step 0: a resume point and the first cost

    def block(self, steps: int) -> float:
        """Seconds for ``steps`` steps through ``Trainer.run`` with every hook."""
        started = time.perf_counter()
        with preemption_flag() as flag:
            self.trainer.run(self.cadence.due, self.hooks.save, lambda: bool(flag),
                             self.hooks.on_step, until=self.trainer.step + steps)
        return time.perf_counter() - started


def measure(blocks: int, steps: int, mtbf_hours: float, directory: Path) -> dict:
    """Alternate bare and instrumented blocks; return paired overheads and counts."""
    epochs = 1 + (blocks + 1) * steps // 20
    bare, config = example_trainer(epochs)
    instrumented = InstrumentedLoop(example_trainer(epochs)[0], config, directory, mtbf_hours)
    overheads, bare_times, full_times = [], [], []
    for round_index in range(blocks + 1):
        order = [0, 1] if round_index % 2 == 0 else [1, 0]
        times = {}
        for which in order:
            times[which] = (bare_block(bare, steps) if which == 0
                            else instrumented.block(steps))
        if round_index == 0:
            continue  # warm-up
        bare_times.append(times[0])
        full_times.append(times[1])
        overheads.append(times[1] / times[0] - 1.0)
    saves = len(list(directory.glob("step-*.json")))
    return {"overheads": overheads, "bare": bare_times, "full": full_times,
            "interval": instrumented.cadence.interval(),
            "save_ms": 1000 * instrumented.cadence.save_seconds, "saves_kept": saves,
            "steps_per_block": steps}


def report(result: dict, mtbf_hours: float) -> None:
    """Print the table and the verdict against the goal."""
    over = sorted(result["overheads"])
    steps = result["steps_per_block"]
    bare_rate = [steps / t for t in result["bare"]]
    full_rate = [steps / t for t in result["full"]]
    print(f"training-loop overhead (MTBF {mtbf_hours} h, {len(over)} paired blocks of "
          f"{steps} steps)")
    print(f"  bare loop          steps/s min/median/max: {min(bare_rate):.0f} / "
          f"{statistics.median(bare_rate):.0f} / {max(bare_rate):.0f}")
    print(f"  rgt train loop     steps/s min/median/max: {min(full_rate):.0f} / "
          f"{statistics.median(full_rate):.0f} / {max(full_rate):.0f}")
    print(f"  paired overhead    min/median/max: {100 * over[0]:+.1f}% / "
          f"{100 * statistics.median(over):+.1f}% / {100 * over[-1]:+.1f}%")
    print(f"  total-time ratio   {sum(result['full']) / sum(result['bare']):.3f}")
    print(f"  Young/Daly interval {result['interval']} steps, save cost "
          f"{result['save_ms']:.1f} ms")
    verdict = "met" if statistics.median(over) <= 0.02 else "NOT met"
    print(f"  goal: median overhead <= 2 %: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--mtbf-hours", type=float, default=6.0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-") as scratch:
        result = measure(args.blocks, args.steps, args.mtbf_hours, Path(scratch))
    report(result, args.mtbf_hours)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
