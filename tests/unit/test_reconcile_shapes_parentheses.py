"""Shapes of results in prose that the real corpus's `dev` part holds (AlpacaEval's README on
its evaluators), read as a reader reads them: each number in parentheses right after the
metric it states (`strong bias towards longer outputs (0.74) and relatively low correlation
with human annotations (63.2)`), and a comparison's other side after `than`. The snippets
follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run


def _evaluator(name: str, metric: str, value: float, aliases: list[str]) -> dict:
    return alias_claim("evaluators", name, metric, value, [name, "human annotations", *aliases],
                       unit="")


CLAIMS = [_evaluator("lmsys", "proba_prefer_longer", 0.71, ["bias towards longer outputs"]),
          _evaluator("lmsys", "bias", 30.2, ["Bias"]),
          _evaluator("lmsys", "human_agreement", 64.8, ["correlation with human annotations"]),
          _evaluator("humans", "human_agreement", 66.1,
                     ["humans", "correlation with human annotations"])]
SENTENCE = ("- **lmsys** The lmsys annotator asks for a score. Overall, we found that this "
            "annotator has strong bias towards longer outputs (0.71) and relatively low "
            "correlation with human annotations ({value}).\n")


@pytest.mark.parametrize("value, found", [("64.8", set()), ("63.9", {"63.9"})],
                         ids=["clean", "drifted"])
def test_a_number_in_parentheses_states_the_metric_right_before_them(tmp_path, value, found):
    # before, the correlation's number was held against the length bias, named outright
    # (a metric's word, `bias`) where the correlation's name only implies its metric
    report = run(tmp_path, CLAIMS, SENTENCE.format(value=value))
    assert_drifts(report, found, "evaluators/lmsys/human_agreement/test", 2)


@pytest.mark.parametrize("value, found", [("64.8", set()), ("65.2", {"65.2"})],
                         ids=["clean", "drifted"])
def test_the_run_after_than_is_the_other_side(tmp_path, value, found):
    # before, `than humans themselves` named the run of the number before it
    text = ("- **Vicuna** The lmsys annotator asks for a score. Overall, we found that this "
            "annotator is faster than others. It has a slightly higher correlation with human "
            f"annotations ({value}) than humans themselves (66.1).\n")
    report = run(tmp_path, CLAIMS, text)
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {(number, "evaluators/lmsys/human_agreement/test") for number in found}
    assert [item["found"] for item in report["matched"]] == [value, "66.1"][len(found):]


def _accuracy(variant: str, statistic: str, value: float, name: str) -> dict:
    claim = alias_claim("xnli", variant, f"accuracy_{statistic}", value,
                        [variant.upper(), "XNLI", "Accuracy", name])
    return {**claim, "id": claim["id"].replace("/test", "/dev"), "split": "dev"}


RUNS = [_accuracy(variant, statistic, value, name) for variant, best, mean in (
    ("wwm", 79.0, 78.4), ("ext", 79.4, 78.8))
    for statistic, value, name in (("max", best, "max performances"),
                                   ("mean", mean, "Average scores"))]
NOTE = ("**Note: we run 10 times for each experiment and report maximum and average "
        "scores.**\n\n**Average scores are in brackets, and max performances are the numbers "
        "that out of brackets.**\n\n### XNLI\nEvaluation Metrics: Accuracy\n\n"
        "| Model | Development |\n| :-- | :--: |\n| WWM | 79.0 ({mean}) |\n| EXT | 79.4 (78.8) |\n")


@pytest.mark.parametrize("mean, found", [("78.4", set()), ("78.8", {"78.8"})],
                         ids=["clean", "drifted"])
def test_a_note_says_what_a_cell_s_brackets_hold(tmp_path, mean, found):
    # before, `79.0 (78.4)` read as two numbers of one run that no name told apart: neither
    # was checked
    report = run(tmp_path, RUNS, NOTE.format(mean=mean))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 4 - len(found)
