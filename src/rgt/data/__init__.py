"""Datasets and splits: deterministic, hashed, and pluggable.

A dataset is any callable returning a ``Dataset``; name it in ``data.name`` as
``package.module:function`` (it receives ``data.params`` as keyword arguments).

Its inputs may be an in-memory array, a memory-mapped one (``np.load(path, mmap_mode="r")``:
data bigger than RAM, read a batch at a time), a map-style ``torch.utils.data.Dataset`` (item
``i`` is the input of row ``i``) or a ``torch.utils.data.IterableDataset`` that yields
``(sample_id, input)`` pairs (``rgt.data.sources`` reads them). Labels and ids are always
in-memory arrays: the split is stratified by label before anything is read.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from rgt.base.errors import DataError
from rgt.base.hashing import digest_json
from rgt.base.plugins import resolve
from rgt.config import DataSettings, Split, thaw
from rgt.data.sources import hash_array, input_kind, inputs_at, sample_shape

SPLITS = ("train", "val", "test")
STREAMING_KINDS = ("samples", "stream")


@dataclass(frozen=True)
class Dataset:
    """Samples: ``inputs[i]`` has label ``labels[i]`` and stable id ``ids[i]``.

    ``fingerprint``: a text that changes whenever the inputs do (a dataset version, a digest of
    the files' names, sizes and times). When given, the data hash covers it (and the labels and
    ids) instead of every input byte, so planning never reads data bigger than RAM; a torch
    dataset needs one.
    """

    name: str
    inputs: Any  # float32 (N, ...) array or memmap — for images (N, C, H, W) — or torch data
    labels: np.ndarray  # int64, (N,)
    ids: np.ndarray  # int64, (N,), unique and stable across versions of the data
    num_classes: int
    fingerprint: str | None = None

    @cached_property
    def kind(self) -> str:
        """``array``, ``memmap``, ``samples`` (map-style torch dataset) or ``stream``."""
        return input_kind(self.inputs)

    @cached_property
    def input_shape(self) -> tuple[int, ...]:
        """The shape of one input (what a model is built for)."""
        if self.kind in ("array", "memmap"):
            return tuple(self.inputs.shape[1:])
        return sample_shape(self.inputs, self.kind)

    def sha256(self) -> str:
        """A content hash over dtype, shape and bytes of inputs, labels and ids (read a chunk at
        a time), or over the fingerprint, labels and ids when a fingerprint is given."""
        digest = hashlib.sha256()
        arrays = (self.inputs, self.labels, self.ids)
        if self.fingerprint is not None:
            digest.update(f"fingerprint|{self.fingerprint}|".encode())
            arrays = arrays[1:]
        for array in arrays:
            hash_array(digest, array)
        return digest.hexdigest()

    def inputs_at(self, rows: np.ndarray) -> np.ndarray:
        """The inputs of these row positions, stacked in that order (read from disk or from the
        torch dataset as needed)."""
        return inputs_at(self.inputs, self.kind, self.ids, rows)


def digits() -> Dataset:
    """scikit-learn's bundled 8x8 handwritten digits (1,797 images, 10 classes, no download).

    Read straight from the file scikit-learn ships: importing ``sklearn.datasets`` costs
    seconds, and the Snakefile plans runs (hashing this data) at every start.
    """
    table = np.loadtxt(_sklearn_file("datasets/data/digits.csv.gz"), delimiter=",")
    inputs = (table[:, :-1] / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    labels = table[:, -1].astype(np.int64)
    return Dataset("digits", inputs, labels, np.arange(len(labels), dtype=np.int64), 10)


def _sklearn_file(relative: str) -> Path:
    spec = importlib.util.find_spec("sklearn")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise DataError("the digits dataset needs scikit-learn, which is not installed",
                        "pip install scikit-learn")
    return Path(spec.submodule_search_locations[0]) / relative


BUILTIN = {"digits": digits}


def load_dataset(data: DataSettings) -> Dataset:
    """Build the dataset named by ``data.name`` (a user's with ``data.params``), checked to be
    what the built-in trainer can use: one class label per sample."""
    factory = resolve(data.name, BUILTIN, "data.name")
    return checked_dataset(factory(**thaw(data.params)), data.name)


def checked_dataset(dataset: object, name: str) -> Dataset:
    """``dataset`` when it is a ``Dataset`` of N samples with N labels and N unique ids; a
    ``DataError`` naming what is wrong otherwise."""
    if not isinstance(dataset, Dataset):
        raise DataError(f"data.name {name!r} returned {type(dataset).__name__}, not a Dataset",
                        "return rgt.data.Dataset(name, inputs, labels, ids, num_classes)")
    count = _input_count(dataset, name)
    labels = np.asarray(dataset.labels)
    if labels.ndim != 1:
        raise DataError(
            f"data.name {name!r}: labels have shape {labels.shape}, one per sample expected: "
            f"the built-in trainer classifies each sample (per-position labels, as for a "
            f"language model, need a training loop of your own)",
            "declare your own training command in defaults.job and train it with rgt.run() "
            "(docs/own-code.md)")
    if len(labels) != count or len(dataset.ids) != count:
        raise DataError(f"data.name {name!r}: {count} inputs, {len(labels)} labels, "
                        f"{len(dataset.ids)} ids", "give one label and one id per sample")
    if len(np.unique(dataset.ids)) != count:
        raise DataError(f"data.name {name!r}: sample ids repeat",
                        "give every sample a unique, stable id")
    return dataset


def _input_count(dataset: Dataset, name: str) -> int:
    """How many inputs the dataset holds, once its inputs are known to be readable (an array,
    a memory-mapped array, or a torch dataset with a fingerprint and one id per sample)."""
    try:
        input_kind(dataset.inputs)
    except TypeError as error:
        raise DataError(f"data.name {name!r}: {error}",
                        "give the inputs as a numpy array (np.load(..., mmap_mode='r') for "
                        "data bigger than RAM) or a torch Dataset / IterableDataset") from None
    count = len(dataset.ids) if dataset.kind == "stream" else len(dataset.inputs)
    if dataset.kind in STREAMING_KINDS and dataset.fingerprint is None:
        raise DataError(
            f"data.name {name!r} returns a torch dataset without a fingerprint: the run id "
            f"must follow the data, and reading every sample at each planning is what a "
            f"streaming dataset avoids",
            "pass fingerprint=... to rgt.data.Dataset: a text that changes whenever the "
            "samples do (a dataset version, or a digest of the files' names, sizes and times)")
    if dataset.kind == "samples" and len(dataset.ids) != count:
        raise DataError(
            f"data.name {name!r}: the torch dataset has {count} samples but {len(dataset.ids)} "
            f"ids are declared: its length changed (or the ids are stale), so a planned or "
            f"checkpointed run would read other samples at the same positions",
            "restore the data the ids describe, or list one id and label per sample and change "
            "the fingerprint (a new run id, trained from the start)")
    return count


def make_split(dataset: Dataset, split: Split) -> dict[str, np.ndarray]:
    """Stratified train/val/test sample ids, a pure function of (data, fractions, seed).

    Each class is shuffled with the split seed and cut in the configured fractions, so every
    split keeps the class balance of the whole.
    """
    rng = np.random.default_rng(split.seed)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in SPLITS}
    for label in np.unique(dataset.labels):
        members = rng.permutation(dataset.ids[dataset.labels == label])
        n_test = round(len(members) * split.test)
        n_val = round(len(members) * split.val)
        parts["test"].append(members[:n_test])
        parts["val"].append(members[n_test:n_test + n_val])
        parts["train"].append(members[n_test + n_val:])
    return {name: np.sort(np.concatenate(chunks)) for name, chunks in parts.items()}


def split_sha256(split: dict[str, np.ndarray]) -> str:
    """Hash of the sample ids in each split (order-independent within a split)."""
    return digest_json({name: sorted(int(i) for i in ids) for name, ids in split.items()})


def positions(dataset: Dataset, ids: np.ndarray) -> np.ndarray:
    """Row positions in ``dataset`` of the given sample ids."""
    index = {int(sample_id): row for row, sample_id in enumerate(dataset.ids)}
    return np.array([index[int(sample_id)] for sample_id in ids], dtype=np.int64)
