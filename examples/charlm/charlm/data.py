"""The corpus as character ids, split 90/10 into train and val, and random batches of it."""

from __future__ import annotations

from pathlib import Path

import torch


class CharData:
    """Characters of a text file; batches of ``context`` characters and the one after each."""

    def __init__(self, path: str | Path, context: int):
        text = Path(path).read_text()
        self.chars = sorted(set(text))
        self.vocab_size, self.context = len(self.chars), context
        ids = torch.tensor([self.chars.index(c) for c in text], dtype=torch.long)
        cut = int(0.9 * len(ids))
        self.splits = {"train": ids[:cut], "val": ids[cut:]}

    def batch(self, split: str, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """``size`` random windows of the split (from torch's global generator) and the
        character following each."""
        data = self.splits[split]
        starts = torch.randint(len(data) - self.context, (size,))
        return self.windows(data, starts)

    def windows(self, data: torch.Tensor, starts: torch.Tensor) -> tuple[torch.Tensor, ...]:
        inputs = torch.stack([data[i:i + self.context] for i in starts.tolist()])
        return inputs, data[starts + self.context]

    def every_window(self, split: str) -> tuple[torch.Tensor, torch.Tensor]:
        """Every window of the split, in order (to score each of its characters once)."""
        data = self.splits[split]
        return self.windows(data, torch.arange(len(data) - self.context))

    def decode(self, ids) -> str:
        return "".join(self.chars[i] for i in ids)
