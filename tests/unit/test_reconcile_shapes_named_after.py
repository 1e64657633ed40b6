"""Shapes of results the real corpus's forty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them, each a name written after its
number: an instance-segmentation README whose overview gives its best model's numbers as
`37.6 AP and 40 FPS with 608x input`, each number followed by its metric as by a unit, the AP
an alias of the test-dev claims only and FPS a metric's name outright; release notes giving
pairwise win rates as `a 99% win-rate vs LightGBM and a 100% win-rate vs XGBoost`, each before
the system it is against, and an older version's own figure as `(AutoGluon 0.8 previously took
first place 48% of the time)`, the word that would call a number superseded right after the
run it is about. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _on(split: str, claim: dict) -> dict:
    return {**claim, "split": split, "id": claim["id"].replace("/test", f"/{split}")}


BEST = [_on("val2017", alias_claim("coco", "giam_608", "mask_ap", 36.8,
                                   ["G-IAM", "input 608", "AP<sup>val</sup>"])),
        _on("test-dev", alias_claim("coco", "giam_608", "mask_ap", 37.2,
                                    ["G-IAM", "608x input", "AP"])),
        _on("val2017", alias_claim("coco", "giam_608", "fps", 41.0,
                                   ["SparseInst", "608x input", "FPS"])),
        _on("test-dev", alias_claim("coco", "base_640", "mask_ap", 33.5,
                                    ["SparseInst", "AP"]))]
OVERVIEW = ("SparseInst achieves a good trade-off, *e.g.*, {ap} AP and 41 FPS with 608x "
            "input.\n")


@pytest.mark.parametrize("ap, found", [("37.2", set()), ("37.5", {"37.5"})],
                         ids=["clean", "drifted"])
def test_a_metric_written_after_its_number_is_the_number_s(tmp_path, ap, found):
    # before, FPS (named outright later in the sentence) outranked AP (an alias that only
    # implies its metric): 37.5 AP was held against the 41 FPS claim, and its fix read 41.0;
    # then the clause's AP, an alias every run's test-dev AP carries, dropped the sentence's
    # run for the base model's
    report = run(tmp_path, BEST, OVERVIEW.format(ap=ap))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"] for item in report["drift"] + report["matched"]} == {
        "coco/giam_608/mask_ap/test-dev"}
    assert report["unmapped"] == []


SPEED = ("SparseInst has extremely fast inference speed and achieves **41 FPS** and "
         "**{ap} AP** on COCO (NVIDIA 2080Ti).\n")


def test_a_metric_only_an_alias_implies_binds_weakly(tmp_path):
    # the sentence names no run of its own (SparseInst is the base model's alias and the fast
    # model's), so the AP after the number decides the metric but no run: the sentence's
    # looser reading still finds the fast model's AP; bound firmly, as a metric named outright
    # binds, it would be left unmapped
    fast = [*BEST[:2], {**BEST[2], "aliases": [*BEST[2]["aliases"], "NVIDIA 2080Ti"]}, BEST[3]]
    report = run(tmp_path, fast, SPEED.format(ap="37.2"))
    assert report["drift"] == [] and report["unmapped"] == []
    assert [item["claim"] for item in report["matched"]] == ["coco/giam_608/mask_ap/test-dev"]


PAIRWISE = [alias_claim("amlb", f"ag-over-{system.lower()}", "win_rate", rate,
                        ["AutoGluon 1.0", system, "win-rate"])
            for system, rate in (("LightGBM", 98.0), ("XGBoost", 100.0))]
WIN_RATES = ("AutoGluon 1.0 wins against traditional tabular models, including "
             "**a 98% win-rate vs LightGBM and a {rate}% win-rate vs XGBoost**.\n")


@pytest.mark.parametrize("rate, found", [("100", set()), ("96", {"96%"})],
                         ids=["clean", "drifted"])
def test_a_rate_is_against_the_system_named_after_its_vs(tmp_path, rate, found):
    # before, the nearest system before the number (LightGBM, the first rate's) took the
    # second: 96% was held against LightGBM's 98% and XGBoost's rate was never read
    report = run(tmp_path, PAIRWISE, WIN_RATES.format(rate=rate))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[1] for item in report["drift"] + report["matched"]} == {
        "ag-over-lightgbm", "ag-over-xgboost"}
    assert report["unmapped"] == []


CHAMPIONS = [alias_claim("amlb", version, "champion", share, [name, "first place"])
             for version, name, share in (("ag-1.0", "AutoGluon 1.0", 63.0),
                                          ("ag-0.8", "AutoGluon 0.8", 48.0))]
FIRST_PLACES = ("**AutoGluon 1.0 achieves first place in 63% of tasks**, with lightautoml second "
                "at 12% (AutoGluon 0.8 previously took first place {share}% of the time).\n")


@pytest.mark.parametrize("share, found", [("48", set()), ("49", {"49%"})],
                         ids=["clean", "drifted"])
def test_previously_right_after_a_run_s_name_is_that_run_s_figure(tmp_path, share, found):
    # before, `previously` called the 48% superseded, whatever it followed: AutoGluon 0.8's
    # share was never read; `(previously, it was 94.9)` still is superseded
    report = run(tmp_path, CHAMPIONS, FIRST_PLACES.format(share=share))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[1] for item in report["drift"] + report["matched"]} == {
        "ag-1.0", "ag-0.8"}
