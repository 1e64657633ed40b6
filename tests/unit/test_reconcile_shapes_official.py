"""Shapes of results the real corpus's sixty-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: MMTracking's model zoo, where the
official system's row sits among the project's own, told apart only by a star that the
paragraph above the table explains, and a run's name wraps before its qualifier (`Tracktor <br>
(FP16)`); a thesis's table of two subtables under one caption that says each one's metric;
and, from `dev`, a win-rate table whose `BASELINE:` row is the one the rates are against.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("mot17", "tracker-public", metric, value, ["Tracker", "Y", header])
          for metric, value, header in (("mota", 61.2, "MOTA"), ("idf1", 58.4, "IDF1"))]
PAGE = ("# Results\n\nIn the table below, the result marked with * (the last line) is the "
        "official one.\nOur implementation outperforms it.\n\n"
        "| Method | Public | MOTA | IDF1 |\n| :-: | :-: | :-: | :-: |\n"
        "| Tracker | Y | OURS | 58.4 |\n| Tracker\\* | Y | 56.3 | 55.1 |\n")


@pytest.mark.parametrize("ours, found", [("61.2", set()), ("61.9", {"61.9"})],
                         ids=["clean", "drifted"])
def test_a_row_whose_star_the_paragraph_above_calls_official_is_not_ours(tmp_path, ours, found):
    # before, `Tracker\*` named our run as well, and its 56.3 and 55.1 drifted from it
    report = run(tmp_path, CLAIMS, PAGE.replace("OURS", ours))
    assert_drifts(report, found, "mot17/tracker-public/mota/test", 2)


def test_a_starred_row_without_such_a_sentence_is_still_read(tmp_path):
    page = PAGE.replace("is the official one", "is trained longer").replace("OURS", "61.2")
    report = run(tmp_path, CLAIMS, page)
    assert {item["found"] for item in report["drift"]} == {"56.3", "55.1"}


FP16 = [alias_claim("mot17", variant, "idsw", value, names + ["N", "IDSw."], unit=None,
                    direction="lower")
        for variant, value, names in (("tracker-private", 1233, ["Tracker"]),
                                      ("tracker-fp16", 1152, ["Tracker <br> (FP16)", "FP16"]))]
STACKED = ("| Method | Public | IDSw. | Config |\n| :-: | :-: | :-: | :-: |\n"
           "| Tracker | N | 1233 | [config](a.py) |\n"
           "| Tracker <br> (FP16) | N | FP16 | [config](b.py) |\n")


@pytest.mark.parametrize("fp16, found", [("1152", set()), ("1148", {"1148"})],
                         ids=["clean", "drifted"])
def test_a_name_wrapped_before_its_bracketed_qualifier_is_one_name(tmp_path, fp16, found):
    # before, `Tracker <br> (FP16)` read as two names in turn, `Tracker / (FP16)`, which
    # named both runs: a changed count fitted neither
    report = run(tmp_path, FP16, STACKED.replace("| FP16 |", f"| {fp16} |"))
    assert_drifts(report, found, "mot17/tracker-fp16/idsw/test", 2)


def _task(exp: str, metric: str, value: float, names: list[str]) -> dict:
    return alias_claim(exp, "student", metric, value, ["\\TableModel{student}"] + names,
                       unit=None)


TASKS = [_task("arxiv", "accuracy", 0.645, ["arxiv", "Classification tasks",
                                            "binary or micro accuracy"]),
         _task("classification", "mean_accuracy", 0.680, ["Mean", "Classification tasks",
                                                          "binary or micro accuracy"]),
         _task("games", "map", 0.198, ["games", "Retrieval tasks"])]
SUBTABLES = (
    "\\begin{table}\n\\begin{subtable}{\\textwidth}\n\\begin{tabular}{lrr}\n\\toprule\n"
    "Model & arxiv & Mean \\\\\n\\midrule\n\\TableModel{student} & ARXIV & .680 \\\\\n"
    "\\bottomrule\n\\end{tabular}\n\\caption{Classification tasks}\n\\end{subtable}\n"
    "\\begin{subtable}{\\textwidth}\n\\begin{tabular}{lr}\n\\toprule\nModel & games \\\\\n"
    "\\midrule\n\\TableModel{student} & .198 \\\\\n\\bottomrule\n\\end{tabular}\n"
    "\\caption{Retrieval tasks}\n\\end{subtable}\n\\caption{Performance on all tasks. For "
    "classification tasks, we show binary or micro accuracy. For retrieval tasks, we show "
    "MAP.}\n\\end{table}\n")


@pytest.mark.parametrize("arxiv, found", [(".645", set()), (".649", {".649"})],
                         ids=["clean", "drifted"])
def test_a_caption_sentence_on_another_subtable_names_not_this_ones_metric(
        tmp_path, arxiv, found):
    # before, `For retrieval tasks, we show MAP.` named the classification subtable's metric
    # too, and no accuracy claim was left for its cells
    report = run(tmp_path, TASKS, SUBTABLES.replace("ARXIV", arxiv), "paper.tex")
    assert_drifts(report, found, "arxiv/student/accuracy/test", 3)


WIN_RATES = [alias_claim("tts_eval", "ours", "win_rate", 75.71,
                         ["Ours", "win rates", "mini-tts", "Emotions (%)"])]
AGAINST = ("| Model | Emotions (%) |\n|---|---|\n| Ours | OURS |\n| Rival | 61.64% |\n"
           "| **BASELINE:** mini-tts | 50.00% |\n")


@pytest.mark.parametrize("ours, found", [("75.71%", set()), ("75.17%", {"75.17%"})],
                         ids=["clean", "drifted"])
def test_a_row_a_baseline_s_word_marks_beside_ours_is_the_baseline_s(tmp_path, ours, found):
    # before, `BASELINE: mini-tts` named our run too (the baseline its win rate is against is
    # among its aliases), and the baseline's own 50.00% drifted from it
    report = run(tmp_path, WIN_RATES, AGAINST.replace("OURS", ours))
    assert_drifts(report, found, "tts_eval/ours/win_rate/test", 1)
