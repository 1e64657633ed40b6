"""The bundled dataset and the stratified split."""

from __future__ import annotations

import numpy as np

from rgt.config import Split
from rgt.data import digits, make_split, split_sha256

SPLIT = Split(val=0.15, test=0.15, seed=0)


def test_digits_matches_scikit_learn():
    from sklearn.datasets import load_digits

    dataset, reference = digits(), load_digits()
    assert dataset.inputs.shape == (1797, 1, 8, 8) and dataset.inputs.dtype == np.float32
    assert np.array_equal(dataset.inputs[:, 0], (reference.images / 16.0).astype(np.float32))
    assert np.array_equal(dataset.labels, reference.target)


def test_split_is_disjoint_complete_and_stratified():
    dataset = digits()
    split = make_split(dataset, SPLIT)
    all_ids = np.concatenate(list(split.values()))
    assert len(all_ids) == len(set(all_ids.tolist())) == len(dataset.ids)
    test_counts = np.bincount(dataset.labels[split["test"]], minlength=10)
    assert test_counts.min() >= 25 and test_counts.max() <= 29


def test_split_hash_is_a_pure_function_of_seed():
    dataset = digits()
    assert split_sha256(make_split(dataset, SPLIT)) == split_sha256(make_split(dataset, SPLIT))
    assert split_sha256(make_split(dataset, SPLIT.model_copy(update={"seed": 1}))) != split_sha256(
        make_split(dataset, SPLIT))


def test_dataset_hash_changes_with_one_pixel():
    dataset = digits()
    before = dataset.sha256()
    dataset.inputs[0, 0, 0, 0] += 1.0
    assert dataset.sha256() != before
