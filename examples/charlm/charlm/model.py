"""An MLP over the embeddings of the last ``context`` characters (Bengio et al., 2003)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


class CharMLP(nn.Module):
    def __init__(self, vocab_size: int, context: int, hidden: int, dropout: float):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, 16)
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(16 * context, hidden), nn.Tanh(),
                                 nn.Dropout(dropout), nn.Linear(hidden, vocab_size))

    def forward(self, inputs: torch.Tensor, targets: torch.Tensor | None = None):
        logits = self.net(self.embed(inputs))
        loss = None if targets is None else F.cross_entropy(logits, targets)
        return logits, loss

    @torch.no_grad()
    def generate(self, start: torch.Tensor, length: int) -> list[int]:
        """``length`` characters sampled after the window ``start``."""
        window, out = start.clone(), []
        for _ in range(length):
            probs = F.softmax(self(window[None])[0][0], dim=-1)
            nxt = int(torch.multinomial(probs, 1))
            out.append(nxt)
            window = torch.cat([window[1:], torch.tensor([nxt])])
        return out
