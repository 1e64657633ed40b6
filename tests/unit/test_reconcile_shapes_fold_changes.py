"""Shapes of results the real corpus's seventy-ninth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a manuscript's prose giving a
change by a factor (``shared clusters per comparison rose 2.5-fold (1.31 versus 0.52 …)``)
where a run count would be read. The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("stability", "concordant", "shared_clusters", 1.42,
                      ["concordant training", "shared clusters per comparison"], unit=None,
                      n=1)]


@pytest.mark.parametrize("change", ["rose 2.5-fold", "rose 3-fold", "increased by 2-fold"])
def test_a_change_by_a_factor_is_no_run_count(tmp_path, change):
    # before, the `5-fold` of `2.5-fold` (or a whole factor after `rose`) was read as five
    # folds of cross-validation, held against the claim's run count
    text = (f"Under concordant training, shared clusters per comparison {change} "
            "(1.42 versus 0.55 on the 40 matched comparisons).\n")
    report = run(tmp_path, CLAIMS, text)
    assert report["drift"] == [] and report["unmapped"] == []
    assert [item["found"] for item in report["matched"]] == ["1.42"]


def test_a_count_of_folds_is_still_a_run_count(tmp_path):
    claims = [{**CLAIMS[0], "n": 5}]  # (five folds, four written)
    text = ("Under concordant training, shared clusters per comparison were 1.42 over "
            "4 folds.\n")
    report = run(tmp_path, claims, text)
    assert [(item["found"], item["part"]) for item in report["drift"]] == [("4 folds", "seeds")]
