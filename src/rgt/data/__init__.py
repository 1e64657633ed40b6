"""Datasets and splits: deterministic, hashed, and pluggable.

A dataset is any callable returning a ``Dataset``; name it in ``data.name`` as
``package.module:function`` (it receives ``data.params`` as keyword arguments).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rgt.base.errors import DataError
from rgt.base.hashing import digest_json, sha256_bytes
from rgt.base.plugins import resolve
from rgt.config import DataSettings, Split, thaw

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class Dataset:
    """In-memory samples: ``inputs[i]`` has label ``labels[i]`` and stable id ``ids[i]``."""

    name: str
    inputs: np.ndarray  # float32, (N, ...) — for images (N, C, H, W)
    labels: np.ndarray  # int64, (N,)
    ids: np.ndarray  # int64, (N,), unique and stable across versions of the data
    num_classes: int

    def sha256(self) -> str:
        """A content hash over dtype, shape and bytes of inputs, labels and ids."""
        parts = []
        for array in (self.inputs, self.labels, self.ids):
            contiguous = np.ascontiguousarray(array)
            parts.append(f"{contiguous.dtype}|{contiguous.shape}|".encode())
            parts.append(contiguous.tobytes())
        return sha256_bytes(b"".join(parts))


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
    labels, count = np.asarray(dataset.labels), len(dataset.inputs)
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
