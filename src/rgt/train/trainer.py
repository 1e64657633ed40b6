"""The training loop: a Stateful trainer whose full state is one named dict.

Everything that decides the next step is in ``state_dict()``: weights, optimizer, scheduler,
step, epoch, position in the epoch, RNG states, the running epoch loss, the history and the
selected (best validation) weights. Loading it and continuing gives bit-identical results to
never having stopped.

No host sync per step: each step's loss stays on the device and the losses are read together
(one sync) every ``loss_read_steps`` steps, at each epoch end, at each checkpoint and when the
heartbeat asks. A non-finite loss is therefore reported at most ``loss_read_steps`` steps after
it happened, naming the step that produced it; a checkpoint never holds a state that follows
one (``state_dict`` reads first), and with ``loss_read_steps=1`` the step that produced it is
never applied. On CUDA the training split lives on the device when it fits, so a batch is a
gather there rather than a copy from the host.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn.functional as F

from rgt.base.errors import ConfigError, TrainingDiverged
from rgt.base.hashing import digest_json
from rgt.config import Settings
from rgt.data import Dataset, positions
from rgt.models import build_model
from rgt.train.batches import StepLayout, batch_source
from rgt.train.determinism import capture_rng, restore_rng, seed_everything
from rgt.train.distributed import SINGLE, World, rank_seed
from rgt.train.precision import Precision
from rgt.train.scoring import is_better, score

StepHook = Callable[[int, float], None]  # (step, seconds)
LOSS_READ_STEPS = 50


def split_tensors(dataset: Dataset, ids) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and labels of the samples with these ids, as tensors (read into memory)."""
    rows = positions(dataset, ids)
    return (torch.from_numpy(np.ascontiguousarray(dataset.inputs_at(rows))),
            torch.from_numpy(np.asarray(dataset.labels)[rows]))


def resolve_device(name: str, world: World = SINGLE) -> torch.device:
    """``auto`` picks CUDA when present, else the CPU; each rank gets its own GPU."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and world.distributed:
        return torch.device("cuda", world.local_rank)
    return torch.device(name)


class Trainer:
    """Trains one run's model; ``state_dict``/``load_state_dict`` capture all of it.

    With a distributed ``world`` every rank holds the same model and takes its shard of each
    global batch of ``batch_size * world.size`` samples (``batch_size`` is per rank).
    """

    def __init__(self, settings: Settings, dataset: Dataset, split: dict, seed: int,
                 world: World = SINGLE, loss_read_steps: int = LOSS_READ_STEPS):
        train = settings.train
        self.settings = settings
        self.seed = seed
        self.world = world
        self.loss_read_steps = max(1, loss_read_steps)
        self.device = resolve_device(train.device, world)
        self.precision = Precision(train, self.device)
        self.memory_format = _memory_format(train.channels_last, dataset.input_shape)
        self.layout = StepLayout(train.batch_size, world, train.accumulate or 1,
                                 len(split["train"]))
        self.batches = batch_source(dataset, positions(dataset, split["train"]), self.layout,
                                    seed, self.device, train.loader_workers, train.epochs)
        self.val_x, self.val_y = split_tensors(dataset, split["val"])
        self.split_sizes = {name: len(ids) for name, ids in split.items()}
        seed_everything(seed)
        self.model = build_model(settings.model, dataset.input_shape, dataset.num_classes).to(
            self.device)
        if self.memory_format is not None:
            self.model = self.model.to(memory_format=self.memory_format)
        if world.distributed:  # same initial weights everywhere, then a stream per rank
            seed_everything(rank_seed(seed, world.rank))
        self.net = world.wrap(self.model, self.device)  # what trains; self.model is saved
        if train.compile:
            self.net = torch.compile(self.net)
        self.optimizer = self._make_optimizer()
        self.steps_per_epoch = self.layout.steps_per_epoch
        self.total_steps = train.epochs * self.steps_per_epoch
        self.scheduler = self._make_scheduler()
        self._reset_position()

    def _reset_position(self) -> None:
        self.step, self.epoch, self.batch_in_epoch = 0, 0, 0
        self.epoch_loss = [0.0, 0]
        self._unread: list[tuple[int, torch.Tensor]] = []  # (step, its loss on the device)
        self.last_loss: float | None = None  # the newest loss read from the device
        self.history: list[dict] = []
        self.selection = {"metric": self.settings.selection.metric, "value": None,
                          "step": None, "epoch": None, "model": None}

    def _make_optimizer(self) -> torch.optim.Optimizer:
        train = self.settings.train
        if train.optimizer == "sgd":
            return torch.optim.SGD(self.model.parameters(), lr=train.lr, momentum=0.9,
                                   weight_decay=train.weight_decay)
        return torch.optim.Adam(self.model.parameters(), lr=train.lr,
                                weight_decay=train.weight_decay)

    def _make_scheduler(self) -> torch.optim.lr_scheduler.LRScheduler:
        if self.settings.train.scheduler == "cosine":
            return torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, self.total_steps)
        return torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda _: 1.0)

    @property
    def per_rank_batch(self) -> int:
        """Samples per rank per step (``train.batch_size``)."""
        return self.settings.train.batch_size

    @property
    def effective_batch(self) -> int:
        """Samples per optimizer step over all ranks and accumulated micro-batches."""
        return self.layout.step_width

    @property
    def finished(self) -> bool:
        """True when every planned step has run."""
        return self.step >= self.total_steps

    def state_dict(self) -> dict:
        """The full named training state (loadable with ``weights_only=True``); reads the
        losses still on the device first (``TrainingDiverged`` if one is not finite)."""
        self.read_losses()
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step, "epoch": self.epoch, "batch_in_epoch": self.batch_in_epoch,
            "epoch_loss": list(self.epoch_loss),
            "rng": capture_rng(),
            "config_digest": digest_json(self.settings.to_dict()),
            "history": [dict(row) for row in self.history],
            "selection": dict(self.selection),
            "precision": self.precision.state_dict(),
            "data_layout": self.layout.signature(),
        } | self._rank_rng()

    def _rank_rng(self) -> dict:
        """Every rank's RNG states, gathered (a collective: every rank must call it)."""
        if not self.world.distributed:
            return {}
        return {"rng_per_rank": self.world.gather(capture_rng())}

    def load_state_dict(self, state: dict) -> None:
        """Continue exactly where ``state`` was captured (``DataError`` if it was captured
        over data of another length)."""
        self.layout.check_resumable(state.get("data_layout"))
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.epoch = state["step"], state["epoch"]
        self.batch_in_epoch = state["batch_in_epoch"]
        self.epoch_loss = list(state["epoch_loss"])
        self._unread, self.last_loss = [], None
        self.history = [dict(row) for row in state["history"]]
        self.selection = dict(state["selection"])
        self.precision.load_state_dict(state.get("precision", {}))
        restore_rng(state["rng_per_rank"][self.world.rank] if self.world.distributed
                    else state["rng"])

    def _forward_backward(self) -> torch.Tensor:
        """Forward and backward over the next step's micro-batches; the step's summed loss
        over the ranks as a device tensor (the mean loss is that / world size; dividing is
        left to the read)."""
        micros, size = self.batches.step(self.epoch, self.batch_in_epoch)
        if len(micros) == 1 and not self.world.distributed:
            loss = self._micro_loss(*micros[0], None)
            self.precision.backward(loss)
            return self.world.sum(loss)
        # Each micro-batch's summed loss scaled by world size / samples of the whole step: the
        # gradients add up over micro-batches, and DDP's average over ranks, to the gradient of
        # the step's mean loss, whatever the sizes (the last step of an epoch is short).
        total = None
        for index, (inputs, labels) in enumerate(micros):
            with self._no_sync(last=index == len(micros) - 1):
                loss = self._micro_loss(inputs, labels, self.world.size / size)
                self.precision.backward(loss)
            total = loss.detach() if total is None else total + loss.detach()
        return self.world.sum(total)

    def _micro_loss(self, inputs: torch.Tensor, labels: torch.Tensor,
                    scale: float | None) -> torch.Tensor:
        """The mean loss (``scale`` None), or the summed loss times ``scale``."""
        if self.memory_format is not None:
            inputs = inputs.contiguous(memory_format=self.memory_format)
        with self.precision.autocast():
            logits = self.net(inputs)
        if scale is None:
            return F.cross_entropy(logits.float(), labels)
        return F.cross_entropy(logits.float(), labels, reduction="sum") * scale

    def _no_sync(self, last: bool):
        """DDP's gradient all-reduce only after the last micro-batch of a step."""
        if last or not hasattr(self.net, "no_sync"):
            return nullcontext()
        return self.net.no_sync()

    def train_step(self) -> torch.Tensor:
        """One optimizer step on the next batch (its ``train.accumulate`` micro-batches); runs
        the epoch end when the epoch is done.

        Returns the step's mean loss as a one-element device tensor; reading it (``.item()``)
        is a host sync, which the training loop leaves to ``read_losses``.
        """
        if not (self.net.training and self.model.training):
            # Only when something left eval mode on (scoring restores it): walking the module
            # tree at every step costs a quarter of a millisecond, a GPU step's worth.
            self.net.train()
        self.optimizer.zero_grad(set_to_none=True)
        total = self._forward_backward()
        self._unread.append((self.step + 1, total))
        if len(self._unread) >= self.loss_read_steps:
            # Before the step: a diverged run must not bill on, and with one step per read
            # the step that produced a non-finite loss never touches the weights.
            self.read_losses()
        self.precision.step(self.optimizer, self.model.parameters())
        self.scheduler.step()
        self.step += 1
        self.batch_in_epoch += 1
        if self.batch_in_epoch == self.steps_per_epoch:
            self._end_epoch()
        return total if not self.world.distributed else total / self.world.size

    def read_losses(self) -> list[float]:
        """Read the losses still on the device (one host sync), oldest first; add them to the
        epoch's running loss. ``TrainingDiverged`` names the first step whose loss is not
        finite."""
        if not self._unread:
            return []
        steps = [step for step, _ in self._unread]
        values = [total / self.world.size
                  for total in torch.cat([loss for _, loss in self._unread]).tolist()]
        self._unread = []
        for step, value in zip(steps, values, strict=True):
            if not math.isfinite(value):
                raise TrainingDiverged(
                    f"non-finite loss: loss = {value} at step {step} (losses are read every "
                    f"{self.loss_read_steps} steps; training stopped at step {self.step})",
                    "lower train.lr or add weight decay, and check the inputs for NaN/Inf; "
                    "the changed config is a new run id, the diverged run's checkpoints (all "
                    "from before that step) stay on disk")
        running, count = self.epoch_loss
        for value in values:  # one at a time, in step order: the sum is bit-reproducible
            running += value
        self.epoch_loss = [running, count + len(values)]
        self.last_loss = values[-1]
        return values

    def read_loss(self) -> float | None:
        """The newest step's loss, read from the device now (None before the first step)."""
        self.read_losses()
        return self.last_loss

    def _end_epoch(self) -> None:
        self.read_losses()
        val = score(self.model, self.val_x, self.val_y)
        self.epoch += 1
        self.history.append({
            "epoch": self.epoch, "step": self.step,
            "train_loss": self.epoch_loss[0] / self.epoch_loss[1],
            "val_loss": val.loss, "val_accuracy": val.accuracy,
            "lr": self.optimizer.param_groups[0]["lr"],
        })
        self.batch_in_epoch, self.epoch_loss = 0, [0.0, 0]
        metric = self.selection["metric"]
        if is_better(metric, val.metric(metric), self.selection["value"]):
            self.selection.update(value=val.metric(metric), step=self.step, epoch=self.epoch,
                                  model=_detached_copy(self.model.state_dict()))

    def run(self, should_save: Callable[[int], bool], save: Callable[[], None],
            stop_requested: Callable[[], bool], on_step: StepHook,
            until: int | None = None) -> bool:
        """Train to the end (or to step ``until``) unless a stop is requested first.

        At each step boundary: ``on_step(step, seconds)``, then a save when
        ``should_save(step)`` says so or a stop is requested (the save happens before
        stopping). Returns True when every planned step has run.
        """
        last = self.total_steps if until is None else min(until, self.total_steps)
        while self.step < last:
            started = time.perf_counter()
            self.train_step()
            on_step(self.step, time.perf_counter() - started)
            stop, due = self.world.agree(stop_requested(), should_save(self.step))
            if stop or due:
                save()
            if stop:
                break
        return self.finished


def _memory_format(channels_last: bool | None, input_shape: tuple[int, ...]):
    """``torch.channels_last`` when asked for and the inputs are images (C, H, W), else None."""
    if not channels_last:
        return None
    if len(input_shape) != 3:
        raise ConfigError(
            f"train.channels_last = true needs image inputs (channels, height, width); this "
            f"dataset's inputs have shape {tuple(input_shape)}",
            "leave train.channels_last out for non-image data")
    return torch.channels_last


def _detached_copy(state: dict) -> dict:
    return {name: tensor.detach().clone().cpu() for name, tensor in state.items()}
