"""Leakage on the prepared data: duplicates across train/val/test and the pinned split hashes.

The dataset and split of each audited run are rebuilt with ``rgt.data``'s public functions
(the split is a pure function of the config), once per distinct ``data`` block.

- **Pins** (``split-mismatch``): the rebuilt data and split must hash to the ``data_sha256`` and
  ``split_sha256`` pinned in ``run.json``; otherwise what is checked is not what was trained on.
- **Exact duplicates** (``leakage-exact``): two samples in different splits whose input bytes
  have the same sha256 (labels are ignored: an input seen in training with any label leaks).
- **Near duplicates** (``leakage-near``): two samples in different splits, not exact
  duplicates, whose flattened inputs have a Pearson correlation of at least
  ``NEAR_CORRELATION`` (= cosine similarity of the per-sample mean-centred inputs). The rule
  survives brightness/contrast changes and small noise; a constant input (zero variance) is
  never a near duplicate. With 0.999, scikit-learn's digits (whose closest distinct
  cross-split images correlate at 0.994) raise nothing. Above ``NEAR_PAIR_BUDGET`` compared
  pairs the near check is skipped and disclosed.
"""

from __future__ import annotations

import hashlib
import json
from itertools import combinations

import numpy as np

from rgt.config import DataSettings
from rgt.data import load_dataset, make_split, positions, split_sha256
from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.runs import Run

NEAR_CORRELATION = 0.999
NEAR_PAIR_BUDGET = 2_000_000_000
CHUNK_ROWS = 1024
EXAMPLES = 3


def leakage_findings(runs: tuple[Run, ...], claims: ClaimIndex) -> list[Finding]:
    """Pin, exact- and near-duplicate findings for every distinct data block of ``runs``."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        data = run.config.get("data")
        if isinstance(data, dict) and "name" in data and isinstance(data.get("split"), dict):
            groups.setdefault(json.dumps(data, sort_keys=True), []).append(run)
    findings = []
    for key, group in sorted(groups.items()):
        findings += _group_findings(json.loads(key), group, claims)
    return findings


def _group_findings(data: dict, runs: list[Run], claims: ClaimIndex) -> list[Finding]:
    affected = tuple(c for run in runs for c in claims.claims_for(run.exp_id, run.variant))
    subject = f"data {data['name']} split {json.dumps(data['split'], sort_keys=True)}"
    try:
        settings = DataSettings.model_validate(data)  # a sealed run's record, read back
        dataset = load_dataset(settings)
        split = make_split(dataset, settings.split)
    except Exception as error:  # a user's dataset plugin may fail in any way; disclose it
        return [Finding("leakage-unchecked", "info", subject,
                        f"the dataset could not be rebuilt ({type(error).__name__}: {error}); "
                        f"leakage was not checked", affected)]
    findings = pin_findings(runs, dataset.sha256(), split_sha256(split), claims)
    if dataset.kind not in ("array", "memmap"):
        return findings + [Finding("leakage-unchecked", "info", subject,
                                   "the inputs are a torch dataset, not an array: duplicates "
                                   "across splits were not looked for", affected)]
    rows = {name: positions(dataset, ids) for name, ids in split.items()}
    inputs = dataset.inputs.reshape(len(dataset.ids), -1)
    digests = [hashlib.sha256(np.ascontiguousarray(row).tobytes()).digest() for row in inputs]
    exact = exact_duplicates(rows, digests, dataset.ids)
    if exact:
        findings.append(Finding("leakage-exact", "error", subject,
                                _describe(exact, "identical input bytes"), affected))
    findings += _near_finding(rows, inputs, digests, dataset.ids, subject, affected)
    return findings


def pin_findings(runs: list[Run], data_sha: str, split_sha: str,
                 claims: ClaimIndex) -> list[Finding]:
    """``split-mismatch`` per run whose pinned data or split hash differs from the rebuilt one."""
    findings = []
    for run in runs:
        pinned = {"data_sha256": data_sha, "split_sha256": split_sha}
        wrong = [f"{key} pinned {run.meta.get(key)!r}, rebuilt {value!r}"
                 for key, value in pinned.items() if run.meta.get(key) not in (None, value)]
        if wrong:
            findings.append(Finding(
                "split-mismatch", "error", run.run_id,
                f"{run.exp_id}/{run.variant} seed={run.seed}: {'; '.join(wrong)}; the data or "
                f"split checked for leakage is not the one this run trained on",
                claims.claims_for(run.exp_id, run.variant)))
    return findings


def exact_duplicates(rows: dict[str, np.ndarray], digests: list[bytes],
                     ids: np.ndarray) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Per split pair, the (id, id) pairs of samples whose input digests are equal."""
    by_digest: dict[str, dict[bytes, list[int]]] = {}
    for name, members in rows.items():
        table = by_digest.setdefault(name, {})
        for row in members:
            table.setdefault(digests[row], []).append(int(row))
    found: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for first, second in combinations(rows, 2):
        for digest, members in by_digest[first].items():
            for other in by_digest[second].get(digest, ()):
                found.setdefault((first, second), []).append(
                    (int(ids[members[0]]), int(ids[other])))
    return found


def near_duplicates(rows: dict[str, np.ndarray], inputs: np.ndarray, digests: list[bytes],
                    ids: np.ndarray) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Per split pair, the (id, id) pairs that match the near-duplicate rule of the docstring."""
    unit = _unit_rows(inputs)
    found: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for first, second in combinations(rows, 2):
        left, right = rows[first], rows[second]
        for start in range(0, len(left), CHUNK_ROWS):
            block = left[start:start + CHUNK_ROWS]
            hits = np.argwhere(unit[block] @ unit[right].T >= NEAR_CORRELATION)
            for i, j in hits:
                a, b = int(block[i]), int(right[j])
                if digests[a] != digests[b]:
                    found.setdefault((first, second), []).append((int(ids[a]), int(ids[b])))
    return found


def _unit_rows(inputs: np.ndarray) -> np.ndarray:
    centred = inputs.astype(np.float64) - inputs.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    # A zero-variance row stays all-zero: its correlation with anything is 0, never a match.
    return np.divide(centred, norms, out=np.zeros_like(centred), where=norms > 0)


def _near_finding(rows, inputs, digests, ids, subject, affected) -> list[Finding]:
    pairs = sum(len(rows[a]) * len(rows[b]) for a, b in combinations(rows, 2))
    if pairs > NEAR_PAIR_BUDGET:
        return [Finding("leakage-near", "info", subject,
                        f"near-duplicate check skipped: {pairs} cross-split pairs exceed the "
                        f"budget of {NEAR_PAIR_BUDGET}", affected)]
    near = near_duplicates(rows, inputs, digests, ids)
    if not near:
        return []
    rule = f"input correlation >= {NEAR_CORRELATION}"
    return [Finding("leakage-near", "warning", subject, _describe(near, rule), affected)]


def _describe(found: dict[tuple[str, str], list[tuple[int, int]]], rule: str) -> str:
    parts = []
    for (first, second), pairs in sorted(found.items()):
        examples = ", ".join(f"{a}~{b}" for a, b in pairs[:EXAMPLES])
        parts.append(f"{len(pairs)} {first}/{second} pairs (sample ids {examples})")
    return f"samples shared across splits ({rule}): " + "; ".join(parts)
