"""Shapes of results the real corpus's twenty-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a recipe's training-stability
table whose rows are the evaluation splits and whose columns are each seed's word error rate,
then ``Mean`` and ``Std`` (``| dev-clean | 3.46 | 3.55 | … | 3.39 | 0.11 |``). The snippets
follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _seeds(split: str, mean: float, std: float) -> dict:
    return {**alias_claim("librispeech", "jasper_seeds", "wer", mean,
                          ["Jasper", "Mean", "word error rates", split.replace("_", "-")],
                          variance={"type": "std", "value": std}, n=4),
            "id": f"librispeech/jasper_seeds/wer/{split}", "split": split,
            "direction": "lower"}


STABLE = [_seeds("dev_clean", 3.40, 0.11), _seeds("dev_other", 10.25, 0.27)]
TABLE = ("The following table compares greedy decoding word error rates across 4 different "
         "training runs of Jasper.\n\n"
         "| DGX A100 80GB, FP16, 8x GPU | Seed #1 | Seed #2 | Seed #3 | Seed #4 | Mean | Std |\n"
         "|---:|---:|---:|---:|---:|---:|---:|\n"
         "| dev-clean | 3.46 | 3.55 | 3.25 | 3.34 | 3.40 | {std} |\n"
         "| dev-other | 10.30 | 10.77 | 9.99 | 9.94 | 10.25 | 0.27 |\n")


@pytest.mark.parametrize("std, found", [("0.11", []), ("0.14", ["0.14"])])
def test_a_std_column_beside_a_mean_column_holds_the_mean_s_spread(tmp_path, std, found):
    # before, the Std column (headed "Mean Std", after the mean it qualifies) was read as a
    # header naming a mean with its spread: 0.11 was held against the mean 3.40
    report = run(tmp_path, STABLE, TABLE.format(std=std))
    assert [item["found"].lstrip("± ") for item in report["drift"]] == found
    assert [item["part"] for item in report["drift"]] == ["spread"] * len(found)
    assert report["unmapped"] == []
