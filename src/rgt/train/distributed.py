"""Multi-process (DDP) training, worker side: the world, its collectives, and rank reports.

A worker is a process started by torch's launcher (``torch.distributed.run``), which sets
``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK``. Every rank trains the same model on its shard of
each global batch; gradients are all-reduced by ``DistributedDataParallel``. Rank 0 alone
writes checkpoints, status and the sealed run. Decisions that must be the same on every rank
(stop at this step? save at this step?) are agreed with one small all-reduce per step.

Each rank writes ``<state dir>/ranks/rank-N.json`` when it starts (with its pid) and when it
ends (``finished`` / ``preempted`` / ``failed`` and the error), so the launcher can name the
rank that died, failed or hung (``rgt.train.launcher``).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rgt.base.errors import ConfigError
from rgt.base.files import write_json
from rgt.train.preemption import EXIT_PREEMPTED

if TYPE_CHECKING:  # torch is imported where used: the launcher process never needs it
    import torch

RANKS_DIR = "ranks"
REPORTS_ENV = "RGT_RANK_REPORTS"  # the launcher's directory for rank reports


@dataclass(frozen=True)
class World:
    """This process's place among the training processes (a single process by default)."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        """True when more than one process trains."""
        return self.size > 1

    @property
    def is_main(self) -> bool:
        """Rank 0: the only rank with side effects (checkpoints, status, sealing)."""
        return self.rank == 0

    def agree(self, stop: bool, save_due: bool) -> tuple[bool, bool]:
        """(stop, save) the same on every rank: any rank's stop request, rank 0's cadence."""
        if not self.distributed:
            return stop, save_due
        import torch  # deferred: the launcher imports this module, never torch
        import torch.distributed as dist

        flags = torch.tensor([float(stop), float(save_due and self.is_main)],
                             device=collective_device(self))
        dist.all_reduce(flags, op=dist.ReduceOp.MAX)
        return bool(flags[0].item()), bool(flags[1].item())

    def sum(self, value: torch.Tensor) -> torch.Tensor:
        """The sum of a scalar over the ranks as a one-element tensor, without a host sync
        (reading it is the caller's choice); ``value`` itself for one process."""
        if not self.distributed:
            return value.detach().reshape(1)
        import torch.distributed as dist

        total = value.detach().reshape(1).to(collective_device(self), copy=True)
        dist.all_reduce(total)
        return total

    def gather(self, obj) -> list:
        """``obj`` of every rank, in rank order (on every rank)."""
        if not self.distributed:
            return [obj]
        import torch.distributed as dist

        gathered: list = [None] * self.size
        dist.all_gather_object(gathered, obj)
        return gathered

    def broadcast(self, value: int) -> int:
        """Rank 0's integer, on every rank."""
        if not self.distributed:
            return value
        import torch  # deferred: the launcher imports this module, never torch
        import torch.distributed as dist

        box = torch.tensor([value], dtype=torch.int64, device=collective_device(self))
        dist.broadcast(box, src=0)
        return int(box.item())

    def wrap(self, model: torch.nn.Module, device: torch.device) -> torch.nn.Module:
        """The module to train with: DDP around ``model`` when distributed, else ``model``."""
        if not self.distributed:
            return model
        from torch.nn.parallel import DistributedDataParallel

        ids = [device.index] if device.type == "cuda" else None
        return DistributedDataParallel(model, device_ids=ids)


SINGLE = World()


def world_from_env(environ: dict | None = None) -> World:
    """The world torch's launcher describes in the environment (a single process if none)."""
    env = os.environ if environ is None else environ
    if "WORLD_SIZE" not in env or "RANK" not in env:
        return SINGLE
    return World(int(env["RANK"]), int(env["WORLD_SIZE"]), int(env.get("LOCAL_RANK", 0)))


def collective_device(world: World) -> torch.device:
    """Where collective tensors live: the rank's GPU under NCCL, else the CPU."""
    import torch  # deferred: the launcher imports this module, never torch
    import torch.distributed as dist

    if dist.is_initialized() and dist.get_backend() == "nccl":
        return torch.device("cuda", world.local_rank)
    return torch.device("cpu")


def rank_seed(seed: int, rank: int) -> int:
    """The seed of a rank's own RNG stream (dropout, augmentation): distinct per rank."""
    return seed * 65_537 + rank


def shard(order: torch.Tensor, batch_index: int, per_rank: int, world: World
          ) -> tuple[torch.Tensor, int]:
    """A rank's samples of global batch ``batch_index`` and the global batch's size.

    The global batch is the next ``per_rank * world.size`` samples of the epoch order; rank r
    takes every ``size``-th one from r, so shards differ in size by at most one. A pure function
    of (order, batch, rank, world): resuming needs no sampler state.
    """
    width = per_rank * world.size
    batch = order[batch_index * width:(batch_index + 1) * width]
    return batch[world.rank::world.size], len(batch)


def check_world(world: World, processes: int, run_id: str) -> None:
    """A worker's world must be the one the run was planned with (it is in the run id)."""
    if world.size != processes:
        raise ConfigError(
            f"run {run_id} is planned with train.processes = {processes}, but this worker was "
            f"launched with WORLD_SIZE = {world.size}",
            "run `rgt train` without torchrun (it launches the workers itself), or set "
            "train.processes to the launcher's process count (a new run id)")


def init_process_group(world: World, timeout_s: float, device: torch.device) -> None:
    """Join the process group: NCCL on CUDA, gloo on CPU, with an explicit timeout so a
    dead or hung rank ends every collective instead of blocking it forever."""
    import torch  # deferred: the launcher imports this module, never torch
    import torch.distributed as dist

    backend = "nccl" if device.type == "cuda" else "gloo"
    if device.type == "cuda":
        if world.local_rank >= torch.cuda.device_count():
            raise ConfigError(
                f"train.processes = {world.size} but only {torch.cuda.device_count()} GPU(s) "
                "are visible: one process per GPU",
                "set train.processes to the number of GPUs (a new run id), or train.device: cpu")
        torch.cuda.set_device(world.local_rank)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout_s),
                            rank=world.rank, world_size=world.size)


def is_collective_error(error: BaseException) -> bool:
    """True for a failure of the process group itself (a peer vanished or timed out)."""
    import torch.distributed as dist

    if isinstance(error, getattr(dist, "DistError", ())):
        return True
    text = str(error)
    return isinstance(error, RuntimeError) and ("gloo" in text or "NCCL" in text
                                                or "Connection reset by peer" in text)


def report_path(reports_dir: Path, rank: int) -> Path:
    """Where rank ``rank`` reports its pid and its outcome."""
    return Path(reports_dir) / f"rank-{rank}.json"


def write_report(reports_dir: Path, world: World, state: str,
                 error: BaseException | None = None) -> None:
    """Record this rank's state (``running`` at start; its outcome at the end)."""
    body = {"rank": world.rank, "world_size": world.size, "pid": os.getpid(), "state": state,
            "error": "", "collective": False, "timed_out": False, "config_error": False,
            "fix": ""}
    if error is not None:
        text = str(error).strip().splitlines()
        body.update(error=f"{type(error).__name__}: {text[0] if text else ''}",
                    collective=is_collective_error(error),
                    timed_out="timed out" in str(error).lower(),
                    config_error=isinstance(error, ConfigError),
                    fix=getattr(error, "fix", "") or "")
    path = report_path(reports_dir, world.rank)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, body)


def run_worker(world: World, reports_dir: Path | None, work: Callable[[], int]) -> int:
    """Run ``work`` (which joins the group and trains) and report how this rank ended.

    Without a reports directory (a worker of someone else's launcher) nothing is reported.
    """
    import torch.distributed as dist

    report = (lambda *a: write_report(reports_dir, world, *a)) if reports_dir else (
        lambda *a: None)
    report("running")
    try:
        code = work()
    except BaseException as error:
        # Reported first: the launcher stops the other ranks as soon as one has ended.
        report("failed", error)
        raise
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    report("preempted" if code == EXIT_PREEMPTED else "finished")
    return code


def reports_dir_from_env() -> Path | None:
    """The directory the launcher asked the ranks to report in."""
    value = os.environ.get(REPORTS_ENV)
    return Path(value) if value else None
