"""Precision and the optimizer step: autocast, fp16 loss scaling, gradient clipping.

``train.precision``: ``fp32`` (the default: no autocast), ``bf16`` (autocast to bfloat16: the
same exponent range as fp32, no loss scaling needed) or ``fp16`` (autocast to float16 with a
``GradScaler``: the loss is scaled up before ``backward`` so small gradients survive, the
gradients are unscaled before clipping and the step is skipped when one overflowed). The
scaler's state (scale, growth tracker) is part of the checkpoint, so a resumed fp16 run scales
exactly as the uninterrupted one did.

Costs: fp16's scaler reads one overflow flag per step on the host (``GradScaler.step``), the
one per-step sync left; bf16 and fp32 have none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext

import torch

from rgt.base.errors import ConfigError
from rgt.config import TrainSettings

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def check_supported(precision: str, device: torch.device,
                    bf16_supported: Callable[[], bool] | None = None) -> None:
    """A ``ConfigError`` when ``device`` cannot compute in ``precision`` (bf16 on a GPU older
    than Ampere); ``bf16_supported`` stands in for ``torch.cuda.is_bf16_supported``."""
    if precision != "bf16" or device.type != "cuda":
        return  # fp16 runs on every CUDA GPU; the CPU autocasts both
    supported = bf16_supported or torch.cuda.is_bf16_supported
    if not supported():
        name = torch.cuda.get_device_name(device) if torch.cuda.is_available() else "this GPU"
        raise ConfigError(
            f"train.precision = bf16, but {name} has no bfloat16 support (it needs compute "
            f"capability 8.0 or later: A100, H100, L4, RTX 30xx and newer)",
            "set train.precision: fp16 (loss-scaled, runs on every GPU) or fp32 — a new run "
            "id — or rent a GPU with bf16")


class Precision:
    """Autocast for the forward pass, the backward pass, and the optimizer step."""

    def __init__(self, train: TrainSettings, device: torch.device):
        self.name = train.precision or "fp32"
        check_supported(self.name, device)
        self.device_type = device.type
        self.dtype = DTYPES.get(self.name)
        self.max_norm = train.clip_grad_norm
        self.scaler = torch.amp.GradScaler(device.type) if self.name == "fp16" else None

    def autocast(self) -> AbstractContextManager:
        """The context the forward pass and the loss run in."""
        if self.dtype is None:
            return nullcontext()
        return torch.autocast(self.device_type, dtype=self.dtype)

    def backward(self, loss: torch.Tensor) -> None:
        """Gradients of ``loss`` (scaled under fp16), added to those already there."""
        (self.scaler.scale(loss) if self.scaler is not None else loss).backward()

    def step(self, optimizer: torch.optim.Optimizer,
             parameters: Iterable[torch.nn.Parameter]) -> None:
        """Clip (when configured) and apply the accumulated gradients."""
        if self.scaler is not None:
            if self.max_norm is not None:
                self.scaler.unscale_(optimizer)  # clip the true gradients, not scaled ones
                torch.nn.utils.clip_grad_norm_(parameters, self.max_norm)
            self.scaler.step(optimizer)
            self.scaler.update()
            return
        if self.max_norm is not None:
            torch.nn.utils.clip_grad_norm_(parameters, self.max_norm)
        optimizer.step()

    def state_dict(self) -> dict:
        """The precision, and the loss scaler's state under fp16."""
        state = {"precision": self.name}
        if self.scaler is not None:
            state["scaler"] = self.scaler.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        """Continue with the saved loss scale (a checkpoint of an fp32 or bf16 run has none)."""
        if self.scaler is not None and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
