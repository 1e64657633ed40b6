"""Read ``predictions.parquet``: the per-sample records verify re-derives and checks metrics from.

Columns (docs/contracts.md): ``split`` and ``sample_id`` always; then any of ``label`` (true
class), ``prediction`` (argmax class), ``scores`` (class probabilities, rows x C), ``nll`` (-log
p(true label), summed over the row's tokens when ``tokens`` is given), ``correct`` (0/1) and
``tokens`` (how many predictions a row stands for, e.g. a sequence's tokens). ``rgt evaluate``
writes the full form; a user's own loop may write the compact one (``label`` + ``nll`` for a
language model is a few bytes a token instead of a vocabulary-wide row). A check that needs a
column the records lack is not run, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from rgt.base.errors import RunStateError

REQUIRED = ("split", "sample_id")
OPTIONAL = ("label", "prediction", "scores", "nll", "correct", "tokens")


@dataclass(frozen=True)
class Predictions:
    """Per-sample records: the split of each row and whichever optional columns were written."""

    split: np.ndarray
    label: np.ndarray | None = None
    prediction: np.ndarray | None = None
    scores: np.ndarray | None = None
    nll: np.ndarray | None = None
    correct: np.ndarray | None = None
    tokens: np.ndarray | None = None

    def select(self, split: str) -> Predictions:
        """The rows of one split."""
        mask = self.split == split
        return Predictions(**{f.name: None if getattr(self, f.name) is None
                              else getattr(self, f.name)[mask] for f in fields(self)})

    def __len__(self) -> int:
        return len(self.split)

    @property
    def has_top1(self) -> bool:
        """Argmax predictions and labels are both known."""
        return self.prediction is not None and self.label is not None

    def correct_flags(self) -> np.ndarray | None:
        """Per row, whether the prediction is right (from ``correct`` or prediction == label)."""
        if self.correct is not None:
            return self.correct.astype(np.float64)
        return (self.prediction == self.label).astype(np.float64) if self.has_top1 else None

    def true_label_nll(self) -> np.ndarray | None:
        """-log p(true label) per row: the ``nll`` column, else from ``scores`` (clipped at
        float32's tiny); None when neither can give it."""
        if self.nll is not None:
            return self.nll.astype(np.float64)
        if self.scores is None or self.label is None or not len(self.label) or \
                self.scores.shape[1] <= int(self.label.max()):
            return None
        picked = self.scores[np.arange(len(self.label)), self.label]
        # An underflowed float32 probability would give -log(0) = inf for a finite stored loss.
        return -np.log(np.clip(picked, np.finfo(np.float32).tiny, None))

    def weights(self) -> np.ndarray:
        """How many predictions each row stands for (``tokens``, else 1)."""
        return np.ones(len(self.split)) if self.tokens is None else self.tokens.astype(np.float64)

    @property
    def n_classes(self) -> int:
        """C: the width of ``scores``, or one more than the largest class seen."""
        if self.scores is not None and self.scores.shape[1]:
            return int(self.scores.shape[1])
        seen = [a for a in (self.label, self.prediction) if a is not None]
        values = np.concatenate(seen) if seen else np.zeros(0, dtype=np.int64)
        return int(values.max()) + 1 if values.size else 0


NO_RECORDS = Predictions(split=np.zeros(0, dtype=object))


def load_predictions(path: Path) -> Predictions:
    """Load ``path``; ``NO_RECORDS`` when the run wrote none; a missing required column or
    ragged ``scores`` is a ``RunStateError``."""
    if not path.is_file():
        return NO_RECORDS
    try:
        # ParquetFile.read skips read_table's dataset layer: ~3x faster on small files
        with pq.ParquetFile(path) as parquet:
            table = parquet.read()
    except (OSError, ValueError) as error:
        raise RunStateError(f"{path} is unreadable: {error}",
                            fix="re-run the stage that writes it (`rgt evaluate`, or your "
                                "script's run.finish)") from error
    missing = [name for name in REQUIRED if name not in table.column_names]
    if missing:
        raise RunStateError(f"{path} lacks columns {missing}",
                            fix="write per-sample records with `split` and `sample_id`")
    columns = {name: _column(table, name, path) for name in OPTIONAL
               if name in table.column_names}
    return Predictions(split=np.asarray(table.column("split").to_pylist(), dtype=object),
                       **columns)


def _column(table, name: str, path: Path) -> np.ndarray:
    if name == "scores":
        return _scores_matrix(table.column(name), path)
    values = table.column(name).to_numpy()
    return values.astype(np.int64) if name in ("label", "prediction") else values


def _scores_matrix(column, path: Path) -> np.ndarray:
    array = column.combine_chunks()
    if len(array) == 0:
        return np.zeros((0, 0))
    lengths = array.value_lengths().to_numpy(zero_copy_only=False)
    if array.null_count or len(set(lengths.tolist())) != 1:
        raise RunStateError(f"{path}: `scores` rows are null or of different lengths",
                            fix="re-run `rgt evaluate`")
    values = array.flatten().to_numpy(zero_copy_only=False).astype(np.float64)
    return values.reshape(len(array), int(lengths[0]))
