"""Shapes of results the real corpus's seventy-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a sleep-monitoring paper's LaTeX,
its own system named only through a macro braced alone (``{\\systemname}``) in rows beside
other systems', a transposed table's row of counts (``Labeled \\#body rollover``) above its
row of accuracies, and a confusion matrix's ``\\multirow{4}*{{Recall}}`` column. The snippets
follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

STAGES = [alias_claim(f"stage_{stage}", "ours", metric, value,
                      ["{\\systemname}", f"{stage.title()} Sleep", header])
          for stage, metric, header, value in (("light", "precision", "Precision", 66.5),
                                               ("light", "recall", "Recall", 69.6))]
COMPARISON = r"""\begin{table}
\caption{Performance of sleep stage detection comparison.}
\begin{tabular}{c|cc}
\diagbox{System}{Stage} & \multicolumn{2}{c}{Light Sleep} \\
 & Precision & Recall \\
\hline
\textbf{\footnotesize {\systemname}} & $OURS\%$ & $69.6\%$ \\
\textbf{\footnotesize Sleep As Android} & $27.8\%$ & $35.4\%$ \\
\textbf{\footnotesize Sleep Hunter} & $66.7\%$ & $66.1\%$ \\
\end{tabular}
\end{table}
"""


@pytest.mark.parametrize("ours, found", [("66.5", set()),
                                         ("66.8", {("66.8%", "stage_light/ours/precision/test")})],
                         ids=["clean", "drifted"])
def test_a_paper_s_own_system_named_by_a_macro_braced_alone_is_its_row(tmp_path, ours, found):
    # before, `{\systemname}` typeset to nothing: the project's row named nothing, and the
    # other systems' rows below it were held against its claims
    report = run(tmp_path, STAGES, COMPARISON.replace("OURS", ours), "paper.tex")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)


ACCURACIES = (91, 94, 88, 93, 96, 94, 87, 90)
COUNTS = (231, 204, 442, 397, 198, 101, 196, 164)
ROLLOVER = [alias_claim(f"rollover_user_{user}", "ours", "accuracy", float(value),
                        ["{\\systemname}", "Detection accuracy of body rollover.",
                         "Performance of Body Rollover Counting", "body rollover",
                         "Testing User ID", "Accuracy", str(user)])
            for user, value in enumerate(ACCURACIES, start=1)] + [
    alias_claim("posture", "ours-vs-monitor", "accuracy", 5.0, ["{\\systemname}", "SleepMonitor"],
                candidate="ours", baseline="monitor", difference=5.0)]  # a second run
TRANSPOSED = r"""\subsubsection{Performance of Body Rollover Counting}
\begin{table}
\caption{Detection accuracy of body rollover.}
\begin{tabular}{ccccccccc}
\toprule
\textbf{Testing User ID} & 1 & 2 & 3 & 4 & 5 & 6 & 7 & 8 \\
\midrule
{Labeled \#body rollover} & COUNTS \\
{ Accuracy} & ACCURACIES \\
\bottomrule
\end{tabular}
\end{table}
""".replace("COUNTS", "&".join(map(str, COUNTS)))


def _accuracies(second: str) -> str:
    cells = [str(value) for value in ACCURACIES]
    return "&".join(f"{cell}\\%" for cell in [cells[0], second, *cells[2:]])


@pytest.mark.parametrize("user2, found", [("94", set()),
                                          ("93", {("93%", "rollover_user_2/ours/accuracy/test")})],
                         ids=["clean", "drifted"])
def test_a_row_that_counts_is_no_result(tmp_path, user2, found):
    # before, the counts above the accuracies were held against the accuracy claims, one
    # false drift a user
    report = run(tmp_path, ROLLOVER, TRANSPOSED.replace("ACCURACIES", _accuracies(user2)),
                 "paper.tex")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 8 - len(found)


def test_a_row_of_counts_of_a_metric_of_the_evidence_is_still_read(tmp_path):
    params = [alias_claim("imagenet", "ours", "params", 25, ["Ours", "#Params"], unit=None)]
    text = "| | Ours |\n|---|---|\n| #Params | 27 |\n"
    report = run(tmp_path, params, text)
    assert [(item["found"], item["claim"]) for item in report["drift"]] == [
        ("27", "imagenet/ours/params/test")]


POSTURES = [alias_claim(f"posture_{name.lower()}", "ours", "recall", value,
                        ["{\\systemname}", name, "Recall"])
            for name, value in (("Supine", 96.7), ("Prone", 95.9))]
POSTURES += ROLLOVER  # whose ``2`` names a user
MATRIX = r"""\begin{tabular}{c|c|cc|c}
\multirow{2}*{} & \multirow{2}*{{Result}} & \multicolumn{2}{c|}{{Prediction}}
 & \multirow{4}*{{Recall}} \\
\cline{3-4}
 & & {Supine} & {Prone} & \\
\hline
\multirow{2}*{{Groundtruth}} & {Supine} & {\bf{{1182}}} & $9$ & {SUPINE\%} \\
 & {Prone} & $19$ & {\bf{{567}}} & {95.9\%} \\
\end{tabular}
"""


@pytest.mark.parametrize("supine, found", [
    ("96.7", set()), ("96.2", {("96.2%", "posture_supine/ours/recall/test")})],
                         ids=["clean", "drifted"])
def test_a_multirow_whose_width_is_a_bare_star_heads_its_column(tmp_path, supine, found):
    # before, `\multirow{2}*{{Result}}` read as the header `2*Result`, whose `2` names
    # another table's claims (user 2's): the recall column was left alone
    report = run(tmp_path, POSTURES, MATRIX.replace("SUPINE", supine), "paper.tex")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)
