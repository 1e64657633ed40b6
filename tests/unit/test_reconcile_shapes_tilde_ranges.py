"""Shapes of results the real corpus's seventy-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a tracker's getting-started page
giving a range with a tilde (``HOTA = 52.1 ~ 52.6``) under a command; a graph library's run
count in a list item above its table (``The average of 5 experiments.``); a paper's caption
over several lines whose last gives the run count (``Metrics are averaged over 5
experiments.``). The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

HOTA = [alias_claim("dancetrack", "tracker", "hota", 52.3, ["Tracker", "DanceTrack", "HOTA"],
                    unit=None)]
RANGE = """\
| Dataset | HOTA |
|---|---|
| DanceTrack | TABLE |

* **on DanceTrack**
    ```shell
    python tools/run.py --expn $exp_name
    ```
    This gives HOTA = 51.8 ~ 52.9.
"""


@pytest.mark.parametrize("table, found", [("52.3", set()),
                                          ("52.7", {("52.7", "dancetrack/tracker/hota/test")})],
                         ids=["clean", "drifted"])
def test_the_ends_of_a_range_written_with_a_tilde_are_no_result(tmp_path, table, found):
    # before, `51.8 ~ 52.9` read as two values, each held against the table's HOTA
    report = run(tmp_path, HOTA, RANGE.replace("TABLE", table))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found


def test_a_tilde_before_one_number_alone_still_says_about(tmp_path):
    report = run(tmp_path, HOTA, "On DanceTrack, the Tracker gives HOTA = ~52.9.\n")
    assert [(item["found"], item["claim"]) for item in report["drift"]] == [
        ("52.9", "dancetrack/tracker/hota/test")]


F1 = [alias_claim("imdb", "magnn", "macro_f1", 61.52, ["MAGNN", "IMDb", "Macro-F1"], n=5)]
LISTED = """\
## Performance: Node classification

-   Dataset: IMDb
-   The average of RUNS experiments.

| Model | Macro-F1 |
| ----- | -------- |
| MAGNN | 61.52%   |
"""


@pytest.mark.parametrize("runs, found", [("5", set()), ("4", {"average of 4 experiments"}),
                                         ("five", set())], ids=["clean", "drifted", "word"])
def test_the_average_of_a_number_of_experiments_is_a_run_count(tmp_path, runs, found):
    # before, `The average of 4 experiments.` was read as no run count at all
    report = run(tmp_path, F1, LISTED.replace("RUNS", runs))
    assert {item["found"] for item in report["drift"]} == found
    assert any(item["part"] == "seeds" for item in report["matched"] + report["drift"])


QUAD = [alias_claim("hover", "ours", "height_error", 0.05, ["Ours", "Hover", "Height Error"],
                    unit=None, direction="lower", n=5)]
CAPTION = r"""\begin{table}[t]
\caption{\label{tab:results} \textbf{Real-World Results:} We compare our controller with a
PID controller on hovering.
Metrics are averaged over RUNS experiments.}
\begin{tabular}{lc}
\toprule
 & Height Error \\
\midrule
Ours & 0.05 \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_a_number_on_a_caption_s_third_line_is_reported_on_that_line(tmp_path):
    # before, every number of a caption over several lines was reported on its first line
    report = run(tmp_path, QUAD, CAPTION.replace("RUNS", "7"), "paper.tex")
    assert [(item["found"], item["line"]) for item in report["drift"]] == [
        ("averaged over 7 experiments", 4)]
