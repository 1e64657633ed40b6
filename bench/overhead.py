"""Benchmark: the cost of the training contract inside the example's training loop.

Baseline: the bare loop (``Trainer.train_step`` and nothing else). Candidate: the loop exactly
as ``rgt train`` runs it — step timing, real atomic checkpoints (written in the background, as
``rgt train`` does by default; ``--sync`` for synchronous ones), heartbeat file, SIGTERM/SIGUSR1
handlers installed — saving every ``--every-steps`` steps (50 by default; 0 = the Young/Daly
cadence at ``--mtbf-hours``). Two persistent trainers of the bundled example are advanced in
alternating blocks (order rotated, round 0 not counted); each block's time is paired with the
other's in the same round, and the median of the paired overheads is the figure
(``median_overhead`` in the JSON). Goal: <= 2 % slower.

    python bench/overhead.py [--blocks 15] [--steps 200] [--every-steps 50] [--sync]
                             [--mtbf-hours 6] [--json OUT]
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

    def __init__(self, trainer: Trainer, settings: Settings, directory: Path, mtbf_hours: float,
                 every_steps: int | None, background: bool):
        self.trainer = trainer
        self.store = CheckpointStore(directory, keep=2)
        self.cadence = Cadence(mtbf_hours, every_steps)
        status = RunStatus(directory, trainer.total_steps,
                           settings.checkpoint.heartbeat_seconds)
        logger = logging.getLogger("bench.overhead")
        self.hooks = LoopHooks(trainer, self.store, self.cadence, status, None, logger,
                               background)
        self.hooks.save()  # as rgt train does at step 0: a resume point and the first cost

    def block(self, steps: int) -> float:
        """Seconds for ``steps`` steps through ``Trainer.run`` with every hook."""
        started = time.perf_counter()
        with preemption_flag() as flag:
            self.trainer.run(self.cadence.due, self.hooks.save, lambda: bool(flag),
                             self.hooks.on_step, until=self.trainer.step + steps)
        return time.perf_counter() - started


def measure(args: argparse.Namespace, directory: Path) -> dict:
    """Alternate bare and instrumented blocks; return paired overheads and counts."""
    blocks, steps = args.blocks, args.steps
    epochs = 1 + (blocks + 1) * steps // 20
    bare, config = example_trainer(epochs)
    instrumented = InstrumentedLoop(example_trainer(epochs)[0], config, directory,
                                    args.mtbf_hours, args.every_steps or None, not args.sync)
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
    instrumented.store.close()
    instrumented.hooks.collect_write()
    costs = instrumented.hooks.costs()
    return {"median_overhead": statistics.median(overheads), "overheads": overheads,
            "bare": bare_times, "full": full_times, "interval": instrumented.cadence.interval(),
            "save_ms": 1000 * instrumented.cadence.save_seconds,
            "blocked_ms_per_save": 1000 * costs["blocked_seconds"] / costs["saves"],
            "write_ms_per_save": 1000 * costs["write_seconds"] / max(costs["written"], 1),
            "saves": costs["saves"], "mode": costs["mode"], "steps_per_block": steps}


def report(result: dict, args: argparse.Namespace) -> None:
    """Print the table and the verdict against the goal."""
    over = sorted(result["overheads"])
    steps = result["steps_per_block"]
    bare_rate = [steps / t for t in result["bare"]]
    full_rate = [steps / t for t in result["full"]]
    cadence = (f"a save every {args.every_steps} steps" if args.every_steps
               else f"Young/Daly at MTBF {args.mtbf_hours} h")
    print(f"training-loop overhead ({cadence}, {result['mode']} writes, {len(over)} paired "
          f"blocks of {steps} steps)")
    print(f"  bare loop          steps/s min/median/max: {min(bare_rate):.0f} / "
          f"{statistics.median(bare_rate):.0f} / {max(bare_rate):.0f}")
    print(f"  rgt train loop     steps/s min/median/max: {min(full_rate):.0f} / "
          f"{statistics.median(full_rate):.0f} / {max(full_rate):.0f}")
    print(f"  paired overhead    min/median/max: {100 * over[0]:+.1f}% / "
          f"{100 * statistics.median(over):+.1f}% / {100 * over[-1]:+.1f}%")
    print(f"  total-time ratio   {sum(result['full']) / sum(result['bare']):.3f}")
    print(f"  interval {result['interval']} steps; {result['saves']} saves, training blocked "
          f"{result['blocked_ms_per_save']:.2f} ms per save, written in "
          f"{result['write_ms_per_save']:.2f} ms")
    verdict = "met" if statistics.median(over) <= 0.02 else "NOT met"
    print(f"  goal: median overhead <= 2 %: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--every-steps", type=int, default=50,
                        help="save every N steps (0: Young/Daly from --mtbf-hours)")
    parser.add_argument("--mtbf-hours", type=float, default=6.0)
    parser.add_argument("--sync", action="store_true", help="synchronous checkpoint writes")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-") as scratch:
        result = measure(args, Path(scratch))
    report(result, args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
