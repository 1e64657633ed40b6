"""The plain-loop API: every guarantee of ``rgt train`` for a training loop you wrote yourself.

    import rgt

    with rgt.run() as run:
        state = run.resume()                      # newest complete checkpoint, RNG restored
        step = state["step"] if state else 0
        ...                                       # rebuild model/optimizer from ``state``
        while step < total:
            loss = train_one_step(...)
            step += 1
            run.log(step, loss=loss)              # heartbeat, status, history, cadence
            if run.checkpoint_due(step):          # Young/Daly, or SIGTERM/SIGUSR1 arrived
                run.save(step, {"model": model.state_dict(), ..., "step": step})
        run.finish({"perplexity": {"value": ppl, "split": "test", "direction": "lower",
                                   "n": tokens}}, per_sample={"test": {"nll": nll}})

A training loop at a script's module level (most research scripts) needs no ``with`` block and
no re-indentation: ``run = rgt.start()`` before the loop, ``run.finish(...)`` after it, with the
same guarantees (``start``). ``resume(model=model, optimizer=optimizer)`` and
``save(step, model=model, optimizer=optimizer)`` carry objects with a ``state_dict`` by name.

``run.save`` after a preemption signal exits with 75 once the checkpoint is durable; rerunning
the same command resumes. Where things go comes from the environment rgt sets for a training
job (``RGT_RUN_ID``, ``RGT_RUN_DIR``, ``RGT_CHECKPOINT_DIR``), so the same script runs unchanged
locally, on a rented host, under Slurm and on Kubernetes; outside rgt, pass ``run_id=``.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import time
import warnings
from contextlib import ExitStack
from pathlib import Path

from rgt.base.errors import CheckpointError, RgtError
from rgt.base.files import write_json
from rgt.train.cadence import CADENCE_FILE, Cadence
from rgt.train.checkpoint import CheckpointStore, CheckpointWarning
from rgt.train.determinism import capture_rng, restore_rng
from rgt.train.plain_records import seal_plain_run
from rgt.train.platform import THREADS_ENV, fix_threads
from rgt.train.preemption import EXIT_PREEMPTED, preemption_flag
from rgt.train.progress import run_logger
from rgt.train.run_status import RunStatus
from rgt.train.writer_lock import writer_lock

ENV_RUN_ID, ENV_RUN_DIR, ENV_CHECKPOINT_DIR = "RGT_RUN_ID", "RGT_RUN_DIR", "RGT_CHECKPOINT_DIR"
ENV_TOTAL_STEPS, ENV_SMOKE_STEPS = "RGT_TOTAL_STEPS", "RGT_SMOKE_STEPS"
ENV_HEARTBEAT = "RGT_HEARTBEAT_SECONDS"
ENV_KEEP, ENV_MTBF, ENV_EVERY = "RGT_CHECKPOINT_KEEP", "RGT_MTBF_HOURS", "RGT_EVERY_STEPS"
ENV_OUT_DIR = "RGT_OUT_DIR"
OUT_DIR = "out"  # the script's own files, inside the run's checkpoint directory
SMOKE_RECORD = "smoke.json"
_started: PlainRun | None = None  # the run ``start()`` opened in this process


class SmokeDone(SystemExit):
    """Raised by ``log`` once a smoke test has run its steps: the script ends, exit 0."""

    def __init__(self) -> None:
        super().__init__(0)


def run(run_id: str | None = None, *, run_dir: str | Path | None = None,
        checkpoint_dir: str | Path | None = None, total_steps: int | None = None,
        keep: int = 2, mtbf_hours: float = 6.0, every_steps: int | None = None,
        heartbeat_seconds: float = 5.0) -> PlainRun:
    """A run of your own training loop; use it as a context manager (module docstring).

    The environment rgt sets for a training job wins over the arguments, which are for running
    the script by hand: ``run_dir`` defaults to ``runs/<run_id>``, ``checkpoint_dir`` to
    ``checkpoints/<run_id>``. ``total_steps`` feeds progress and ETA; ``mtbf_hours`` and
    ``every_steps`` set the checkpoint cadence as in the config's ``checkpoint:`` block.
    """
    report_rgt_errors_without_traceback()
    if os.environ.get(THREADS_ENV):  # the run's thread count (job.threads), set by rgt
        fix_threads(int(os.environ[THREADS_ENV]))
    run_id = os.environ.get(ENV_RUN_ID) or run_id
    if not run_id:
        raise CheckpointError("rgt.run() has no run id",
                              "run the script as an rgt training job (which sets RGT_RUN_ID), "
                              "or pass rgt.run(run_id='my-run') when running it by hand")
    places = _places(run_id, run_dir, checkpoint_dir)
    total = int(os.environ.get(ENV_TOTAL_STEPS) or total_steps or 0)
    heartbeat = float(os.environ.get(ENV_HEARTBEAT) or heartbeat_seconds)
    # A training job's checkpoint settings come from the config's `checkpoint:` block.
    keep = int(os.environ.get(ENV_KEEP) or keep)
    mtbf_hours = float(os.environ.get(ENV_MTBF) or mtbf_hours)
    every_steps = int(os.environ[ENV_EVERY]) if os.environ.get(ENV_EVERY) else every_steps
    cadence = Cadence(mtbf_hours, every_steps, places[1] / CADENCE_FILE)
    return PlainRun(run_id, *places, total, cadence, keep, heartbeat)


def start(run_id: str | None = None, **options) -> PlainRun:
    """``run(...)`` opened without a ``with`` block, for a loop at a script's module level::

        run = rgt.start(total_steps=max_iters)
        state = run.resume(model=model, optimizer=optimizer)
        ...                                   # the loop, as it was, with log/checkpoint_due/save
        run.finish({"loss": {"value": loss, "split": "val", "direction": "lower"}})

    The same guarantees as the ``with`` form: one writer, SIGTERM/SIGUSR1 checkpoint and exit
    75, the status recorded however the script ends (finished, preempted, failed with the
    uncaught error, or ended without ``finish``), the signal handlers and the writer lock
    released at ``finish`` or when the interpreter exits. One per process.
    """
    global _started
    if _started is not None and not _started.closed:
        raise CheckpointError(f"rgt.start() was already called in this process (run "
                              f"{_started.run_id})", "call rgt.start() once, before the loop, "
                                                     "and keep the run it returns")
    _started = run(run_id, **options).__enter__()
    atexit.register(_started.close_at_exit)
    return _started


def report_rgt_errors_without_traceback() -> None:
    """An ``RgtError`` escaping the user's script (a second writer, a bad metric) is printed as
    a message and a fix, as the CLI does (the script still exits 1); any other error keeps its
    traceback."""
    if getattr(sys.excepthook, "rgt_plain_loop", False):
        return
    previous = sys.excepthook

    def hook(kind, error, traceback):
        if _started is not None:  # recorded in its status when the interpreter exits
            _started.uncaught = error
        if isinstance(error, RgtError):
            print(f"error: {error.message}", file=sys.stderr)
            if error.fix:
                print(f"  fix: {error.fix}", file=sys.stderr)
            return
        previous(kind, error, traceback)

    hook.rgt_plain_loop = True
    sys.excepthook = hook


def _places(run_id: str, run_dir, checkpoint_dir) -> tuple[Path, Path]:
    chosen = []
    for variable, given, default in ((ENV_RUN_DIR, run_dir, f"runs/{run_id}"),
                                     (ENV_CHECKPOINT_DIR, checkpoint_dir,
                                      f"checkpoints/{run_id}")):
        from_env = os.environ.get(variable)
        if from_env and given and Path(given) != Path(from_env):
            warnings.warn(f"{variable}={from_env} set by rgt overrides {given}", stacklevel=3)
        chosen.append(Path(from_env or given or default))
    return chosen[0], chosen[1]


class PlainRun:
    """One run of a user's loop: resume, log, checkpoint when due, finish (module docstring)."""

    def __init__(self, run_id: str, run_dir: Path, checkpoint_dir: Path, total_steps: int,
                 cadence: Cadence, keep: int, heartbeat_seconds: float):
        self.run_id, self.run_dir, self.checkpoint_dir = run_id, run_dir, checkpoint_dir
        self.total_steps, self.cadence = total_steps, cadence
        self.store = CheckpointStore(checkpoint_dir, keep=keep)
        self.heartbeat_seconds = heartbeat_seconds
        self.smoke_steps = int(os.environ.get(ENV_SMOKE_STEPS) or 0)
        self.step, self.history, self.finished = 0, [], False
        self._last_step_at: float | None = None
        self._stack = ExitStack()
        self.status: RunStatus | None = None
        self.flag = None
        self.logger: logging.Logger | None = None
        self.uncaught: BaseException | None = None  # seen by the excepthook (``start`` form)
        self._raised: BaseException | None = None  # the exit rgt itself raised (75, smoke)
        self.closed = False

    def __enter__(self) -> PlainRun:
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        self._stack.enter_context(writer_lock(self.checkpoint_dir))
        self.logger = run_logger(self.run_id, self.checkpoint_dir / "train.log")
        self.flag = self._stack.enter_context(preemption_flag())
        self.status = RunStatus(self.checkpoint_dir, self.total_steps, self.heartbeat_seconds)
        self.status.set("running", self.step)
        return self

    def __exit__(self, kind, error, _traceback) -> bool:
        try:
            self._record_exit(kind, error)
        finally:
            self._stack.close()
            self.closed = True
        return False

    def close_at_exit(self) -> None:
        """The end of a ``start()``-ed run when the interpreter exits without ``finish``:
        record how it ended (the uncaught error, or rgt's own exit), release everything."""
        if self.closed:
            return
        error = self.uncaught or self._raised
        self.__exit__(type(error) if error else None, error, None)

    @property
    def out_dir(self) -> Path:
        """A directory of this run for the script's own files (its own ``ckpt.pt``, samples):
        ``RGT_OUT_DIR`` in a training job (``{out_dir}`` in ``job.command``), else
        ``<checkpoint dir>/out``. Never part of the sealed run; two runs never share it."""
        path = Path(os.environ.get(ENV_OUT_DIR) or self.checkpoint_dir / OUT_DIR)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _record_exit(self, kind, error) -> None:
        if kind is None and not self.finished:
            self.status.set("failed", self.step, 1, "the loop ended without run.finish()")
        elif isinstance(error, SmokeDone):
            self.status.set("finished", self.step, 0, "smoke test")
        elif isinstance(error, SystemExit) and error.code == EXIT_PREEMPTED:
            self.status.set("preempted", self.step, EXIT_PREEMPTED)
        elif kind is not None:
            self.status.set("failed", self.step, 1, f"{kind.__name__}: {error}")

    @property
    def preempted(self) -> bool:
        """Whether SIGTERM or SIGUSR1 arrived (checkpoint now; ``save`` then exits 75)."""
        return bool(self.flag)

    def resume(self, **objects) -> dict | None:
        """The state of the newest complete checkpoint (RNG restored), or None on a first
        launch. Corrupt or torn checkpoints are skipped with a warning, never deleted.

        Objects given by name (``model=model, optimizer=optimizer``: anything with
        ``load_state_dict``) get back the state ``save`` stored under that name."""
        with warnings.catch_warnings(record=True) as skipped:
            warnings.simplefilter("always", CheckpointWarning)
            loaded = self.store.load_latest()
        for warning in skipped:
            self.logger.warning("%s", warning.message)
        if loaded is None:
            return None
        state, info = loaded
        rgt_state = state.get("rgt") or {}
        restore_rng(rgt_state["rng"])
        self.step, self.history = int(rgt_state["step"]), list(rgt_state.get("history", []))
        self.cadence.record_save(self.step, float(rgt_state.get("save_seconds", 0.0)))
        self.logger.info("resumed %s from %s (step %d)", self.run_id, info.path.name, self.step)
        _load_into(state["user"], objects, info.path.name)
        return state["user"]

    def log(self, step: int, **scalars: float) -> None:
        """Record one step's scalars (kept in the run's history), beat the heartbeat, and time
        the step for the cadence. In a smoke test, ends the script after its steps."""
        now = time.perf_counter()
        if self._last_step_at is not None and step > self.step:
            self.cadence.record_step((now - self._last_step_at) / (step - self.step))
        self._last_step_at, self.step = now, step
        row = {"step": step, **{k: float(v) for k, v in scalars.items()}}
        self.history.append(row)
        self.status.beat(step, self._latest_loss())
        if self.smoke_steps and step > self.smoke_steps:
            self._end_smoke(None)  # the loop never saved: no checkpoint to measure

    def _latest_loss(self) -> float:
        """The newest logged ``loss`` for the heartbeat: a row that logs only other scalars (an
        evaluation, a learning rate) must not blank the loss `rgt watch` shows."""
        return next((row["loss"] for row in reversed(self.history) if "loss" in row),
                    float("nan"))

    def checkpoint_due(self, step: int) -> bool:
        """True when the cadence says so, or when a preemption signal arrived (and at the last
        step of a smoke test, which measures one save)."""
        if self.smoke_steps and step >= self.smoke_steps:
            return True
        return self.preempted or self.cadence.due(step)

    def save(self, step: int, state: dict | None = None, **objects) -> None:
        """Checkpoint ``state`` and the ``state_dict()`` of each object given by name
        (``model=model, optimizer=optimizer``) with the RNG and history atomically; after a
        preemption signal, exit 75 once it is durable."""
        state = {**(state or {}), **{name: obj.state_dict() for name, obj in objects.items()}}
        started = time.perf_counter()
        rgt_state = {"step": step, "rng": capture_rng(), "history": self.history,
                     "save_seconds": self.cadence.save_seconds}
        info = self.store.save(step, {"user": state, "rgt": rgt_state})
        self.cadence.record_save(step, time.perf_counter() - started)
        if self.smoke_steps and step >= self.smoke_steps:
            self._end_smoke(info.bytes)
        self.status.beat(step, self._latest_loss(), force=True)
        if self.preempted:
            self.logger.info("received %s: checkpoint of step %d saved; rerun to resume",
                        self.flag.signal_name, step)
            self._raised = SystemExit(EXIT_PREEMPTED)
            raise self._raised

    def _end_smoke(self, checkpoint_bytes: int | None) -> None:
        """Record what the smoke test saw (losses, one checkpoint's size) and end the script."""
        write_json(self.checkpoint_dir / SMOKE_RECORD, {
            "steps": self.step, "losses": [row.get("loss") for row in self.history],
            "checkpoint_bytes": checkpoint_bytes, "save_seconds": self.cadence.save_seconds})
        self._raised = SmokeDone()
        raise self._raised

    def finish(self, metrics: dict, per_sample: dict | None = None,
               weights: dict | None = None) -> Path:
        """Seal the run: ``results.json`` from ``metrics`` ({name: {value, split, direction,
        n}}), ``train.csv`` from the logged history, ``predictions.parquet`` from
        ``per_sample`` ({split: {column: values}}), ``model.pt`` from ``weights``; ``run.json``
        last. Returns the run directory."""
        seal_plain_run(self.run_dir, self.run_id, metrics, self.history, per_sample, weights,
                       attempts=self.status.attempts, steps=self.step)
        self.finished = True
        self.status.set("finished", self.step, 0)
        if self is _started:  # the ``start`` form has no ``with`` block to close it
            self.__exit__(None, None, None)
        return self.run_dir


def _load_into(state: dict, objects: dict, checkpoint: str) -> None:
    """``obj.load_state_dict(state[name])`` for each named object; a name the checkpoint does
    not hold is an error naming what it holds."""
    for name, obj in objects.items():
        if name not in state:
            raise CheckpointError(f"run.resume({name}=...): checkpoint {checkpoint} holds no "
                                  f"{name!r} (it holds {', '.join(map(repr, state)) or 'nothing'})",
                                  f"save it under that name: run.save(step, {name}={name})")
        obj.load_state_dict(state[name])
