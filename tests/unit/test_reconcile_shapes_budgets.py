"""Shapes of results the real corpus's thirty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a physics-informed network's
results notes, whose tables hold backticked `mean ± std` cells under a caption
`Selected-checkpoint means (20 seeds):`, whose paired tests give signed differences in code
spans with their unit (`` `-64.08 s` ``), and whose bullets say `Error` for the total error of
one experiment and the relative L2 error of another. The snippets follow those shapes, with
numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _means(exp: str, metric: str, values: dict[str, float], heading: str,
           metric_name: str) -> list[dict]:
    return [alias_claim(exp, variant, metric, value, [variant, heading, metric_name],
                        direction="lower", unit=None, n=20)
            for variant, value in values.items()]


MEANS = _means("longrun", "total_error", {"apt": 0.2442, "halton": 0.2612}, "Long-Run",
               "Total Error")
MEANS_TABLE = ("## Long-Run (20 Seeds)\n\nSelected-checkpoint means (20 seeds):\n\n"
               "| Method | Total Error |\n| --- | ---: |\n"
               "| `apt` | `{apt} ± 0.1357` |\n| `halton` | `0.2612 ± 0.1466` |\n")


@pytest.mark.parametrize("apt, found", [("0.2442", set()), ("0.2447", {("apt", "0.2447")})],
                         ids=["clean", "drifted"])
def test_a_caption_of_means_over_seeds_offers_no_checkpoint_to_download(tmp_path, apt, found):
    # before, `checkpoint` made it a table of released models, each a single run's number, so
    # no claim of twenty seeds was left for its cells and the drift went unseen
    report = run(tmp_path, MEANS, MEANS_TABLE.format(apt=apt))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    # the two cells, and the caption's seed count
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 3


def _paired(exp: str, metric: str, difference: float, heading: str, word: str) -> dict:
    return alias_claim(exp, "halton-vs-apt", metric, -difference,
                       ["apt", "Halton", "mean paired diff", heading, word],
                       direction="lower", unit=None, candidate="halton", baseline="apt",
                       difference=difference)


ERRORS = [_paired("maxwell", "total_error", 0.01707, "Maxwell", "Error"),
          _paired("maxwell", "fixed_rms_residual", 5.289, "Maxwell", "Residual"),
          _paired("poisson", "rel_l2_error", 0.03935, "Poisson", "Error"),
          _paired("poisson", "rel_fixed_l2_residual", -0.00445, "Poisson", "Residual")]
ERROR_NOTES = ("## Maxwell\n\nPaired test (`apt` vs `halton`):\n\n"
               "- Error: mean paired diff = `{maxwell}`, `p = 0.1008`\n"
               "- Residual: mean paired diff = `+5.289`, `p = 0.5170`\n\n"
               "## Poisson\n\nPaired test (`apt` vs `halton`):\n\n"
               "- Error: mean paired diff = `+0.03935`, `p = 0.2939`\n"
               "- Residual: mean paired diff = `-0.00445`, `p = 0.9108`\n")


@pytest.mark.parametrize("maxwell, found", [("+0.01707", set()),
                                            ("+0.01703", {("maxwell", "+0.01703")})],
                         ids=["clean", "drifted"])
def test_a_word_of_each_experiment_s_metric_names_the_metric_its_heading_s_experiment_has(
        tmp_path, maxwell, found):
    # before, `Error` (an alias of two metrics) named no metric, nor did the headings (each
    # experiment's two), so neither error was read
    report = run(tmp_path, ERRORS, ERROR_NOTES.format(maxwell=maxwell))
    assert {(item["claim"].split("/")[0], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 4


ANNOTATORS = [alias_claim("ilsvrc", variant, "top5_error", value, [*names, "top-5 error"],
                          direction="lower")
              for variant, names, value in (("human", ["My own error", "human"], 5.1),
                                            ("googlenet", ["GoogLeNet"], 6.8))]


@pytest.mark.parametrize("mine", ["5.1", "5.3"], ids=["clean", "drifted"])
def test_the_run_a_number_is_compared_to_after_it_is_not_the_number_s(tmp_path, mine):
    # before, GoogLeNet (named after `compared to`) took the 5.1%: a false drift on the clean
    # copy; the sentence names no run of its own, so the number stays an unnamed one's
    text = (f"My top-5 error turned out to be {mine}%, compared to GoogLeNet top-5 error "
            "of 6.8%.\n")
    report = run(tmp_path, ANNOTATORS, text)
    assert [(item["claim"].split("/")[1], item["found"]) for item in report["drift"]] == []


PAIRED = [alias_claim("longrun", "apt", "runtime", 135.3, ["apt", "Runtime (s)"],
                      direction="lower", unit=None),
          alias_claim("longrun", "halton-vs-apt", "runtime", 64.08,
                      ["apt", "Halton", "mean paired diff", "Runtime"], direction="lower",
                      unit=None, candidate="halton", baseline="apt", difference=-64.08)]
PAIRED_NOTES = ("| Method | Runtime (s) |\n| --- | ---: |\n| `apt` | `135.3` |\n\n"
                "Paired test (`apt` vs `halton`):\n\n"
                "- Runtime: mean paired diff = `{diff} s` (Halton faster)\n")


@pytest.mark.parametrize("diff, found", [("-64.08", set()), ("-64.03", {"-64.03"})],
                         ids=["clean", "drifted"])
def test_a_code_span_of_a_number_and_its_unit_is_read_in_the_unit_the_evidence_names(
        tmp_path, diff, found):
    # before, `-64.08 s` was code (not read), and no claim's metric id said it is measured in
    # seconds: the evidence says so only in the name `Runtime (s)`
    report = run(tmp_path, PAIRED, PAIRED_NOTES.format(diff=diff))
    assert {item["found"] for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2
