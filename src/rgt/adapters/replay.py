"""What a resumed run needs to replay an uninterrupted one exactly, without the framework's help:
the data order (``ResumableSampler``) and each step's random draws
(``rgt.train.determinism.seed_step``).

A framework restarting from a checkpoint taken mid-epoch builds a fresh data iterator and runs
hooks (validation, logging, iterator set-up) that draw from the global RNG in another order than
the uninterrupted run did. Both are made independent of that history here: the order of an
epoch is a pure function of ``(seed, epoch)`` and starts part-way after a resume, and the global
RNG is reseeded before every training batch from ``(seed, epoch, batch)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sized

import torch

from rgt.train.determinism import epoch_order


class ResumableSampler(torch.utils.data.Sampler[int]):
    """A ``RandomSampler`` (or, with ``shuffle=False``, a sequential one) whose order of each
    epoch is a pure function of ``(seed, epoch)``, and which starts the epoch being resumed
    after the samples the interrupted run had already taken. The framework calls
    ``set_epoch``; the adapter calls ``resume_at``."""

    def __init__(self, data: Sized | int, seed: int, shuffle: bool = True):
        self.num_samples = data if isinstance(data, int) else len(data)
        self.seed, self.shuffle = seed, shuffle
        self.epoch = 0
        self._resume: tuple[int, int] | None = None

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration belongs to."""
        self.epoch = epoch

    def resume_at(self, epoch: int, samples: int) -> None:
        """Make the next iteration of ``epoch`` skip its first ``samples`` samples."""
        self._resume = (epoch, samples)

    def __len__(self) -> int:
        # The full epoch even when resuming part-way: the framework counts the batches it has
        # already run and ends the epoch when that count reaches this length.
        return self.num_samples

    def __iter__(self) -> Iterator[int]:
        # A generator: the order is decided at the first draw, after the framework's
        # set_epoch, not when the data loader builds its iterator.
        order = (epoch_order(self.num_samples, self.seed, self.epoch) if self.shuffle
                 else torch.arange(self.num_samples))
        start = 0
        if self._resume is not None:
            epoch, samples = self._resume
            self._resume = None
            start = samples if epoch == self.epoch else 0
        yield from order[start:].tolist()
