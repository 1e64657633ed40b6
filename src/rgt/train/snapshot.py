"""A host-memory copy of a training state, taken at a step boundary, for a background writer.

``HostSnapshot.take(state)`` copies every tensor into host buffers that are kept and reused by
the next snapshot (same place in the state, same shape and dtype), so a steady run allocates
them once. Buffers for CUDA tensors are pinned and filled with asynchronous copies queued on
the tensor's current stream: training may go on at once, because the kernels it queues next
run after the copies on that stream; ``Snapshot.wait_copied()`` (called by the writer) waits
for the copies themselves. Containers are rebuilt and other values deep-copied, so nothing the
loop mutates later reaches the writer. A tensor that appears twice stays one tensor.

Reuse is safe only while no writer still reads the previous snapshot: the caller (the
checkpoint store) takes a new one only after the previous save has finished.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import torch

_MEMINFO = Path("/proc/meminfo")


@dataclass
class Snapshot:
    """A state copied to host memory; its CUDA copies may still be in flight."""

    state: dict
    nbytes: int
    events: list = field(default_factory=list)

    def wait_copied(self) -> None:
        """Block until every device-to-host copy of this snapshot has landed."""
        for event in self.events:
            event.synchronize()


class HostSnapshot:
    """Takes snapshots into reusable host buffers (pinned for CUDA tensors)."""

    def __init__(self) -> None:
        self._buffers: dict[tuple, torch.Tensor] = {}

    @property
    def reserved_bytes(self) -> int:
        """Host memory held by the buffers kept for reuse."""
        return sum(b.numel() * b.element_size() for b in self._buffers.values())

    def take(self, state: dict) -> Snapshot:
        """Copy ``state``: tensors into the kept buffers, everything else rebuilt or copied."""
        devices: set[torch.device] = set()
        seen: dict[int, torch.Tensor] = {}
        copied = self._copy(state, (), seen, devices)
        kept = {id(buffer) for buffer in seen.values()}
        # A buffer whose place left the state (a reshaped model) is not kept forever.
        self._buffers = {p: b for p, b in self._buffers.items() if id(b) in kept}
        events = [_record_event(device) for device in devices]
        return Snapshot(copied, sum(_tensor_bytes(copied)), events)

    def _copy(self, value, path: tuple, seen: dict, devices: set):
        if isinstance(value, torch.Tensor):
            if id(value) not in seen:
                seen[id(value)] = self._tensor(value, path, devices)
            return seen[id(value)]
        if isinstance(value, dict):
            return self._mapping(value, path, seen, devices)
        if type(value) in (list, tuple):
            items = [self._copy(item, (*path, i), seen, devices) for i, item in enumerate(value)]
            return items if type(value) is list else tuple(items)
        return copy.deepcopy(value)

    def _mapping(self, value: dict, path: tuple, seen: dict, devices: set) -> dict:
        # A module's state_dict is an OrderedDict whose ``_metadata`` (per-module versions)
        # load_state_dict reads: both survive, as they would in a synchronous save.
        rebuilt = type(value)() if type(value) in (dict, OrderedDict) else {}
        for key, item in value.items():
            rebuilt[key] = self._copy(item, (*path, key), seen, devices)
        if hasattr(value, "_metadata"):
            rebuilt._metadata = copy.deepcopy(value._metadata)
        return rebuilt

    def _tensor(self, tensor: torch.Tensor, path: tuple, devices: set) -> torch.Tensor:
        tensor = tensor.detach()
        if tensor.layout != torch.strided:  # sparse and friends: a plain one-off copy
            return tensor.to("cpu", copy=True)
        on_cuda = tensor.device.type == "cuda"
        buffer = self._buffers.get(path)
        if buffer is None or buffer.shape != tensor.shape or buffer.dtype != tensor.dtype:
            buffer = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=on_cuda)
            self._buffers[path] = buffer
        buffer.copy_(tensor, non_blocking=on_cuda)
        if on_cuda:
            devices.add(tensor.device)
        return buffer


def state_bytes(state) -> int:
    """Bytes of the tensors in a (nested) state, each distinct tensor counted once."""
    return sum(_tensor_bytes(state))


def host_memory_available() -> int | None:
    """``MemAvailable`` of this Linux host in bytes; None where it cannot be read."""
    try:
        for line in _MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _tensor_bytes(value, seen: set | None = None):
    seen = set() if seen is None else seen
    if isinstance(value, torch.Tensor):
        if id(value) not in seen:
            seen.add(id(value))
            yield value.numel() * value.element_size()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensor_bytes(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensor_bytes(item, seen)


def _record_event(device: torch.device):
    """An event after the copies queued on ``device``'s current stream."""
    with torch.cuda.device(device):
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(device))
    return event
