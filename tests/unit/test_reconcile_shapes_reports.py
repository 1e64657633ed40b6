"""Shapes of results the real corpus's forty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a thesis's classification report
(scikit-learn's layout, as a LaTeX `tabular`) whose per-class rows are followed by `Accuracy`,
`Macro average` and `Weighted average` rows, the summary figures in the `F1-score` column as
bold fractions (`\\bf{0.25}`) of the percentages the evidence holds. The snippet follows that
shape, with numbers of its own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

RUN = ["synthetic document images", "annotated real document images"]
SUMMARY = [alias_claim("realdocs", "synthetic", "accuracy", 26.0, [*RUN, "Accuracy"]),
           alias_claim("realdocs", "synthetic", "macro_f1", 28.0,
                       [*RUN, "Macro average", "macro average F1-score"]),
           alias_claim("realdocs", "synthetic", "weighted_f1", 30.0,
                       [*RUN, "Weighted average", "weighted average F1-score"])]
REPORT = r"""\begin{table}[H]
    \begin{tabular}{lcccc}
        \toprule
            & Precision & Recall & F1-score & Support\\
        \midrule
        DE\_LY\_Arm & 0.65 & 0.50 & 0.56 & 44\\
        \midrule
        Accuracy              &      &      & \bf{0.26} & 1162\\
        Macro average         & 0.46 & 0.29 & \bf{%s} & 1162\\
        Weighted average      & 0.74 & 0.25 & \bf{0.30} & 1162\\
        \bottomrule
    \end{tabular}
    \caption{Classification report of a classifier trained on synthetic document images.}
\end{table}
"""


@pytest.mark.parametrize("macro, found", [("0.28", set()), ("0.24", {"0.24"})],
                         ids=["clean", "drifted"])
def test_a_classification_report_s_summary_rows_are_their_metrics(tmp_path, macro, found):
    # before, the column's F1-score (a metric the evidence does not hold) decided the summary
    # cells' metric, so no claim was left: not one of them was read
    report = run(tmp_path, SUMMARY, REPORT % macro, "evaluation.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[2] for item in report["drift"] + report["matched"]} == {
        "accuracy", "macro_f1", "weighted_f1"}
    assert report["unmapped"] == []
