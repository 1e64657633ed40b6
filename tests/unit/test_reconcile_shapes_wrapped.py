"""Shapes of results the real corpus's forty-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: aider's SWE Bench posts, whose
tables wrap their column names over lines with `<br>` (`Score&nbsp;on<br>SWE&nbsp;Bench<br>Lite`)
above cells that stack nothing. The snippets follow those shapes, with numbers of their own."""

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
