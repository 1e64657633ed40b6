"""Where the trainer's batches come from, at a position (epoch, step) a resume can return to.

An optimizer step takes the next ``batch_size × processes × accumulate`` samples of the epoch's
order; they are cut into ``accumulate`` micro-batches of ``batch_size × processes`` and each
micro-batch is sharded over the ranks (``StepLayout``). The order of an epoch is a pure function
of (seed, epoch) and a step's samples a pure function of (order, step), so the position is two
integers and no sampler state is saved. Three sources serve the same steps:

- ``DeviceBatches``: an in-memory array, cut into batches directly (kept on the GPU when it
  fits). The default when ``train.loader_workers`` is left out.
- ``LoaderBatches``: a ``torch.utils.data.DataLoader`` over the step keys: worker processes
  (``train.loader_workers``), pinned memory for a GPU, prefetching. For a memory-mapped array
  (data bigger than RAM: each step reads its rows from disk), a map-style torch dataset, or an
  in-memory array when ``loader_workers`` is set. A worker reseeds python, numpy and torch from
  (seed, epoch, step) before reading a step, so random transforms in a dataset draw the same
  numbers whichever worker reads the step and whether or not the run was resumed; the loader's
  own seed comes from a generator of its own, never from the training RNG.
- ``StreamBatches``: an ``IterableDataset`` of ``(sample_id, input)`` pairs, in its own order
  (``set_epoch(epoch)`` is called before each pass when it has one). Training samples are the
  ones whose id is in the training split; every one must come exactly once per pass. A resume
  reads the epoch again up to its step (nothing is trained twice; the reading is repeated).

Workers ignore SIGTERM and SIGUSR1: the training process checkpoints and ends them, so a signal
sent to the whole process group (Slurm) cannot kill a worker and fail the run.
"""

from __future__ import annotations

import math
import signal
from dataclasses import dataclass

import numpy as np
import torch

from rgt.base.errors import DataError
from rgt.data import Dataset
from rgt.data.sources import checked_pair, stream_samples
from rgt.train.determinism import epoch_order, seed_step, step_seed
from rgt.train.distributed import World, shard

# The training split is kept on the GPU when it takes at most this share of the free memory.
DEVICE_DATA_SHARE = 0.25
Micro = tuple[torch.Tensor, torch.Tensor]  # one micro-batch: inputs, labels


@dataclass(frozen=True)
class StepLayout:
    """How the samples of an epoch become optimizer steps and micro-batches on this rank."""

    per_rank: int
    world: World
    accumulate: int
    samples: int  # training samples per epoch

    @property
    def micro_width(self) -> int:
        """Samples of one micro-batch over all ranks."""
        return self.per_rank * self.world.size

    @property
    def step_width(self) -> int:
        """Samples of one optimizer step over all ranks and micro-batches."""
        return self.micro_width * self.accumulate

    @property
    def steps_per_epoch(self) -> int:
        """Optimizer steps per epoch (the last one may be short)."""
        return math.ceil(self.samples / self.step_width)

    def step_size(self, step: int) -> int:
        """Samples of step ``step`` of an epoch over all ranks."""
        return min(self.step_width, self.samples - step * self.step_width)

    def micro_positions(self, chunk: torch.Tensor) -> list[torch.Tensor]:
        """This rank's share of each micro-batch of one step's samples ``chunk``."""
        count = math.ceil(len(chunk) / self.micro_width)
        return [shard(chunk, micro, self.per_rank, self.world)[0] for micro in range(count)]

    def signature(self) -> dict:
        """What a checkpoint's position (epoch, step) means: kept in the checkpoint."""
        return {"train_samples": self.samples, "step_width": self.step_width}

    def check_resumable(self, saved: dict | None) -> None:
        """A ``DataError`` when a checkpoint's position was counted over other data."""
        if saved is None or saved == self.signature():
            return  # a checkpoint from before the signature was kept: nothing to compare
        raise DataError(
            f"the checkpoint was taken with {saved['train_samples']} training samples per "
            f"epoch in steps of {saved['step_width']}; the data now gives {self.samples} in "
            f"steps of {self.step_width}: the dataset's length changed since the run started, "
            f"so its position (epoch, step) means other samples and the resume is refused",
            "restore the data the run started with, or give the changed data a new "
            "fingerprint (a new run id) and train that run from the start")

    def following(self, epoch: int, step: int) -> tuple[int, int]:
        """The position after step ``step`` of ``epoch``."""
        return (epoch, step + 1) if step + 1 < self.steps_per_epoch else (epoch + 1, 0)


def batch_source(dataset: Dataset, train_rows: np.ndarray, layout: StepLayout, seed: int,
                 device: torch.device, workers: int | None, epochs: int):
    """The source that fits the data and ``train.loader_workers`` (module docstring)."""
    if dataset.kind == "stream":
        return StreamBatches(dataset, train_rows, layout, seed, device, workers or 0)
    if dataset.kind == "array" and workers is None:
        return DeviceBatches(dataset, train_rows, layout, seed, device)
    return LoaderBatches(_StepReader(dataset, train_rows, layout, seed), layout, seed, device,
                         workers or 0, epochs)


class DeviceBatches:
    """An in-memory training split cut into steps directly (a gather on the GPU when the split
    fits there)."""

    def __init__(self, dataset: Dataset, train_rows: np.ndarray, layout: StepLayout, seed: int,
                 device: torch.device):
        inputs = torch.from_numpy(dataset.inputs[train_rows])
        labels = torch.from_numpy(np.asarray(dataset.labels)[train_rows])
        self.x, self.y = _placed(inputs, labels, device)
        self.layout, self.seed, self.device = layout, seed, device
        self._order: tuple[int, torch.Tensor] | None = None

    def step(self, epoch: int, step: int) -> tuple[list[Micro], int]:
        """This rank's micro-batches of the step, on the device, and the step's global size."""
        if self._order is None or self._order[0] != epoch:
            order = epoch_order(self.layout.samples, self.seed, epoch).to(self.x.device)
            self._order = (epoch, order)
        width = self.layout.step_width
        chunk = self._order[1][step * width:(step + 1) * width]
        return [(to_device(self.x[p], self.device), to_device(self.y[p], self.device))
                for p in self.layout.micro_positions(chunk)], len(chunk)

    def first(self, size: int) -> Micro:
        """The first ``size`` training samples (in split order) on the device, for probes."""
        return to_device(self.x[:size], self.device), to_device(self.y[:size], self.device)

    def close(self) -> None:
        """Nothing to release."""


class _StepReader(torch.utils.data.Dataset):
    """Reads one step's micro-batches for this rank from its key (epoch, step); runs in a data
    loader worker (or in the training process with ``loader_workers: 0``)."""

    def __init__(self, dataset: Dataset, train_rows: np.ndarray, layout: StepLayout, seed: int):
        self.dataset, self.train_rows, self.layout, self.seed = dataset, train_rows, layout, seed
        self.labels = np.asarray(dataset.labels)
        self._order: tuple[int, torch.Tensor] | None = None

    def __len__(self) -> int:
        return self.layout.steps_per_epoch

    def __getitem__(self, key: tuple[int, int]) -> tuple[list[Micro], int]:
        epoch, step = key
        if torch.utils.data.get_worker_info() is not None:
            seed_step(self.seed, epoch, step)  # never in the training process: its RNG is the run's
        if self._order is None or self._order[0] != epoch:
            self._order = (epoch, epoch_order(self.layout.samples, self.seed, epoch))
        width = self.layout.step_width
        chunk = self._order[1][step * width:(step + 1) * width]
        return [self.rows(self.train_rows[p.numpy()]) for p in
                self.layout.micro_positions(chunk)], len(chunk)

    def rows(self, rows: np.ndarray) -> Micro:
        """Inputs and labels of these dataset rows, as tensors."""
        return (torch.from_numpy(np.ascontiguousarray(self.dataset.inputs_at(rows))),
                torch.from_numpy(self.labels[rows]))


class _StepKeys:
    """The keys (epoch, step) from a position to the end of training, in order."""

    def __init__(self, start: tuple[int, int], layout: StepLayout, epochs: int):
        self.start, self.layout, self.epochs = start, layout, epochs

    def __iter__(self):
        epoch, step = self.start
        while epoch < self.epochs:
            yield epoch, step
            epoch, step = self.layout.following(epoch, step)


class LoaderBatches:
    """Steps read by a ``DataLoader`` (workers, pinned memory, prefetch), one iterator from the
    current position to the end of training; a position it is not at restarts it there."""

    def __init__(self, reader: _StepReader, layout: StepLayout, seed: int, device: torch.device,
                 workers: int, epochs: int):
        self.reader, self.layout, self.seed = reader, layout, seed
        self.device, self.workers, self.epochs = device, workers, epochs
        self._iterator = None
        self._next: tuple[int, int] | None = None

    def step(self, epoch: int, step: int) -> tuple[list[Micro], int]:
        """This rank's micro-batches of the step, on the device, and the step's global size."""
        if self._next != (epoch, step):
            self._iterator = iter(self._loader((epoch, step)))
        micros, size = next(self._iterator)
        self._next = self.layout.following(epoch, step)
        return [(to_device(x, self.device), to_device(y, self.device)) for x, y in micros], size

    def first(self, size: int) -> Micro:
        """The first ``size`` training samples (in split order) on the device, for probes."""
        inputs, labels = self.reader.rows(self.reader.train_rows[:size])
        return to_device(inputs, self.device), to_device(labels, self.device)

    def close(self) -> None:
        """Stop the workers."""
        self._iterator, self._next = None, None

    def _loader(self, start: tuple[int, int]) -> torch.utils.data.DataLoader:
        return torch.utils.data.DataLoader(
            self.reader, batch_size=None, sampler=_StepKeys(start, self.layout, self.epochs),
            num_workers=self.workers, pin_memory=self.device.type == "cuda",
            worker_init_fn=_quiet_worker,
            generator=torch.Generator().manual_seed(step_seed(self.seed, *start)))


class StreamBatches:
    """Steps taken from an ``IterableDataset`` of ``(sample_id, input)`` pairs, in its order;
    each pass is checked to hold every training sample exactly once."""

    def __init__(self, dataset: Dataset, train_rows: np.ndarray, layout: StepLayout, seed: int,
                 device: torch.device, workers: int):
        self.dataset, self.layout, self.seed = dataset, layout, seed
        self.device, self.workers = device, workers
        ids, labels = np.asarray(dataset.ids), np.asarray(dataset.labels)
        self.train_ids = np.sort(ids[train_rows])
        self.train_labels = labels[train_rows][np.argsort(ids[train_rows])]
        self.known_ids = np.sort(ids)
        self._pass = None
        self._next: tuple[int, int] | None = None

    def step(self, epoch: int, step: int) -> tuple[list[Micro], int]:
        """This rank's micro-batches of the step, on the device, and the step's global size."""
        if self._next != (epoch, step):
            self._start(epoch, step)
        chunk = self._take(epoch, self.layout.step_size(step))
        self._next = self.layout.following(epoch, step)
        if self._next[1] == 0:
            self._finish_pass(epoch)
        inputs, labels = self._tensors(chunk)
        return [(to_device(inputs[p], self.device), to_device(labels[p], self.device))
                for p in self.layout.micro_positions(torch.arange(len(chunk)))], len(chunk)

    def first(self, size: int) -> Micro:
        """The first ``size`` training samples of the stream's first pass, for probes."""
        samples = []
        for sample_id, sample in stream_samples(self.dataset.inputs):
            if (place := self._place(sample_id)) is not None:
                samples.append((place, sample))
            if len(samples) == size:
                break
        inputs, labels = self._tensors(samples)
        return to_device(inputs, self.device), to_device(labels, self.device)

    def _tensors(self, samples: list[tuple[int, object]]) -> Micro:
        """Inputs and labels of (place in the split, input) pairs, in that order."""
        inputs = torch.from_numpy(np.stack([np.asarray(sample) for _, sample in samples]))
        return inputs, torch.from_numpy(self.train_labels[[place for place, _ in samples]])

    def close(self) -> None:
        """Stop the workers."""
        self._pass, self._next = None, None

    def _start(self, epoch: int, step: int) -> None:
        if hasattr(self.dataset.inputs, "set_epoch"):
            self.dataset.inputs.set_epoch(epoch)
        loader = torch.utils.data.DataLoader(
            self.dataset.inputs, batch_size=None, num_workers=self.workers,
            worker_init_fn=_quiet_worker,
            generator=torch.Generator().manual_seed(step_seed(self.seed, epoch, 0)))
        self._pass, self._seen = iter(loader), np.zeros(len(self.train_ids), dtype=bool)
        if step:
            self._take(epoch, step * self.layout.step_width)  # read again, not trained again

    def _take(self, epoch: int, count: int) -> list[tuple[int, object]]:
        """The next ``count`` training samples of the pass, as (place in the split, input)."""
        taken = []
        while len(taken) < count:
            item = next(self._pass, None)
            if item is None:
                raise self._length_changed(epoch)
            sample_id, sample = checked_pair(item)
            place = self._checked_place(sample_id, epoch)
            if place is not None:
                taken.append((place, sample))
        return taken

    def _finish_pass(self, epoch: int) -> None:
        """Read the rest of the pass: no training sample may follow the epoch's last step."""
        for item in self._pass:
            if self._checked_place(checked_pair(item)[0], epoch) is not None:
                raise self._length_changed(epoch)
        self._pass, self._next = None, None  # the next epoch starts a new pass

    def _checked_place(self, sample_id: int, epoch: int) -> int | None:
        """The sample's place in the training split (None for another split's), counted."""
        place = self._place(sample_id)
        if place is None:
            at = np.searchsorted(self.known_ids, sample_id)
            if at == len(self.known_ids) or self.known_ids[at] != sample_id:
                raise DataError(f"the stream yielded sample id {sample_id}, which is not among "
                                f"the dataset's ids", "list every id the stream yields in ids")
            return None
        if self._seen[place]:
            raise DataError(
                f"the stream yielded sample id {sample_id} twice in epoch {epoch}",
                "yield each sample once per pass; with train.loader_workers > 0, give each "
                "worker its own share (torch.utils.data.get_worker_info())")
        self._seen[place] = True
        return place

    def _place(self, sample_id: int) -> int | None:
        at = int(np.searchsorted(self.train_ids, sample_id))
        return at if at < len(self.train_ids) and self.train_ids[at] == sample_id else None

    def _length_changed(self, epoch: int) -> DataError:
        return DataError(
            f"the stream yielded {int(self._seen.sum())} of the {len(self.train_ids)} training "
            f"samples in epoch {epoch}, with other counts than the ids it declared: its length "
            f"changed since the run was planned (a run's data cannot change while it resumes)",
            "make the stream yield exactly the samples listed in ids (restore the data it had), "
            "or list the new ids and change the fingerprint: changed data is a new run id")


def _quiet_worker(_worker_id: int) -> None:
    """A data loader worker leaves preemption signals to the training process."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)


def _placed(inputs: torch.Tensor, labels: torch.Tensor, device: torch.device
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """The training split where batches are cut from: on a GPU when it fits comfortably there
    (a batch is then a gather on the device), else in host memory."""
    if device.type != "cuda":
        return inputs, labels
    free, _ = torch.cuda.mem_get_info(device)
    if inputs.nbytes + labels.nbytes > DEVICE_DATA_SHARE * free:
        return inputs, labels
    return inputs.to(device), labels.to(device)


def to_device(batch: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``batch`` on ``device``; from the host through pinned memory, without waiting for it
    (a pageable copy would block until the GPU has caught up: a host sync every step)."""
    if batch.device.type == "cuda" or device.type != "cuda":  # already there, or no GPU
        return batch.to(device)
    if not batch.is_pinned():
        batch = batch.pin_memory()
    return batch.to(device, non_blocking=True)
