"""Run a user's own training command (``job:`` in the config) as one planned run.

The command gets the environment of the training-job contract (``RGT_RUN_ID``, ``RGT_RUN_DIR``,
``RGT_CHECKPOINT_DIR``, the cadence and heartbeat settings, the run's identity record and
resolved config) and writes its run with the plain-loop API or an adapter. This wrapper
forwards SIGTERM/SIGUSR1 to it, keeps its output in ``<checkpoint dir>/job.log`` as well as on
stdout, and afterwards checks the sealed run against the contract: finished, and every
declared metric reported with its declared direction on its split (``test`` unless
declared otherwise).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from rgt.base.errors import ConfigError, DataError, RgtError
from rgt.base.files import read_json, write_json, write_text
from rgt.config import thaw
from rgt.plan.runplan import RunSpec
from rgt.plan.sealed import JOB_FILES as SEALED_JOB_FILES
from rgt.train.platform import DEFAULT_JOB_THREADS, thread_environment
from rgt.train.preemption import EXIT_PREEMPTED, SIGNALS
from rgt.train.sealing import is_sealed

LOG_NAME = "job.log"
# The script's own files ({out_dir}, RGT_OUT_DIR): per run, beside its checkpoints, never sealed
# (the plain-loop API's default for a run by hand is the same: rgt.train.plain_loop.OUT_DIR).
OUT_DIR = "out"


class JobFailed(RgtError):
    """The user's command failed (a code error: not a preemption)."""


def run_job(spec: RunSpec, runs_root: Path, checkpoints_root: Path,
            host_audit: dict | None = None, smoke_steps: int = 0) -> int:
    """Run the job of ``spec`` until it seals ``runs_root/<run-id>`` (exit 0), is preempted
    (75, checkpointed: rerun to resume) or fails (``JobFailed`` with its log's tail)."""
    run_dir, state_dir = runs_root / spec.run_id, checkpoints_root / spec.run_id
    if not smoke_steps and is_sealed(run_dir, spec.run_id, required=SEALED_JOB_FILES):
        print(f"[{spec.run_id}] already sealed in {run_dir}: nothing to do")
        return 0
    state_dir.mkdir(parents=True, exist_ok=True)
    env = job_environment(spec, run_dir, state_dir, host_audit, smoke_steps)
    code = _run_forwarding_signals(job_argv(spec, run_dir, state_dir), env,
                                   state_dir / LOG_NAME)
    if code == EXIT_PREEMPTED:
        return code
    if code != 0:
        raise JobFailed(f"run {spec.run_id}: `{spec.settings.job.command}` exited {code}; "
                        f"its last lines:\n{log_tail(state_dir / LOG_NAME)}",
                        "fix the error above; rerun resumes from the newest checkpoint")
    if not smoke_steps:
        check_sealed_run(spec, run_dir)
    return 0


def job_argv(spec: RunSpec, run_dir: Path, state_dir: Path) -> list[str]:
    """The command with its placeholders filled in, split like a shell would (no shell runs)."""
    job = spec.settings.job
    values = {"params": _Params(job.params), "seed": spec.seed, "run_id": spec.run_id,
              "run_dir": str(run_dir), "checkpoint_dir": str(state_dir),
              "out_dir": str(state_dir / OUT_DIR)}
    try:
        text = job.command.format(**values)
    except (KeyError, AttributeError, IndexError, ValueError) as error:
        raise ConfigError(f"job.command {job.command!r}: cannot fill in {error}",
                          "use {params.NAME} for a key of job.params, or {seed}, {run_id}, "
                          "{run_dir}, {checkpoint_dir}, {out_dir}") from None
    return [sys.executable if word == "python" else word for word in shlex.split(text)]


class _Params:
    """``{params.NAME}`` in a command: the job's params, a missing one named in the error."""

    def __init__(self, params):
        self._params = params

    def __getattr__(self, name: str):
        if name not in self._params:
            raise KeyError(f"params.{name} (job.params has {', '.join(self._params) or 'none'})")
        return self._params[name]


def job_environment(spec: RunSpec, run_dir: Path, state_dir: Path, host_audit: dict | None,
                    smoke_steps: int) -> dict[str, str]:
    """The contract's environment, with the run record and resolved config written beside the
    checkpoints for the job to seal its run with."""
    record, config = state_dir / "run_record.json", state_dir / "run_config.yaml"
    write_json(record, run_record_base(spec, host_audit))
    write_text(config, yaml.safe_dump(spec.config, sort_keys=True))
    checkpoint = spec.settings.checkpoint
    env = {**os.environ, "RGT_RUN_ID": spec.run_id, "RGT_RUN_DIR": str(run_dir.resolve()),
           "RGT_CHECKPOINT_DIR": str(state_dir.resolve()), "RGT_RUN_RECORD": str(record),
           "RGT_CONFIG": str(config), "RGT_SEED": str(spec.seed),
           "RGT_CHECKPOINT_KEEP": str(checkpoint.keep),
           "RGT_MTBF_HOURS": str(checkpoint.mtbf_hours),
           "RGT_HEARTBEAT_SECONDS": str(checkpoint.heartbeat_seconds),
           "RGT_OUT_DIR": str((state_dir / OUT_DIR).resolve()), "PYTHONUNBUFFERED": "1",
           # Fixed by the run, never inherited from the executor (Snakemake sets
           # OMP_NUM_THREADS=1 for a local job, a rented host sets nothing).
           **thread_environment(spec.settings.job.threads or DEFAULT_JOB_THREADS)}
    (state_dir / OUT_DIR).mkdir(exist_ok=True)
    if checkpoint.every_steps:
        env["RGT_EVERY_STEPS"] = str(checkpoint.every_steps)
    if smoke_steps:
        env["RGT_SMOKE_STEPS"] = str(smoke_steps)
    # The project root first on the path: the job may import its own package (mylab.…).
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    return env


def run_record_base(spec: RunSpec, host_audit: dict | None) -> dict:
    """The identity part of ``run.json`` (the job's seal adds what it ran)."""
    return {"exp_id": spec.exp_id, "variant": spec.variant, "seed": spec.seed,
            "baseline_variant": spec.baseline_variant,
            "variant_overrides": thaw(spec.variant_overrides),
            "config_digest": spec.config_digest, "code_sha256": spec.code_sha256,
            "data_sha256": spec.data_sha256, "split_sha256": spec.split_sha256,
            "job_command": spec.settings.job.command, "world_size": 1,
            "host_audit": host_audit}


def _run_forwarding_signals(argv: list[str], env: dict[str, str], log: Path) -> int:
    """Run ``argv``; its output goes to stdout and ``log``; SIGTERM/SIGUSR1 go to it."""
    try:
        child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, bufsize=1)
    except OSError as error:
        raise ConfigError(f"job.command: cannot start {argv[0]!r} ({error})",
                          "fix the command (it runs from the project root)") from None
    previous = {signum: signal.signal(signum, lambda s, _f: child.send_signal(s))
                for signum in SIGNALS}
    try:
        with open(log, "a", encoding="utf-8") as handle:
            for line in child.stdout:
                sys.stdout.write(line)
                handle.write(line)
                handle.flush()
        return child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def check_sealed_run(spec: RunSpec, run_dir: Path) -> None:
    """The run the command left honours the contract; a ``DataError`` names what is missing."""
    if not is_sealed(run_dir, spec.run_id, required=SEALED_JOB_FILES):
        raise DataError(f"run {spec.run_id}: the command exited 0 but sealed no run in "
                        f"{run_dir}", "end the training with run.finish(metrics) "
                                      "(docs/own-code.md)")
    entries = (read_json(run_dir / "results.json") or {}).get("metrics") or []
    reported = {(e.get("name"), e.get("split")): e.get("direction") for e in entries}
    for name, declared in spec.settings.job.metrics.items():
        split = declared.report_split
        direction = reported.get((name, split))
        if direction is None:
            raise DataError(f"run {spec.run_id}: results.json has no {name!r} on the "
                            f"{split!r} split, which job.metrics declares",
                            f"report it: run.finish({{{name!r}: {{'value': v, 'split': "
                            f"{split!r}, 'direction': {declared.direction!r}}}}}); a project "
                            f"with no test split declares job.metrics.{name}.split: val")
        if direction != declared.direction:
            raise DataError(f"run {spec.run_id}: {name!r} is reported with direction "
                            f"{direction!r} but declared {declared.direction!r}",
                            "make the two agree (job.metrics in the config, or run.finish)")


def log_tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of a log ("" when it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def smoke_job(spec: RunSpec) -> dict:
    """The smoke gate of a job: its command for ``job.smoke_steps`` steps in a scratch
    directory (one checkpoint saved and measured); the smoke record (``rgt/smoke/v1``)."""
    started = time.perf_counter()
    steps = spec.settings.job.smoke_steps
    with tempfile.TemporaryDirectory(prefix="rgt-smoke-") as scratch:
        root = Path(scratch)
        try:
            run_job(spec, root / "runs", root / "checkpoints", smoke_steps=steps)
        except JobFailed as error:
            raise JobFailed(f"smoke test of {spec.exp_id}/{spec.variant}: {error.message}",
                            "fix the error above; nothing was trained") from None
        seen = read_json(root / "checkpoints" / spec.run_id / "smoke.json")
    if not seen:
        raise JobFailed(f"smoke test of {spec.exp_id}/{spec.variant}: `{spec.settings.job.command}`"
                        f" exited 0 without reaching step {steps} through rgt.run()",
                        "train through the plain-loop API or an adapter (docs/own-code.md), "
                        "calling run.log(step, ...) every step")
    losses = [loss for loss in seen["losses"] if loss is not None]
    return {"schema": "rgt/smoke/v1", "smoke_id": spec.smoke_id, "exp_id": spec.exp_id,
            "variant": spec.variant, "ok": True, "losses": losses,
            "state": {"parameters": None, "parameter_bytes": 0,
                      "state_bytes": int(seen.get("checkpoint_bytes") or 0)},
            "seconds": time.perf_counter() - started, "probes": {}, "advisories": []}
