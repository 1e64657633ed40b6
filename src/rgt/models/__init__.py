"""Models: a built-in small CNN, or the user's own ``package.module:Class``.

A model factory is called as ``factory(input_shape=..., num_classes=..., **params)`` where
``params`` are ``model.params`` for user models and ``channels``/``dropout`` for the built-in.
"""

from __future__ import annotations

from torch import nn

from rgt.base.plugins import resolve


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


def build_model(model_config: dict, input_shape: tuple[int, ...], num_classes: int) -> nn.Module:
    """Instantiate the model named by ``model_config['name']``."""
    factory = resolve(model_config["name"], BUILTIN, "model.name")
    if ":" in model_config["name"]:
        kwargs = dict(model_config.get("params", {}))
    else:
        kwargs = {key: model_config[key] for key in ("channels", "dropout") if key in model_config}
    return factory(input_shape=tuple(input_shape), num_classes=num_classes, **kwargs)
