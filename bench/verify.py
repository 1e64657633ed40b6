"""Benchmark: ``rgt verify`` on synthetic runs — the time at 100 and 1,000 runs and its growth.

Each synthetic run is a complete, consistent run directory (``run.json``, ``results.json``,
``config.yaml``, ``predictions.parquet`` with 270 val and 270 test samples over 10 classes),
grouped in experiments of two variants x five seeds, so 1,000 runs give 100 experiments and 200
comparisons. Timed: the audit (load, every check, bootstrap CIs), then the report (JSON,
Markdown and one PNG per comparison), each best of ``--repeats``. Goal: the audit of 1,000 runs
under 10 s on this machine, growing near-linearly (time ratio 1,000/100 close to 10).

    python bench/verify.py [--sizes 100 1000] [--repeats 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rgt.verify.audit import audit_runs  # noqa: E402
from rgt.verify.report import write_report  # noqa: E402

CLASSES, PER_SPLIT, SEEDS = 10, 270, 5
GOAL_SECONDS = 10.0
SCHEMA = pa.schema([("split", pa.string()), ("sample_id", pa.int64()), ("label", pa.int64()),
                    ("prediction", pa.int64()), ("scores", pa.list_(pa.float32()))])


def split_rows(rng: np.random.Generator, accuracy: float) -> dict:
    """Balanced labels; each prediction right with probability ``accuracy``."""
    labels = np.arange(PER_SPLIT) % CLASSES
    wrong = (labels + rng.integers(1, CLASSES, PER_SPLIT)) % CLASSES
    predictions = np.where(rng.random(PER_SPLIT) < accuracy, labels, wrong)
    scores = np.full((PER_SPLIT, CLASSES), 0.3 / (CLASSES - 1), dtype=np.float32)
    scores[np.arange(PER_SPLIT), predictions] = 0.7
    return {"label": labels, "prediction": predictions, "scores": scores}


def metrics(split: str, rows: dict) -> list[dict]:
    """accuracy and loss of one split, exactly as re-derivation computes them."""
    picked = rows["scores"][np.arange(PER_SPLIT), rows["label"]].astype(np.float64)
    return [{"name": "accuracy", "split": split, "n": PER_SPLIT, "direction": "higher",
             "value": float(np.mean(rows["prediction"] == rows["label"]))},
            {"name": "loss", "split": split, "n": PER_SPLIT, "direction": "lower",
             "value": float(np.mean(-np.log(picked)))}]


def write_run(run_dir: Path, exp_id: str, variant: str, seed: int, rng) -> None:
    """One complete synthetic run directory."""
    run_dir.mkdir(parents=True)
    overrides = {"model": {"dropout": 0.3}} if variant == "dropout" else {}
    config = {"model": {"dropout": 0.3 if overrides else 0.0}, "train": {"lr": 0.003},
              "run": {"exp_id": exp_id, "variant": variant, "seed": seed}}
    splits = {s: split_rows(rng, 0.9 + (0.02 if overrides else 0)) for s in ("val", "test")}
    meta = {"schema": "rgt/run/v1", "run_id": run_dir.name, "exp_id": exp_id,
            "variant": variant, "seed": seed, "baseline_variant": "baseline",
            "variant_overrides": overrides, "status": "finished", "selected_step": 10}
    results = {"schema": "rgt/results/v1", "run_id": run_dir.name, "exp_id": exp_id,
               "variant": variant, "seed": seed,
               "metrics": [m for s, rows in splits.items() for m in metrics(s, rows)],
               "selection": {"metric": "accuracy", "split": "val", "step": 10}}
    (run_dir / "run.json").write_text(json.dumps(meta))
    (run_dir / "results.json").write_text(json.dumps(results))
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    columns = {"split": [], "sample_id": [], "label": [], "prediction": [], "scores": []}
    for split, rows in splits.items():
        columns["split"] += [split] * PER_SPLIT
        columns["sample_id"] += list(range(PER_SPLIT))
        columns["label"] += rows["label"].tolist()
        columns["prediction"] += rows["prediction"].tolist()
        columns["scores"] += rows["scores"].tolist()
    pq.write_table(pa.table(columns, schema=SCHEMA), run_dir / "predictions.parquet")


def make_runs(root: Path, count: int) -> Path:
    """``count`` runs in experiments of two variants x ``SEEDS`` seeds."""
    rng = np.random.default_rng(0)
    runs = root / f"runs-{count}"
    for index in range(count):
        exp, rest = divmod(index, 2 * SEEDS)
        variant, seed = ("baseline", "dropout")[rest // SEEDS], rest % SEEDS
        write_run(runs / f"{index:016x}", f"exp{exp:04d}", variant, seed, rng)
    return runs


def best_of(repeats: int, action) -> float:
    """The fastest of ``repeats`` timed calls of ``action``."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(root: Path, count: int, repeats: int) -> dict:
    """Audit and report times for ``count`` runs."""
    runs = make_runs(root, count)
    audit = audit_runs(runs)
    out = root / f"report-{count}"
    return {"runs": count, "comparisons": len(audit.comparisons),
            "findings": len(audit.findings),
            "audit_s": best_of(repeats, lambda: audit_runs(runs)),
            "report_s": best_of(repeats, lambda: write_report(audit, out / "report.json",
                                                              out / "report.md"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-verify-") as tmp:
        rows = [measure(Path(tmp), size, args.repeats) for size in args.sizes]
    print(f"rgt verify on synthetic runs (best of {args.repeats})")
    for row in rows:
        print(f"  {row['runs']:>5} runs  {row['comparisons']:>4} comparisons  audit "
              f"{row['audit_s']:7.2f} s ({1000 * row['audit_s'] / row['runs']:.2f} ms/run)  "
              f"report {row['report_s']:7.2f} s")
    first, last = rows[0], rows[-1]
    if last["runs"] != first["runs"]:
        growth = last["audit_s"] / first["audit_s"]
        print(f"  growth {first['runs']} -> {last['runs']} runs: x{growth:.1f} time for "
              f"x{last['runs'] / first['runs']:.0f} runs (linear = x"
              f"{last['runs'] / first['runs']:.0f})")
    verdict = "met" if last["audit_s"] < GOAL_SECONDS else "NOT met"
    print(f"  goal: audit of {last['runs']} runs < {GOAL_SECONDS:g} s: {verdict}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
