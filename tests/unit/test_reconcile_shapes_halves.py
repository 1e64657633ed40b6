"""Shapes of results the real corpus's fifty-first held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: UniMatch's Cityscapes table,
two tables set side by side in one pipe table, each half with its own backbone over its own
row names (`| ResNet-50 | 1/16 | 1/8 | ResNet-101 | 1/16 | 1/8 |`, `SupBaseline` and
`UniMatch (Ours)` again in the sixth column); the first YOLO paper's combination table, whose
`mAP` column gives each model's own mAP and `Combined` the combination's; PaddleSpeech's
Aishell tables, one row per decoding method of one model, each row repeating the model's
parameter count (`44.80M`), which the evidence claims once for the model; another toolkit's
result under the table (`SpeechBrain result: EER = 0.90%`); `we achieve 54.1 mAP` between
YOLO and its combination with Fast R-CNN; a sentence saying what each cell of the table below
holds. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

HALVES = [alias_claim(f"city_{fraction}", f"ours_{net}", "miou", value,
                      ["Ours", net, "Cityscapes", f"1/{fraction}"])
          for net, fraction, value in (("ResNet-50", 16, 71.5), ("ResNet-50", 8, 74.2),
                                       ("ResNet-101", 16, 73.9), ("ResNet-101", 8, 76.4))]
SIDE_BY_SIDE = ("### Cityscapes\n\n| {left} | 1/16 | 1/8 | {right} | 1/16 | 1/8 |\n"
                "|---|---|---|---|---|---|\n| Baseline | 60.1 | 66.0 | Baseline | 62.2 | 68.3 |\n"
                "| **Ours** | **71.5** | **74.2** | **Ours** | **73.9** | **{cell}** |\n")


@pytest.mark.parametrize("cell, found", [("76.4", set()), ("76.9", {"76.9"})],
                         ids=["clean", "drifted"])
def test_two_tables_side_by_side_each_under_its_own_label_head(tmp_path, cell, found):
    # before, a half was found only when the header repeated itself whole: the right half's
    # cells, under `ResNet-101`, were held against the left half's ResNet-50 claims
    report = run(tmp_path, HALVES, SIDE_BY_SIDE.format(left="ResNet-50", right="ResNet-101",
                                                       cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 4



COMBINED = [alias_claim("voc2007", "plus_small", "map", 71.9, ["Small", "mAP", "Combined"]),
            alias_claim("voc2007", "plus_ours", "map", 73.6, ["Ours", "mAP", "Combined"]),
            alias_claim("voc2007", "ours", "map", 57.4, ["Ours", "mAP"])]
COMBINATION = ("\\begin{{table}}\n\\begin{{tabular}}{{lrr}}\n & mAP & Combined \\\\\n\\hline\n"
               "Small & 58.3 & {cell} \\\\\nOurs & 57.4 & 73.6 \\\\\n\\end{{tabular}}\n"
               "\\caption{{Model combination experiments on VOC 2007.}}\n\\end{{table}}\n")


@pytest.mark.parametrize("cell, found", [("71.9", set()), ("71.4", {"71.4"})],
                         ids=["clean", "drifted"])
def test_a_claim_two_columns_name_goes_to_the_column_that_names_it_alone(tmp_path, cell, found):
    # before, the combination's claim (named `mAP` and `Combined`) was held against both
    # cells of its row: the model's own 58.3 under `mAP` was reported as drift
    report = run(tmp_path, COMBINED, COMBINATION.format(cell=cell), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert ("voc2007/ours/map/test", "57.4") in {(item["claim"], item["found"])
                                                 for item in report["matched"]}


DECODINGS = [alias_claim("aishell", "roformer", "params", 44.8, ["roformer", "Params"], unit="M",
                         direction="lower")] + [
    alias_claim("aishell", f"roformer_chunk16_{method}", "cer", value, ["roformer", method, "CER"])
    for method, value in (("attention", 5.63), ("ctc_greedy_search", 6.13))]
PER_DECODING = ("| Model | Params | Decode method | CER |\n| --- | --- | --- | --- |\n"
                "| roformer | 44.80M | attention | 5.63 |\n"
                "| roformer | {cell} | ctc_greedy_search | 6.13 |\n")


@pytest.mark.parametrize("cell, found", [("44.80M", set()), ("44.70M", {"44.70M"})],
                         ids=["clean", "drifted"])
def test_a_model_s_claim_in_the_rows_of_its_settings(tmp_path, cell, found):
    # before, the row's decoding method (an alias of the CER claims only) and the column's
    # `Params` named no claim in common: the parameter counts were not read at all
    report = run(tmp_path, DECODINGS, PER_DECODING.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 4


@pytest.mark.parametrize("cell, found", [("85M", set()), ("87M", {"87M"})],
                         ids=["clean", "drifted"])
def test_a_count_written_in_the_multiple_its_claim_counts_in(tmp_path, cell, found):
    # before, `85M` was read as 85 million against a claim of 85.0 (in millions): drift,
    # with `0.000085M` for a fix
    claim = alias_claim("voxceleb", "ecapa", "params", 85.0, ["ECAPA-TDNN", "Params"],
                        unit="M", direction="lower")
    report = run(tmp_path, [claim], f"| Model | Params |\n|---|---|\n| ECAPA-TDNN | {cell} |\n")
    assert {item["found"] for item in report["drift"]} == found
    assert [item.get("fix") for item in report["drift"]] == (["85M"] if found else [])


ECAPA = [alias_claim("voxceleb", "ecapa", "eer", 0.8188, ["ECAPA-TDNN", "EER", "Cosine"])]
ANOTHER_TOOLKIT = ("## ECAPA-TDNN\n\n| Model | Cosine |\n| --- | --- |\n| ECAPA-TDNN | 0.8188 |\n\n"
                   "> [{name} result](https://example.org/recipes/SpeakerRec):\n"
                   "> EER = 0.90% (voxceleb1 + voxceleb2) without s-norm\n")


@pytest.mark.parametrize("name, found", [("SpeechBrain", set()), ("ECAPA-TDNN", {"0.90%"})],
                         ids=["another-toolkit", "ours"])
def test_a_result_labelled_with_another_toolkit_s_name_is_that_toolkit_s(tmp_path, name, found):
    # before, another toolkit's `EER = 0.90%` below the table was held against ours
    report = run(tmp_path, ECAPA, ANOTHER_TOOLKIT.format(name=name))
    assert {item["found"] for item in report["drift"]} == found


OURS_AND_COMBINED = [alias_claim("voc2012", "yolo", "map", 54.5, ["YOLO", "mAP", "VOC 2012"]),
                     alias_claim("voc2012", "fast_rcnn_plus_yolo", "map", 70.7,
                                 ["Fast R-CNN + YOLO", "mAP", "VOC 2012"])]


@pytest.mark.parametrize("value, found", [("54.5", set()), ("54.1", {"54.1"})],
                         ids=["clean", "drifted"])
def test_a_number_naming_no_run_between_a_model_and_its_combination(tmp_path, value, found):
    # before, `we achieve 54.1 mAP` left YOLO and the combination with Fast R-CNN both
    # possible: an *unmapped* note, though the number is a digit off the model's own
    report = run(tmp_path, OURS_AND_COMBINED,
                 f"On the VOC 2012 test set we achieve {value} mAP.\n", "paper.tex")
    assert {item["found"] for item in report["drift"]} == found and not report["unmapped"]


TWO_METRICS = [alias_claim("whu_5", "ours", metric, value, ["Ours", "5%", name])
               for metric, value, name in (("iou", 80.2, "changed-class IoU"),
                                           ("oa", 99.15, "overall accuracy"))]
EACH_CELL = ("The two numbers in each cell denote the **changed-class IoU** and **overall "
             "accuracy**, respectively.\n\n| Method | 5% |\n| :-: | :-: |\n"
             "| **Ours** | **{cell}** / **99.15** |\n")


@pytest.mark.parametrize("cell, found", [("80.2", set()), ("80.7", {"80.7"})],
                         ids=["clean", "drifted"])
def test_a_paragraph_saying_what_each_cell_holds_captions_the_table(tmp_path, cell, found):
    # before, the sentence above the table, a blank line between, did not caption it: no
    # cell named a metric, and none was read
    report = run(tmp_path, TWO_METRICS, EACH_CELL.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 2
