"""Benchmark: rgt's training loop vs a plain PyTorch loop of the same model, data and optimiser.

    python bench/gpu_loop.py [--device auto] [--channels 16 128] [--blocks 9] [--steps 200]
                             [--batch-size 64] [--samples 16384] [--precision fp32] [--json OUT]

Candidate: ``Trainer.run`` with the hooks of ``rgt train`` (step timing, cadence, heartbeat),
no checkpoint due (their cost is ``bench/overhead.py``'s). Baseline: a plain loop written the
usual way — the training split on the device, ``randperm`` each epoch, forward, cross-entropy,
``zero_grad``/``backward``/``step``, the scheduler, and a validation pass at each epoch end as
rgt does. Both train the bundled example's model (``small_cnn`` at each ``--channels``) with
its optimiser and cosine schedule on the same synthetic 1x8x8 data (the example's shape, no
download), in the same process and deterministic mode. Two persistent loops are advanced in
alternating blocks of ``--steps`` steps (order rotated, round 0 not counted; on CUDA each block
ends with a synchronize); the figure is the median of the paired throughput ratios rgt / plain
(``ratio_vs_plain_loop`` in the JSON: the lowest median over the channel widths). CUDA when
present, else the CPU. Goal on a GPU: >= 0.97. ``--precision bf16`` runs both loops under bf16
autocast (rgt through ``train.precision``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rgt.config import Settings, load_config  # noqa: E402
from rgt.data import Dataset, make_split  # noqa: E402
from rgt.models import build_model  # noqa: E402
from rgt.plan.runplan import plan_runs  # noqa: E402
from rgt.train.cadence import Cadence  # noqa: E402
from rgt.train.checkpoint import CheckpointStore  # noqa: E402
from rgt.train.determinism import configure  # noqa: E402
from rgt.train.run import LoopHooks  # noqa: E402
from rgt.train.run_status import RunStatus  # noqa: E402
from rgt.train.trainer import Trainer, resolve_device, split_tensors  # noqa: E402

GOAL = 0.97


def synthetic(samples: int, classes: int = 10, seed: int = 0) -> Dataset:
    """Digits-shaped data (1x8x8, 10 classes): class centres plus noise."""
    rng = np.random.default_rng(seed)
    labels = np.arange(samples) % classes
    inputs = rng.normal(size=(classes, 1, 8, 8))[labels] + rng.normal(size=(samples, 1, 8, 8))
    return Dataset("synthetic", inputs.astype(np.float32), labels.astype(np.int64),
                   np.arange(samples, dtype=np.int64), classes)


def bench_settings(channels: int, batch_size: int, device: str, epochs: int,
                   precision: str = "fp32") -> Settings:
    """The bundled example's first run, with this width, batch, device, length and
    precision."""
    settings = plan_runs(load_config(ROOT / "config" / "config.yaml"))[0].settings
    return settings.model_copy(update={
        "model": settings.model.model_copy(update={"channels": channels, "dropout": 0.0}),
        "train": settings.train.model_copy(update={"batch_size": batch_size, "device": device,
                                                   "epochs": epochs, "precision": precision})})


class RgtLoop:
    """``Trainer.run`` with ``rgt train``'s step hooks; no checkpoint falls due."""

    def __init__(self, settings: Settings, dataset: Dataset, split: dict, directory: Path):
        self.trainer = Trainer(settings, dataset, split, seed=0)
        status = RunStatus(directory, self.trainer.total_steps, 5.0)
        self.hooks = LoopHooks(self.trainer, CheckpointStore(directory), Cadence(6.0), status,
                               None, logging.getLogger("bench.gpu_loop"))

    def advance(self, steps: int) -> None:
        self.trainer.run(lambda _step: False, self.hooks.save, lambda: False,
                         self.hooks.on_step, until=self.trainer.step + steps)


class PlainLoop:
    """The same model, data, optimiser and schedule in a loop written the plain way."""

    def __init__(self, settings: Settings, dataset: Dataset, split: dict, device: torch.device):
        train_x, train_y = split_tensors(dataset, split["train"])
        self.val = split_tensors(dataset, split["val"])
        self.x, self.y, self.device = train_x.to(device), train_y.to(device), device
        torch.manual_seed(0)
        self.model = build_model(settings.model, dataset.input_shape,
                                 dataset.num_classes).to(device)
        train = settings.train
        self.batch = train.batch_size
        self.per_epoch = math.ceil(len(self.y) / self.batch)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=train.lr,
                                          weight_decay=train.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, train.epochs * self.per_epoch)
        self.index, self.order = 0, torch.randperm(len(self.y), device=device)
        dtype = {"bf16": torch.bfloat16}.get(train.precision)
        self.autocast = (lambda: torch.autocast(device.type, dtype=dtype)) if dtype else (
            contextlib.nullcontext)

    def advance(self, steps: int) -> None:
        for _ in range(steps):
            rows = self.order[self.index * self.batch:(self.index + 1) * self.batch]
            with self.autocast():
                logits = self.model(self.x[rows])
            loss = F.cross_entropy(logits.float(), self.y[rows])
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.index += 1
            if self.index == self.per_epoch:
                self.validate()
                self.index, self.order = 0, torch.randperm(len(self.y), device=self.device)

    @torch.no_grad()
    def validate(self) -> tuple[float, float]:
        self.model.eval()
        inputs, labels = self.val
        logits = torch.cat([self.model(inputs[i:i + 512].to(self.device)).cpu()
                            for i in range(0, len(labels), 512)])
        self.model.train()
        accuracy = (logits.argmax(dim=1) == labels).double().mean().item()
        return F.cross_entropy(logits, labels).item(), accuracy


def timed_block(loop, steps: int, device: torch.device) -> float:
    _synchronize(device)
    started = time.perf_counter()
    loop.advance(steps)
    _synchronize(device)
    return time.perf_counter() - started


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure(channels: int, args: argparse.Namespace, directory: Path) -> dict:
    """Alternate the two loops at one width; paired throughput ratios rgt / plain."""
    device = resolve_device(args.device)
    dataset = synthetic(args.samples)
    split = make_split(dataset, bench_settings(channels, args.batch_size, "cpu", 1).data.split)
    per_epoch = math.ceil(len(split["train"]) / args.batch_size)
    epochs = 2 + (args.blocks + 1) * args.steps // per_epoch
    settings = bench_settings(channels, args.batch_size, device.type, epochs, args.precision)
    loops = {"rgt": RgtLoop(settings, dataset, split, directory),
             "plain": PlainLoop(settings, dataset, split, device)}
    ratios, seconds = [], {"rgt": [], "plain": []}
    for round_ in range(args.blocks + 1):
        order = ["rgt", "plain"] if round_ % 2 == 0 else ["plain", "rgt"]
        times = {name: timed_block(loops[name], args.steps, device) for name in order}
        if round_ == 0:
            continue  # warm-up: kernels chosen, caches filled
        ratios.append(times["plain"] / times["rgt"])
        for name, value in times.items():
            seconds[name].append(value)
    return {"channels": channels, "device": str(device), "median": statistics.median(ratios),
            "min": min(ratios), "max": max(ratios), "ratios": ratios,
            "steps_per_s": {name: statistics.median(args.steps / t for t in times)
                            for name, times in seconds.items()}}


def report(results: list[dict], args: argparse.Namespace) -> float:
    print(f"rgt training loop vs plain PyTorch loop ({results[0]['device']}, {args.precision}, "
          f"batch {args.batch_size}, {args.blocks} paired blocks of {args.steps} steps)")
    print(f"{'channels':>8} {'rgt steps/s':>12} {'plain steps/s':>14} {'ratio min':>10} "
          f"{'median':>8} {'max':>8}")
    for r in results:
        print(f"{r['channels']:>8} {r['steps_per_s']['rgt']:>12.0f} "
              f"{r['steps_per_s']['plain']:>14.0f} {r['min']:>10.3f} {r['median']:>8.3f} "
              f"{r['max']:>8.3f}")
    worst = min(r["median"] for r in results)
    verdict = "met" if worst >= GOAL else "not met"
    print(f"ratio_vs_plain_loop (lowest median) {worst:.3f}; goal >= {GOAL} on a GPU: {verdict}")
    return worst


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    parser.add_argument("--channels", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--blocks", type=int, default=9)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--samples", type=int, default=16384)
    parser.add_argument("--precision", default="fp32", choices=["fp32", "bf16"],
                        help="both loops in this precision (bf16: autocast)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    configure(bench_settings(16, args.batch_size, args.device, 1).train.threads)
    with tempfile.TemporaryDirectory(prefix="rgt-bench-gpu-loop-") as scratch:
        results = [measure(c, args, Path(scratch) / str(c)) for c in args.channels]
    worst = report(results, args)
    figures = {"ratio_vs_plain_loop": worst, "goal": GOAL, "torch": torch.__version__,
               "precision": args.precision,
               "configs": {str(r["channels"]): r for r in results}}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return figures


if __name__ == "__main__":
    main()
