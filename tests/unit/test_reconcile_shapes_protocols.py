"""Shapes of results the real corpus's fifty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an image-retrieval README whose
column heads name each dataset's protocol by a letter in parentheses (`ROxf (M)` for medium,
`ROxf (H)` for hard). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile import reconcile

PROTOCOLS = {"roxf_m": "ROxf (M)", "roxf_h": "ROxf (H)"}
CLAIMS = [alias_claim(exp, "gem", "map", value, ["GeM", head]) for (exp, head), value
          in zip(PROTOCOLS.items(), (62.4, 34.1), strict=True)]
TABLE = ("| Model | ROxf (M) | ROxf (H) |\n|:--|:--:|:--:|\n| GeM | {medium} | 34.1 |\n")


@pytest.mark.parametrize("medium, found", [("62.4", set()), ("62.7", {"62.7"})],
                         ids=["clean", "drifted"])
def test_a_letter_naming_a_protocol_beside_another_is_no_multiple(tmp_path, medium, found):
    # before, `(M)` declared millions: the equal cell was drift with the fix 0.0000624
    report = run(tmp_path, CLAIMS, TABLE.format(medium=medium))
    assert {(item["found"], item["fix"]) for item in report["drift"]} == \
        {(number, "62.4") for number in found}
    assert len(report["matched"]) == 2 - len(found)


def test_a_multiple_beside_another_head_s_unit_is_still_a_multiple(tmp_path):
    claims = [alias_claim("imagenet", "gem", "params", 25.6, ["GeM", "Params"], unit="M")]
    report = run(tmp_path, claims, "| Model | Params (M) | FLOPs (G) |\n|--|--|--|\n"
                                   "| GeM | 25.6 | 4.1 |\n")
    assert [item["found"] for item in report["matched"]] == ["25.6"]


CLIPS = [alias_claim("k400", f"{pretrain}_u{frames}", "top1", value,
                     [pretrain, str(frames), "uniform sampling", "top1 acc"])
         for pretrain, frames, value in (("clip", 8, 84.3), ("clip-k710", 16, 89.0))]
CLIP_TABLE = ("| uniform sampling | pretrain | top1 acc | testing protocol |\n|--|--|--|--|\n"
              "| 8 | clip | 84.3 | 4 clips x 3 crop |\n"
              "| 16 | clip-k710 | {cell} | 4 clips x 3 crop |\n")


@pytest.mark.parametrize("cell, found", [("89.0", set()), ("88.7", {"88.7"})],
                         ids=["clean", "drifted"])
def test_a_count_of_things_is_not_the_run_named_like_them(tmp_path, cell, found):
    # before, `4 clips` named the run pretrained on `clip`: the second row named two runs
    # and its number was never checked
    report = run(tmp_path, CLIPS, CLIP_TABLE.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"] + report["drift"]) == 2


HITS = [alias_claim(f"{kind}_hit", f"exp{k}", metric, value,
                    [f"Exp {k}", f"{kind[0].upper()}(P)", f"{kind}-hit", f"{head}(%)"])
        for kind, metric, head, values in (("single", "accuracy", "ACC", (97, 96)),
                                           ("multi", "recall", "REC", (90, 89)))
        for k, value in enumerate(values, start=1)]
MATRICES = ("N, S and M stand for non-sample-hit, single-hit and multi-hit.\n\n"
            "| Exp 1 | ACC(%) | REC(%) |\n|--|--|--|\n| N(P) | 99 | 100 |\n| S(P) | {cell} | 99 |\n"
            "| M(P) | 96 | 90 |\n\n"
            "| Exp 2 | ACC(%) | REC(%) |\n|--|--|--|\n| N(P) | 99 | 100 |\n| S(P) | 96 | 97 |\n"
            "| M(P) | 95 | 89 |\n")


@pytest.mark.parametrize("cell, found", [("97", set()), ("98", {"98"})],
                         ids=["clean", "drifted"])
def test_a_claim_is_stated_in_the_row_naming_it_most_narrowly(tmp_path, cell, found):
    # before, `N(P)`'s accuracy (a class no claim is of) and `M(P)`'s were drifts of the
    # single-hit claim their table's corner and column name, `S(P)`'s recall one of multi-hit
    report = run(tmp_path, HITS, MATRICES.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert sorted(item["found"] for item in report["matched"]) == \
        sorted(["96", "90", "89", "97"][:4 - len(found)])


BEST = [alias_claim(model.lower(), "best", "wer", value, [model, "WER", seed], direction="lower")
        for model, seed, value in (("Jasper", "Seed #7", 3.20), ("QuartzNet", "Seed #5", 3.47))]
SEEDS = ("## Training stability test\n\n| | Seed #5 | Seed #6 | Seed #7 |\n|--|--|--|--|\n"
         "| WER | {five} | 3.34 | {seven} |\n")


@pytest.mark.parametrize("cell, found", [("3.20", set()), ("3.22", {"3.22"})],
                         ids=["clean", "drifted"])
def test_a_folder_s_document_states_its_own_run_s_claims(tmp_path, cell, found):
    # before, Jasper's `Seed #5` cell was drift of QuartzNet's best run, the seed QuartzNet's
    # README names so
    for model, five, seven in (("Jasper", "3.25", cell), ("QuartzNet", "3.47", "3.52")):
        (tmp_path / model).mkdir()
        (tmp_path / model / "README.md").write_text(SEEDS.format(five=five, seven=seven))
    report = reconcile(BEST, [tmp_path / model / "README.md" for model in ("Jasper", "QuartzNet")])
    assert {item["found"] for item in report["drift"]} == found
    assert sorted(item["found"] for item in report["matched"]) == sorted(
        ["3.20", "3.47"][len(found):])


def _detector(variant: str, metric: str, value: float, names: list[str]) -> dict:
    return alias_claim("coco", variant, f"{metric}_map", value, [*names, "mAP", metric])


DETECTORS = [_detector("frcnn", "box", 35.6, ["R50-C4", "MODE_MASK=False"]),
             *(_detector(variant, metric, value, names) for variant, names in (
                 ("mrcnn", ["R50-C4", "MODE_FPN=False"]), ("deep", ["R101-C4"]))
               for metric, value in (("box", 36.2), ("mask", 31.8)))]
ZOO = ("| Backbone | mAP<br/>(box;mask) | Detectron mAP<br/>(box;mask) | Configurations |\n"
       "| - | - | - | - |\n| R50-C4 | {cell} | 34.8 | `MODE_MASK=False` |\n"
       "| R50-C4 | 36.2;31.8 | 35.8;31.4 | `MODE_FPN=False` |\n| R101-C4 | 36.2;31.8 | | |\n")


@pytest.mark.parametrize("cell, found", [("35.6", set()), ("35.9", {"35.9"})],
                         ids=["clean", "drifted"])
def test_names_listed_apart_by_a_semicolon_are_alternatives(tmp_path, cell, found):
    # before, `box` and `mask` named no claim in common: the one number under `mAP
    # (box;mask)` was never checked; the reference's column beside it is no drift of ours
    report = run(tmp_path, DETECTORS, ZOO.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert sorted(item["found"] for item in report["matched"]) == \
        sorted(["36.2", "31.8", "36.2", "31.8", "35.6"][:5 - len(found)])
    assert not report["unmapped"]


@pytest.mark.parametrize("cell, found", [("40.7", set()), ("40.9", {"40.9"})],
                         ids=["clean", "drifted"])
def test_a_setting_s_list_of_values_cites_nothing(tmp_path, cell, found):
    # before, `=[3,4,23,3]` read as a citation `[3, 4]`: the row was another's
    claims = [alias_claim("coco", "r101_fpn", "box_map", 40.7, ["R101-FPN", "mAP"])]
    table = ("| Backbone | mAP | Configurations |\n| - | - | - |\n"
             f"| R101-FPN | {cell} | `BACKBONE.RESNET_NUM_BLOCKS=[3,4,23,3]` |\n")
    report = run(tmp_path, claims, table)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 1 - len(found)


@pytest.mark.parametrize("cell, found", [("34.8", set()), ("35.0", {"35.0"})],
                         ids=["clean", "drifted"])
def test_a_split_s_word_in_a_setting_s_name_names_no_split(tmp_path, cell, found):
    # before, `TRAIN_SHORT_EDGE_SIZE=` named the train split: no validation claim was left
    claims = [{**alias_claim("coco", "r50_fpn_quick", "box_map", 34.8, ["R50-FPN", "mAP"]),
               "id": "coco/r50_fpn_quick/box_map/val", "split": "val"}]
    table = ("| Backbone | mAP | Configurations |\n| - | - | - |\n"
             f"| R50-FPN | {cell} | `PREPROC.TRAIN_SHORT_EDGE_SIZE=500 PREPROC.MAX_SIZE=1024` |\n")
    report = run(tmp_path, claims, table)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 1 - len(found)


SCHEDULES = [alias_claim("coco", "fpn_long", "box_map", 38.9,
                         ["R50-FPN", "mAP", "TRAIN.LR_SCHEDULE=2x"]),
             alias_claim("coco", "fpn_gn", "box_map", 40.4, ["R50-FPN-GN", "mAP", "FPN.NORM=GN"])]


@pytest.mark.parametrize("cell, found", [("40.4", set()), ("40.6", {"40.6"})],
                         ids=["clean", "drifted"])
def test_a_setting_another_run_is_named_by_is_a_setting_this_run_shares(tmp_path, cell, found):
    # before, `TRAIN.LR_SCHEDULE=2x` (the other run's alias) and `R50-FPN-GN` named no claim
    # in common: the row's number was never checked
    table = ("| Backbone | mAP | Configurations |\n| - | - | - |\n"
             "| R50-FPN | 38.9 | `TRAIN.LR_SCHEDULE=2x` |\n"
             f"| R50-FPN-GN | {cell} | `FPN.NORM=GN` `TRAIN.LR_SCHEDULE=2x` |\n")
    report = run(tmp_path, SCHEDULES, table)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)


def _coco(metric: str, value: float, setting: str) -> dict:
    name = "Average Recall (AR)" if metric.startswith("ar") else "Average Precision (AP)"
    return alias_claim("coco", "yolo", metric, value, ["YOLO", name, setting], unit="")


COCO_EVAL = [_coco("ap", 0.51206, "IoU=0.50:0.95"), _coco("ap50", 0.69730, "IoU=0.50"),
             _coco("ap_medium", 0.55937, "area=medium"), _coco("ar100", 0.68772, "maxDets=100")]
PRINTED = ("Evaluating YOLO, you will get the results:\n\n```\n"
           " Average Precision (AP) @[ IoU=0.50:0.95 | area= all | maxDets=100 ] = {ap}\n"
           " Average Precision (AP) @[ IoU=0.50 | area= all | maxDets=100 ] = 0.69730\n"
           " Average Precision (AP) @[ IoU=0.50:0.95 | area=medium | maxDets=100 ] = 0.55937\n"
           "```\n")


@pytest.mark.parametrize("ap, found", [("0.51206", set()), ("0.51502", {"0.51502"})],
                         ids=["clean", "drifted"])
def test_the_fewest_settings_another_run_is_named_by_are_left_out(tmp_path, ap, found):
    # before, `maxDets=100` (the recall's setting) beside `IoU=0.50:0.95` named no claim in
    # common: no line was checked; the medium line, whose settings name two claims as
    # plainly, is still left alone
    report = run(tmp_path, COCO_EVAL, PRINTED.format(ap=ap))
    assert {item["found"] for item in report["drift"]} == found
    assert sorted(item["found"] for item in report["matched"]) == \
        sorted(["0.69730", "0.51206"][:2 - len(found)])
    assert not report["unmapped"]


BENCHMARKS = [alias_claim(exp, "big", "score", value, ["Big", name]) for exp, name, value in (
    ("group1", "Examination", 55.1), ("bench1", "MMLU", 62.05), ("bench2", "C-Eval", 58.8))]


@pytest.mark.parametrize("cell, found", [("58.8", set()), ("58.7", {"58.7"})],
                         ids=["clean", "drifted"])
def test_a_group_s_name_carried_down_yields_to_the_row_s_own(tmp_path, cell, found):
    # before, `Examination` (the category's average, a claim of its own), carried down to
    # the rows below it, and `C-Eval` named no claim in common
    table = ("| | Benchmarks | Small | Big |\n| - | - | - | - |\n"
             "| Examination | MMLU | 47.73 | 62.05 |\n"
             f"| | C-Eval | 31.83 | {cell} |\n")
    report = run(tmp_path, BENCHMARKS, table)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)


TAGGERS = [alias_claim("conll03", variant, "f1", value, [name, "English", "F1"])
           for variant, name, value in (("base", "ner", 93.06), ("pooled", "ner-pooled", 93.24))]


@pytest.mark.parametrize("cell, found", [("93.24", set()), ("93.22", {"93.22"})],
                         ids=["clean", "drifted"])
def test_a_word_every_cell_of_a_label_column_opens_with_names_no_row(tmp_path, cell, found):
    # before, the task `NER` (the model `ner`'s name) and `ner-pooled` named no claim in
    # common: the pooled model's number was never checked
    table = ("| ID | Task | Language | Accuracy |\n| - | - | - | - |\n"
             "| 'ner' | NER (4-class) | English | **93.06** (F1) |\n"
             f"| 'ner-pooled' | NER (4-class) | English | **{cell}** (F1) |\n"
             "| 'ner-ontonotes' | NER (18-class) | English | **89.06** (F1) |\n")
    report = run(tmp_path, TAGGERS, table)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)
