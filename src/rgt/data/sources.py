"""Reading a dataset's inputs whatever holds them: an array in memory, a memory-mapped array, a
map-style torch ``Dataset`` or a torch ``IterableDataset`` of ``(sample_id, input)`` pairs.

torch is never imported here: the planning process (the Snakefile) hashes data without it, and a
torch dataset can only come from a process that has imported torch already.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import numpy as np

from rgt.base.errors import DataError

HASH_CHUNK_BYTES = 64 << 20  # rows hashed at a time: bounded memory for a memory-mapped array


def input_kind(inputs: object) -> str:
    """``array``, ``memmap``, ``samples`` (map-style torch dataset) or ``stream``; TypeError for
    anything else."""
    if isinstance(inputs, np.memmap):
        return "memmap"
    if isinstance(inputs, np.ndarray):
        return "array"
    torch = sys.modules.get("torch")
    if torch is not None:
        data = torch.utils.data
        if isinstance(inputs, data.IterableDataset):
            return "stream"
        if isinstance(inputs, data.Dataset):
            return "samples"
    raise TypeError(f"inputs are a {type(inputs).__name__}, not an array or a torch dataset")


def hash_array(digest, array: np.ndarray) -> None:
    """Feed dtype, shape and C-order bytes of ``array`` to ``digest``, a chunk of rows at a
    time (the same digest as hashing ``np.ascontiguousarray(array).tobytes()`` at once)."""
    if not isinstance(array, np.ndarray):
        raise DataError(f"cannot hash {type(array).__name__} inputs byte by byte",
                        "give the dataset a fingerprint (rgt.data.Dataset(..., fingerprint=...))")
    digest.update(f"{array.dtype}|{array.shape}|".encode())
    if array.ndim == 0 or array.size == 0:
        digest.update(np.ascontiguousarray(array).tobytes())
        return
    row_bytes = max(1, array[0].size * array.itemsize)
    rows = max(1, HASH_CHUNK_BYTES // row_bytes)
    for start in range(0, len(array), rows):
        chunk = np.ascontiguousarray(array[start:start + rows])
        digest.update(chunk.reshape(-1).view(np.uint8))


def inputs_at(inputs, kind: str, ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The inputs of row positions ``rows``, stacked in that order."""
    rows = np.asarray(rows, dtype=np.int64)
    if kind in ("array", "memmap"):
        return np.asarray(inputs[rows])
    if kind == "samples":
        return _stacked([inputs[int(row)] for row in rows], len(rows))
    wanted = {int(ids[row]): place for place, row in enumerate(rows)}
    found: list = [None] * len(rows)
    for sample_id, sample in stream_samples(inputs):
        place = wanted.pop(int(sample_id), None)
        if place is not None:
            found[place] = sample
            if not wanted:
                break
    if wanted:
        raise DataError(f"the stream never yielded {len(wanted)} of the samples asked for "
                        f"(e.g. id {next(iter(wanted))})",
                        "yield every sample whose id is in the dataset's ids, once per pass")
    return _stacked(found, len(rows))


def sample_shape(inputs, kind: str) -> tuple[int, ...]:
    """The shape of one input of a torch dataset (its first)."""
    if kind == "samples":
        return tuple(np.shape(inputs[0]))
    for _, sample in stream_samples(inputs):
        return tuple(np.shape(sample))
    raise DataError("the stream yielded no samples", "yield (sample_id, input) pairs")


def stream_samples(stream, epoch: int = 0) -> Iterator[tuple[int, object]]:
    """One pass over an ``IterableDataset`` of ``(sample_id, input)`` pairs in this process;
    ``set_epoch(epoch)`` first when the stream has it (its order may depend on the epoch)."""
    if hasattr(stream, "set_epoch"):
        stream.set_epoch(epoch)
    for item in stream:
        yield checked_pair(item)


def checked_pair(item: object) -> tuple[int, object]:
    """A stream's item as ``(sample_id, input)``; a ``DataError`` if it is not one."""
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise DataError(f"the stream yielded a {type(item).__name__}, not a (sample_id, input) "
                        f"pair", "yield (sample_id, input) from the IterableDataset's __iter__")
    return int(item[0]), item[1]


def _stacked(samples: list, count: int) -> np.ndarray:
    if not count:
        raise DataError("no samples to read", "check that the split is not empty")
    return np.stack([np.asarray(sample) for sample in samples])
