"""Shapes of results the real corpus's seventy-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an inpainting model zoo naming
each metric once over six rows, the next row's cell saying only which way it is better
(``(lower better)``), its rows told apart by mask-area ranges the evidence names runs by
(``10 – 20%``); and what follows from reading such rows: a named row's matched claim is no
candidate of an unnamed row beside it, while another system's row (``V2A``, ``FLOPs``) is
no candidate row at all. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

RANGES = ("1 – 10%", "10 – 20%", "20 – 30%")
VALUES = {"l1": (0.54, 1.47, 2.79), "psnr": (35.1, 31.22, 27.65)}
CLAIMS = [alias_claim(f"mask{index}", "aotgan", metric, VALUES[metric][index],
                      ["AOT-GAN", "Reimplemented Results", area, "Mask Area", name], unit=None)
          for metric, name in (("l1", "L1 (10^-2)"), ("psnr", "PSNR"))
          for index, area in enumerate(RANGES)]
ZOO = ("| Metric | Mask Area | Paper Results | Reimplemented Results |\n|---|---|---|---|\n"
       "| L1 (10^-2) | 1 – 10% | 0.55 | 0.54 |\n| (lower better) | 10 – 20% | 1.19 | 1.47 |\n"
       "| | 20 – 30% | 2.11 | L1 |\n| PSNR | 1 – 10% | 34.79 | 35.1 |\n"
       "| (higher better) | 10 – 20% | 29.49 | 31.22 |\n| | 20 – 30% | 26.03 | 27.65 |\n")


@pytest.mark.parametrize("last, found", [("2.79", set()), ("2.83", {"2.83"})],
                         ids=["clean", "drifted"])
def test_a_metric_named_once_goes_on_under_a_direction_note(tmp_path, last, found):
    # before, the `(lower better)` cell named the rows below it and the mask-area ranges were
    # read as numbers: only each metric's first row was checked
    report = run(tmp_path, CLAIMS, ZOO.replace("| L1 |", f"| {last} |"))
    assert_drifts(report, found, "mask2/aotgan/l1/test", 6)


def test_a_named_row_s_claim_is_no_candidate_of_an_unnamed_row(tmp_path):
    # `Net` names both runs (each has a name of its own it does not use); `Net (tta)` names
    # one, and its cell matches it: the `Net` row states the other (before, it was left
    # between the two)
    claims = [alias_claim("nus", variant, "map", value, names) for variant, value, names in (
        ("ours", 34.6, ["Net", "Net (plain)", "mAP"]),
        ("ours_tta", 35.5, ["Net", "Net (tta)", "mAP"]))]
    text = "| Method | mAP |\n|---|---|\n| Net | 35.0 |\n| Net (tta) | 35.5 |\n"
    assert_drifts(run(tmp_path, claims, text), {"35.0"}, "nus/ours/map/test", 2)


def test_another_system_named_with_digits_is_no_candidate_row(tmp_path):
    # `V2A` is a word no name covers although no two of its letters stand together: once
    # `Ours` states its claim, the V2A row is not left to state the MC run of another table
    claims = [alias_claim("hi4d", variant, "p2s", value, [name, "Hi4D", "P2S"], unit=None)
              for variant, value, name in (("ours", 2.25, "Ours"), ("mc", 2.95, "MC"))]
    text = ("| Dataset | Method | P2S |\n|---|---|---|\n| Hi4D | V2A | 2.46 |\n"
            "| Hi4D | Ours | 2.25 |\n\nAnd the meshes:\n\n"
            "| Method | P2S |\n|---|---|\n| MC | 2.95 |\n")
    assert_drifts(run(tmp_path, claims, text), set(), "", 2)


def test_a_row_named_only_by_a_metric_is_another_ranking_s(tmp_path):
    # `FLOPs` ranks architectures by their count: with one of ours drifted, its row is not
    # left to state the drifted claim
    claims = [alias_claim("nb201", variant, "ndcg", value, [name, "nDCG"], unit=None)
              for variant, value, name in (("single", 0.617, "VKDNW single"),
                                           ("m", 0.605, "VKDNW m"))]
    text = ("| Method | nDCG |\n|---|---|\n| FLOPs | 0.576 |\n| VKDNW single | 0.617 |\n"
            "| VKDNW m | 0.609 |\n")
    assert_drifts(run(tmp_path, claims, text), {"0.609"}, "nb201/m/ndcg/test", 2)


def test_a_column_of_one_number_names_no_rows(tmp_path):
    # `300` is the evidence's name of a ResNet run's epochs; a ViT table's column of `300`
    # says how long each row trained, and its rows stay the ViT runs
    claims = [alias_claim("imagenet", variant, "acc", value, names)
              for variant, value, names in (("r50_300ep", 72.8, ["ResNet-50", "300"]),
                                            ("vit_small", 73.2, ["ViT-Small", "linear acc"]))]
    text = ("| model | pretrain epochs | linear acc |\n|---|---|---|\n| ViT-Small | 300 | 73.1 |\n"
            "| ViT-Base | 300 | 76.7 |\n")
    assert {(item["found"], item["claim"]) for item in run(tmp_path, claims, text)["drift"]} == \
        {("73.1", "imagenet/vit_small/acc/test")}
