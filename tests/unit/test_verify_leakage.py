"""Leakage on the prepared data: planted exact and near duplicates, a broken pin, clean digits."""

from __future__ import annotations

import numpy as np
import pytest
from test_verify_support import write_run

from rgt.config import DataSettings
from rgt.data import digits, load_dataset, make_split, split_sha256
from rgt.verify.audit import audit_runs
from rgt.verify.leakage import NEAR_CORRELATION, near_duplicates

SPLIT = {"val": 0.15, "test": 0.15, "seed": 0}
PLUGIN = '''
import numpy as np
from rgt.data import Dataset, digits


def make(mode="exact", copies=40):
    base = digits()
    extra = base.inputs[:copies].copy()
    if mode == "near":
        extra = extra * 0.9 + 0.01  # same image, dimmer and lifted: correlation 1, bytes differ
    ids = np.arange(len(base.ids) + copies, dtype=np.int64)
    return Dataset("leaky", np.concatenate([base.inputs, extra]),
                   np.concatenate([base.labels, base.labels[:copies]]), ids, 10)
'''


def data_runs(runs_dir, data: dict, meta: dict | None = None) -> None:
    """Two variants x two seeds sharing one data block, pinned to its real hashes."""
    settings = DataSettings.model_validate(data)
    dataset = load_dataset(settings)
    pins = {"data_sha256": dataset.sha256(),
            "split_sha256": split_sha256(make_split(dataset, settings.split))} | (meta or {})
    for variant, accuracy in (("baseline", 0.8), ("dropout", 0.85)):
        for seed in (0, 1):
            write_run(runs_dir, f"{variant}-{seed}", test_accuracy=accuracy + seed / 100,
                      variant=variant, seed=seed, extra_config={"data": data}, meta=pins,
                      overrides={"model": {"dropout": 0.3}} if variant == "dropout" else None)


def checks(audit, *names):
    return [f for f in audit.findings if f.check in names]


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "leaky_data.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path / "runs"


def test_clean_digits_raise_no_leakage_finding(tmp_path):
    data_runs(tmp_path, {"name": "digits", "split": SPLIT})
    audit = audit_runs(tmp_path)
    assert not checks(audit, "leakage-exact", "leakage-near", "split-mismatch",
                      "leakage-unchecked")


def test_exact_copies_across_splits_are_leakage_exact(plugin):
    data_runs(plugin, {"name": "leaky_data:make", "params": {"mode": "exact"}, "split": SPLIT})
    audit = audit_runs(plugin)
    [finding] = checks(audit, "leakage-exact")
    assert finding.severity == "error" and "identical input bytes" in finding.detail
    assert "train/test" in finding.detail or "test/train" in finding.detail
    assert "exp/dropout/accuracy/test" in finding.claims
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    assert not checks(audit, "leakage-near")  # exact pairs are not reported twice


def test_dimmed_copies_across_splits_are_leakage_near(plugin):
    data_runs(plugin, {"name": "leaky_data:make", "params": {"mode": "near"}, "split": SPLIT})
    audit = audit_runs(plugin)
    assert not checks(audit, "leakage-exact")
    [finding] = checks(audit, "leakage-near")
    assert finding.severity == "warning" and f">= {NEAR_CORRELATION}" in finding.detail


def test_split_hash_not_the_pinned_one_is_a_mismatch(tmp_path):
    data_runs(tmp_path, {"name": "digits", "split": SPLIT}, meta={"split_sha256": "0" * 64})
    found = checks(audit_runs(tmp_path), "split-mismatch")
    assert len(found) == 4 and all("split_sha256 pinned '000" in f.detail for f in found)


def test_unbuildable_dataset_is_disclosed_not_fatal(tmp_path):
    for seed in (0, 1):
        write_run(tmp_path, f"r{seed}", test_accuracy=0.8, seed=seed,
                  extra_config={"data": {"name": "absent_module:make", "split": SPLIT}})
    [finding] = checks(audit_runs(tmp_path), "leakage-unchecked")
    assert finding.severity == "info" and "absent_module" in finding.detail


def test_near_rule_ignores_constant_rows_and_distinct_images():
    base = digits().inputs.reshape(-1, 64)[:20].astype(np.float64)
    inputs = np.concatenate([base, np.zeros((2, 64)), base[:1] + 0.001])
    # rows 20 and 21 are constant (zero variance): never near anything, not even each other
    rows = {"train": np.arange(0, 10), "val": np.array([10, 11, 12, 13, 20]),
            "test": np.array([14, 15, 16, 21, 22])}
    digests = [row.tobytes() for row in inputs]
    ids = np.arange(len(inputs))
    assert near_duplicates(rows, inputs, digests, ids) == {("train", "test"): [(0, 22)]}
