"""``rgt train`` and ``rgt smoke``: the training verbs called by rules/train.smk."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.base.files import write_json
from rgt.plan.sealed import BUILT_IN_FILES, JOB_FILES, is_sealed
from rgt.train.writer_lock import RUN_LOCK, writer_lock


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``train`` and ``smoke`` verbs."""
    train = subparsers.add_parser(
        "train", help="train (or resume) one planned run and seal runs/<run-id>/",
        description="Train one run of the plan. Always resumes from the newest complete "
                    "checkpoint; exits 75 after checkpointing on SIGTERM/SIGUSR1.")
    train.add_argument("--config", default="config/config.yaml", help="config file")
    train.add_argument("--run-id", required=True, help="a run id from `rgt plan`")
    train.add_argument("--host-audit", help="the phase-0 audit of the host (JSON), sealed into "
                                            "run.json (the executor passes it)")
    train.add_argument("--probes", action="store_true",
                       help="run the run-time probes on the first batch of a fresh run and write "
                            "checkpoints/<run-id>/probes.json (same as RGT_PROBES=1; results "
                            "are unchanged)")
    train.add_argument("--attach", action="store_true",
                       help="when another live process is training this run (a launch that "
                            "outlived the Snakemake that started it), follow it until it ends "
                            "instead of refusing; then nothing is left to do, or the run "
                            "resumes (the train rule passes it)")
    train.add_argument("--sync-checkpoints", action="store_true",
                       help="write each checkpoint before training goes on (same as "
                            "RGT_SYNC_CHECKPOINTS=1); by default the state is copied to host "
                            "memory at the step boundary and written in the background")
    train.set_defaults(func=run_train)
    smoke = subparsers.add_parser(
        "smoke", help="CPU smoke gate: 2 optimizer steps of a variant, before training")
    smoke.add_argument("--config", default="config/config.yaml", help="config file")
    smoke.add_argument("--smoke-id", required=True, help="a smoke id from `rgt plan`")
    smoke.add_argument("--out", required=True, help="where to write the smoke record (JSON)")
    smoke.set_defaults(func=run_smoke)


def run_train(args: argparse.Namespace) -> int:
    """Handler of ``rgt train``."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.train.distributed import reports_dir_from_env, run_worker, world_from_env

    if args.probes:  # through the environment, so torchrun's workers see it too
        os.environ["RGT_PROBES"] = "1"
    if args.sync_checkpoints:
        os.environ["RGT_SYNC_CHECKPOINTS"] = "1"
    world = world_from_env()
    if world.distributed:  # a worker started by torch's launcher (see _launch)
        return run_worker(world, reports_dir_from_env(), lambda: _train(args, world))
    return _train(args, world)


def _train(args: argparse.Namespace, world) -> int:
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.config import load_config
    from rgt.plan.runplan import find_run

    config = load_config(args.config)
    spec = find_run(config, args.run_id)
    runs, checkpoints = Path(config.paths.runs), Path(config.paths.checkpoints)
    host_audit = _read_host_audit(args.host_audit) if args.host_audit else None
    if world.distributed:  # a worker of a launch: the launcher holds the run's lock
        return _dispatch(args, world, spec, runs, checkpoints, host_audit)
    required = JOB_FILES if spec.settings.job is not None else BUILT_IN_FILES
    if is_sealed(runs / spec.run_id, spec.run_id, required):  # final: not even a lock taken
        print(f"[{spec.run_id}] already sealed in {runs / spec.run_id}: nothing to do")
        return 0
    with writer_lock(checkpoints / spec.run_id, RUN_LOCK, attach=args.attach):
        return _dispatch(args, world, spec, runs, checkpoints, host_audit)


def _dispatch(args: argparse.Namespace, world, spec, runs: Path, checkpoints: Path,
              host_audit: dict | None) -> int:
    """Train ``spec`` the way its settings say: your own command, a multi-process launch, or
    the built-in trainer in this process."""
    if spec.settings.job is not None:
        # lazy (--help imports every verb): loads pydantic, yaml
        from rgt.train.job import run_job

        return run_job(spec, runs, checkpoints, host_audit)
    train = spec.settings.train
    if not world.distributed and train.processes > 1:
        return _launch(args, spec, runs, checkpoints)  # the launcher never imports torch
    # lazy (--help imports every verb): loads numpy, pydantic, rich, torch, yaml
    from rgt.train.distributed import check_world, init_process_group
    from rgt.train.run import train_run
    from rgt.train.trainer import resolve_device

    if world.distributed:
        check_world(world, train.processes, spec.run_id)
        init_process_group(world, train.process_group_timeout_s,
                           resolve_device(train.device, world))
    return train_run(spec, runs, checkpoints, host_audit, world)


def _launch(args: argparse.Namespace, spec, runs: Path, checkpoints: Path) -> int:
    """Start one worker per ``train.processes`` with torch's launcher and watch them."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.train.launcher import launch, launch_command

    if is_sealed(runs / spec.run_id, spec.run_id):
        print(f"[{spec.run_id}] already sealed in {runs / spec.run_id}: nothing to do")
        return 0
    train = spec.settings.train
    print(f"[{spec.run_id}] launching {train.processes} training processes "
          f"(effective batch {train.batch_size * train.processes})", flush=True)
    command = launch_command(args.config, spec.run_id, train.processes, args.host_audit)
    return launch(command, checkpoints / spec.run_id, train.processes,
                  train.process_group_timeout_s, train.threads)


def _read_host_audit(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ConfigError(f"--host-audit {path}: not a readable JSON file ({error})",
                          "pass the audit file `rgt up` or the executor wrote") from None


def run_smoke(args: argparse.Namespace) -> int:
    """Handler of ``rgt smoke``."""
    # lazy (--help imports every verb): loads numpy, pydantic, rich, torch, yaml
    from rgt.config import load_config
    from rgt.plan.runplan import plan_runs

    specs = [spec for spec in plan_runs(load_config(args.config))
             if spec.smoke_id == args.smoke_id]
    if not specs:
        raise ConfigError(f"smoke id {args.smoke_id} is not in the plan of {args.config}",
                          "run `rgt plan` to list the current smoke ids")
    if specs[0].settings.job is not None:
        from rgt.train.job import smoke_job  # lazy: the built-in smoke test loads torch

        record = smoke_job(specs[0])
    else:
        from rgt.train.smoke import smoke_test

        record = smoke_test(specs[0])
    write_json(args.out, record)
    print(f"smoke ok: {specs[0].exp_id}/{specs[0].variant} losses {record['losses']}")
    return 0
