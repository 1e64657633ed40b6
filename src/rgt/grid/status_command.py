"""``rgt status``: every run of the plan (and any other sealed run) with its state and metrics.

States are computed from files, never from log lines: ``finished`` (a sealed run whose files
verify), ``damaged`` (a run.json that is torn, or a sealed file missing or of another size),
``running`` (status.json says so and its pid is alive), ``failed`` (a recorded failure,
preemption, or a vanished process — the detail says which and whether it resumes), ``planned``.
A finished run that the project's DVC share (``runs.dvc``) does not hold says so: it lives only
on this machine until ``make share``.
Each run also shows its newest complete checkpoint on this machine (its own, or a mirror of a
host's) and how old it is; hosts are never contacted (``rgt reconcile-grid`` asks them).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from rgt.base.clock import parse_time
from rgt.base.files import read_json
from rgt.base.processes import pid_alive
from rgt.plan.sealed import seal_problem

if TYPE_CHECKING:  # the config's types; importing pydantic is for handlers, not --help
    from rgt.config import Config


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``status`` verb."""
    parser = subparsers.add_parser("status", help="list runs with their state and metrics")
    parser.add_argument("--config", default="config/config.yaml", help="config file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run_status)


def run_state(run_dir: Path, state_dir: Path) -> tuple[str, str]:
    """(state, detail) of one run from its sealed record and its durable status files."""
    if (run_dir / "run.json").exists():
        problem = seal_problem(run_dir, run_dir.name, required=None)
        if problem is None:
            record = read_json(run_dir / "run.json") or {}
            return "finished", (f"{record.get('steps')} steps, {record.get('attempts')} "
                                "attempt(s)")
        return "damaged", (f"{problem}; rerun `rgt train --run-id {run_dir.name}` to seal it "
                           "again from its checkpoints (or move it aside and `rgt restore` "
                           "the shared copy)")
    status = read_json(state_dir / "status.json")
    if not status:
        return "planned", ""
    progress = f"step {status['step']}/{status['total_steps']}"
    if status["state"] == "running":
        if _alive(status):
            return "running", progress
        return "failed", f"process {status['pid']} vanished at {progress}; rerun to resume"
    if status["state"] == "preempted":
        return "failed", f"preempted at {progress}; rerun to resume"
    if status["state"] == "failed":
        return "failed", f"{status.get('error', '')} at {progress}"
    return status["state"], progress


def _alive(status: dict) -> bool:
    if status.get("host") != socket.gethostname():
        return True  # another machine's process: trust its record (a watcher checks it there)
    return pid_alive(status.get("pid"))


def headline_metrics(run_dir: Path) -> dict:
    """``{"test accuracy": 0.97, ...}`` from results.json (empty when not evaluated)."""
    results = read_json(run_dir / "results.json") or {}
    return {f"{m['split']} {m['name']}": m["value"] for m in results.get("metrics", [])
            if m["split"] == "test"}


def collect(config: Config) -> list[dict]:
    """One row per planned run, then per sealed (or damaged) run that is not in the plan."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.plan.runplan import plan_runs

    runs_root, states_root = Path(config.paths.runs), Path(config.paths.checkpoints)
    rows, planned = [], set()
    for spec in plan_runs(config):
        planned.add(spec.run_id)
        rows.append(_row(spec.run_id, spec.exp_id, spec.variant, spec.seed, runs_root,
                         states_root, in_plan=True))
    for run_json in sorted(runs_root.glob("*/run.json")):
        if run_json.parent.name not in planned:
            record = read_json(run_json) or {}
            rows.append(_row(run_json.parent.name, record.get("exp_id"),
                             record.get("variant"), record.get("seed"), runs_root,
                             states_root, in_plan=False))
    return _with_shared(rows)


def _with_shared(rows: list[dict]) -> list[dict]:
    """Each row's ``shared``: whether ``runs.dvc`` holds the run (None when the project
    shares no runs through DVC, or its share cannot be read: said once)."""
    # lazy (--help imports every verb): DVC loads only where runs are shared
    from rgt.deliver.share import ShareUnreachable, shared_run_ids

    try:
        shared = shared_run_ids(Path.cwd())
    except ShareUnreachable as error:
        print(f"warning: {error.message}", file=sys.stderr)
        shared = None
    for row in rows:
        row["shared"] = None if shared is None else row["run_id"] in shared
    return rows


def newest_checkpoint(state_dir: Path, now: datetime | None = None) -> dict | None:
    """The run's newest complete local checkpoint: ``{"where": "local" | "mirror", "host",
    "step", "saved_at", "age_seconds", "text"}``; None when it has none."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.grid.expected import checkpoint_text
    from rgt.grid.expected import newest_checkpoint as newest

    found = newest(state_dir)
    if found is None:
        return None
    now = now or datetime.now(timezone.utc)
    try:
        age = max(0.0, (now - parse_time(found.saved_at)).total_seconds())
    except (TypeError, ValueError):
        age = None
    return {"where": "mirror" if found.mirror else "local",
            "host": found.mirror.host if found.mirror else None, "step": found.step,
            "saved_at": found.saved_at, "age_seconds": age,
            "text": checkpoint_text(found, now)}


def _row(run_id, exp_id, variant, seed, runs_root: Path, states_root: Path, in_plan: bool):
    state, detail = run_state(runs_root / run_id, states_root / run_id)
    return {"run_id": run_id, "exp_id": exp_id, "variant": variant, "seed": seed,
            "state": state, "detail": detail, "in_plan": in_plan,
            "metrics": headline_metrics(runs_root / run_id),
            "checkpoint": newest_checkpoint(states_root / run_id)}


def run_status(args: argparse.Namespace) -> int:
    """Handler of ``rgt status``."""
    # lazy (--help imports every verb): loads pydantic, yaml
    from rgt.config import load_config

    rows = collect(load_config(args.config))
    if args.json:
        print(json.dumps(rows, indent=2, sort_keys=True))
    else:
        _print_table(rows)
    return 0


def _print_table(rows: list[dict]) -> None:
    # lazy (--help imports every verb): loads rich
    from rich.console import Console
    from rich.table import Table

    colours = {"finished": "green", "running": "cyan", "failed": "red", "damaged": "red",
               "planned": "dim"}
    table = Table(title="runs")
    for column in ("run id", "experiment", "variant", "seed", "state", "test metrics",
                   "newest checkpoint", "detail"):
        table.add_column(column)
    for row in rows:
        metrics = ", ".join(f"{k.split()[1]} {v:.4f}" for k, v in sorted(row["metrics"].items()))
        state = f"[{colours.get(row['state'], 'white')}]{row['state']}[/]"
        detail = row["detail"] + ("" if row["in_plan"] else " (not in the current plan)")
        if row["state"] == "finished" and row["shared"] is False:
            detail += "; not shared yet: only here until `make share`"
        checkpoint = (row["checkpoint"] or {}).get("text", "")
        table.add_row(row["run_id"], str(row["exp_id"]), str(row["variant"]), str(row["seed"]),
                      state, metrics, checkpoint, detail)
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and pipes: never squeeze run ids into ellipses
    console.print(table)
