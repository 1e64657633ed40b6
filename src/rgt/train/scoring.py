"""Scoring a model on a split: logits in batches, mean cross-entropy and accuracy.

Shared by training (validation at each epoch end) and evaluation, so a metric is computed one
way only.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

DIRECTIONS = {"accuracy": "higher", "loss": "lower"}


@dataclass(frozen=True)
class Scores:
    """Per-sample probabilities and predictions, with the split's loss and accuracy."""

    probabilities: torch.Tensor
    predictions: torch.Tensor
    loss: float
    accuracy: float
    n: int

    def metric(self, name: str) -> float:
        """The value of ``accuracy`` or ``loss``."""
        return {"accuracy": self.accuracy, "loss": self.loss}[name]


@torch.no_grad()
def score(model: torch.nn.Module, inputs: torch.Tensor, labels: torch.Tensor,
          batch_size: int = 512) -> Scores:
    """Evaluate ``model`` in eval mode (dropout off), restoring its previous mode after."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    logits = torch.cat([model(inputs[i:i + batch_size].to(device)).float().cpu()
                        for i in range(0, len(inputs), batch_size)])
    model.train(was_training)
    loss = F.cross_entropy(logits, labels, reduction="mean").item()
    predictions = logits.argmax(dim=1)
    accuracy = (predictions == labels).double().mean().item()
    return Scores(logits.softmax(dim=1), predictions, loss, accuracy, len(labels))


def is_better(metric: str, new: float, old: float | None) -> bool:
    """True when ``new`` beats ``old`` in the metric's direction (ties keep the old one)."""
    if old is None:
        return True
    return new > old if DIRECTIONS[metric] == "higher" else new < old
