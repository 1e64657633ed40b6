"""Models: a built-in small CNN, or the user's own ``package.module:Class``.

A model factory is called as ``factory(input_shape=..., num_classes=..., **params)`` where
``params`` are ``model.params`` for user models and ``channels``/``dropout`` for the built-in.
"""

from __future__ import annotations

from torch import nn

from rgt.base.plugins import resolve
from rgt.config import ModelSettings, thaw


class SmallCNN(nn.Module):
    """Two 3x3 conv layers, a 2x2 max-pool, optional dropout, and a linear head."""

    def __init__(self, input_shape: tuple[int, ...], num_classes: int, channels: int = 16,
                 dropout: float = 0.0):
        super().__init__()
        in_channels, height, width = input_shape
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout),
            nn.Linear(2 * channels * (height // 2) * (width // 2), num_classes),
        )

    def forward(self, inputs):
        return self.head(self.features(inputs))


BUILTIN = {"small_cnn": SmallCNN}


def build_model(model: ModelSettings, input_shape: tuple[int, ...], num_classes: int) -> nn.Module:
    """Instantiate the model named by ``model.name``."""
    factory = resolve(model.name, BUILTIN, "model.name")
    if ":" in model.name:
        kwargs = thaw(model.params)
    else:  # the built-in's own defaults stand for a key the config leaves out
        kwargs = {key: value for key in ("channels", "dropout")
                  if (value := getattr(model, key)) is not None}
    return factory(input_shape=tuple(input_shape), num_classes=num_classes, **kwargs)
