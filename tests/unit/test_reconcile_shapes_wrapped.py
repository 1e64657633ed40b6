"""Shapes of results the real corpus's forty-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: aider's SWE Bench posts, whose
tables wrap their column names over lines with `<br>` (`Score&nbsp;on<br>SWE&nbsp;Bench<br>Lite`)
above cells that stack nothing; a touch-prediction paper's `margintable` (tufte-latex) whose
rows of means are each followed by a row of their spreads in brackets, `&(7.36)&(7.82)`, the
caption saying `standard deviations (brackets)`, and its discussion listing spreads under
names and colons, `single models: … (SD = 2.67mm) ; general model: …`. The snippets follow
those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

BENCHMARKS = [alias_claim(exp, "attempt2_opus", "score", value,
                          ["Aider with Opus", benchmark, "Score on " + benchmark])
              for exp, benchmark, value in (("lite", "SWE Bench Lite", 3.4),
                                            ("full", "SWE Bench", 3.8))]
ATTEMPTS = ("| Attempt | Agent | Score&nbsp;on<br>SWE&nbsp;Bench<br>Lite |\n"
            "|:--:|---|--:|\n"
            "| 2 | Aider with Opus | {score}% |\n")


@pytest.mark.parametrize("score, found", [("3.4", set()), ("3.6", {"3.6%"})],
                         ids=["clean", "drifted"])
def test_a_header_wrapped_with_br_names_one_benchmark(tmp_path, score, found):
    # before, each <br> split the header into parts (`Score on / SWE Bench / Lite`): the
    # benchmark read was the other one, `SWE Bench`, and 3.4 was held against its 3.8
    report = run(tmp_path, BENCHMARKS, ATTEMPTS.format(score=score))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"] for item in report["drift"] + report["matched"]} == {
        "lite/attempt2_opus/score/test"}


STACKED = [alias_claim("cifar", role, "accuracy", value, [role.title(), "CIFAR"])
           for role, value in (("teacher", 75.61), ("student", 73.26))]


def test_a_header_over_stacked_cells_keeps_its_parts(tmp_path):
    # the bound: under a header whose cells stack parts too, the parts are read in turn
    text = ("| Model | Teacher <br> Student |\n|---|---|\n| CIFAR | 75.61 <br> 73.29 |\n")
    report = run(tmp_path, STACKED, text)
    assert {(item["claim"], item["found"]) for item in report["drift"]} == {
        ("cifar/student/accuracy/test", "73.29")}


def _touch(variant: str, phone: str, metric: str, value: float, spread: float | None) -> dict:
    names = {"error": ["Average test euclidean distances (mm)", "euclidean distances"],
             "area": ["Ellipse areas", "elliptic envelope"]}[metric]
    return alias_claim(phone.lower(), variant, metric, value, [variant, phone, *names],
                       unit="", direction="lower", n=1, variance=spread and {
                           "type": "std", "value": spread})


TOUCH = [_touch("single", "S3", "error", 12.50, 7.36),
         _touch("single", "S4", "error", 17.25, 9.94),
         _touch("single", "S3", "area", 778.9, None), _touch("single", "S4", "area", 1588.0, None)]
MARGIN = ("\\begin{{margintable}}\n\\begin{{tabularx}}{{1\\marginparwidth}}{{XXd{{2.2}}}}\n"
          "\\toprule\n\\textbf{{Model}}&\\textbf{{Phone}}&\\textbf{{0ms}} \\\\\n\\midrule\n"
          "\\multirow{{4}}{{*}}{{\\textsc{{single}}}} &\\multirow{{2}}{{*}}{{\\textbf{{S3}}}} "
          "&12.50 \\\\\n&  &({s3}) \\\\\n\\cmidrule(r){{2-3}}\n"
          "&\\multirow{{2}}{{*}}{{\\textbf{{S4}}}} &{s4} \\\\\n&  &(9.94) \\\\\n\\bottomrule\n"
          "\\end{{tabularx}}%\n\\caption[Model results]{{\\small Average test euclidean "
          "distances (mm) and standard deviations (brackets) for single models.}}\n"
          "\\end{{margintable}}\n")


@pytest.mark.parametrize("s3, s4, found", [
    ("7.36", "17.25", set()), ("7.39", "17.25", {(7, "± 7.39")}),
    ("7.36", "17.29", {(9, "17.29")})], ids=["clean", "spread", "value"])
def test_a_margin_table_s_spreads_in_the_row_below(tmp_path, s3, s4, found):
    # before, a tufte margintable was no float (its caption, naming the metric, unread: no
    # cell was checked), and a row of bracketed numbers was a row of its own, not spreads
    report = run(tmp_path, TOUCH, MARGIN.format(s3=s3, s4=s4), "paper.tex")
    assert {(item["line"], item["found"]) for item in report["drift"]} == found
    assert {item["claim"].split("/")[2] for item in report["drift"] + report["matched"]} == {
        "error"}


ATTEMPT_CLAIMS = [alias_claim("lite", variant, "resolved", value, [*names, "SWE Bench Lite",
                                                                   "resolved solutions"])
                  for variant, value, names in (
                      ("attempt1_gpt4o", 61, ["Aider with GPT-4o", "Attempt 1"]),
                      ("attempt2_opus", 10, ["Aider with Opus", "Attempt 2"]),
                      ("attempt3_gpt4o", 3, ["Aider with GPT-4o", "Attempt 3"]),
                      ("both", 74, ["Aider with GPT-4o & Opus", "Total"]))]
BY_ATTEMPT = ("# SWE Bench Lite\n\n| Attempt | Agent | Number of<br>resolved<br>solutions |\n"
              "|:--:|---|--:|\n| 1 | Aider with GPT-4o | 61 |\n| 2 | Aider with Opus | 10 |\n"
              "| 3 | Aider with GPT-4o | {third} |\n| **Total** | | **{total}** |\n")


@pytest.mark.parametrize("third, total, found", [
    ("3", "74", set()), ("1", "74", {(7, "1")}), ("3", "72", {(8, "72")})],
    ids=["clean", "attempt", "total"])
def test_an_attempt_number_names_its_row_and_a_total_row_names_no_agent(tmp_path, third,
                                                                         total, found):
    # before, the attempt numbers named nothing (rows 1 and 3, one agent, were left alone),
    # and a total row's empty agent cell was the agent's above, naming two variants at once
    report = run(tmp_path, ATTEMPT_CLAIMS, BY_ATTEMPT.format(third=third, total=total))
    assert {(item["line"], item["found"]) for item in report["drift"]} == found
    assert {item["claim"].split("/")[1] for item in report["drift"] + report["matched"]} == {
        "attempt1_gpt4o", "attempt2_opus", "attempt3_gpt4o", "both"}


SPREADS = [alias_claim(f"all_{time}", variant, "error", value, [variant, f"{variant} model",
                                                                 time, "average errors"],
                       unit="", direction="lower", n=1, variance={"type": "std", "value": sd})
           for variant, time, value, sd in (("single", "0ms", 16.67, 2.47),
                                            ("single", "66ms", 18.82, 2.67),
                                            ("general", "0ms", 16.17, 1.88),
                                            ("general", "66ms", 18.05, 2.07))]
LISTED = ("Our average errors (single models: 16.67mm$_{{0ms}}$ (SD = 2.47mm) to "
          "18.82mm$_{{66ms}}$ (SD = {sd}mm) ; general model: 16.17mm$_{{0ms}}$ (SD = 1.88mm) "
          "to 18.05mm$_{{66ms}}$ (SD = 2.07mm)) will not allow content to be preloaded.\n")


@pytest.mark.parametrize("sd, found", [("2.67", set()), ("2.61", {"± 2.61"})],
                         ids=["clean", "drifted"])
def test_a_spread_listed_under_a_name_and_colon_is_that_run_s(tmp_path, sd, found):
    # before, the single models' last spread went to `general model`, the nearest name in
    # the sentence although it opens the next part, after the semicolon
    report = run(tmp_path, SPREADS, LISTED.format(sd=sd), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert ("all_66ms/single/error/test", f"± {sd}") in {
        (item["claim"], item["found"]) for item in report["drift"] + report["matched"]}
