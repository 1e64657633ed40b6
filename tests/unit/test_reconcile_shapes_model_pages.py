"""Shapes of results the real corpus's sixty-fifth and sixty-sixth held-out parts showed (now
in tests/data/reconcile_real/dev), read as a reader reads them: a video library's model zoo, a
pipe table without outer pipes whose rows end in a link to a checkpoint
(``[link](…/X3D_XS.pyth)``), its file named like another table's model (``X3D_XS (fp32)``, a
mobile variant); a 3D-detection library's model page whose rows are named relative to the
row above (``above w/ finetune``, ``above w/ tta``), the last without download links, and
whose KITTI cells hold two numbers the sentence above names in turn (``(3D/BEV)``); and (in
a part before) an object detector's model zoo whose notes below the table name a cell's three
numbers in turn (``no augmentation / flip augmentation / multi scale … augmentation``); and
(the sixty-seventh part) a video segmentation model zoo whose rows of one model are told apart
only by a ✓ in an ``All-F`` column the caption defines (``ALL-F: all frames.``); and (the
sixty-eighth part) a grounding model's HTML table whose header spans ``Refcoco`` over
``Refcoco+ R@1`` and ``Refcocog R@1``; and (the sixty-ninth) a self-supervised library's
table with a ``Dali`` column of ``:heavy_check_mark:`` marks, ``Dali`` naming another table's
runs. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim(exp, variant, metric, value, aliases)
          for exp, variant, metric, value, aliases in (
              ("k400", "x3d_xs_4x12", "top1", 68.1, ["X3D", "XS", "4x12", "top 1"]),
              ("k400", "x3d_xs_4x12", "top5", 87.6, ["X3D", "XS", "4x12", "top 5"]),
              ("k400", "x3d_s_13x6", "top1", 72.9, ["X3D", "S", "13x6", "top 1"]),
              ("k400", "x3d_s_13x6", "top5", 90.8, ["X3D", "S", "13x6", "top 5"]),
              ("k400_mobile", "efficient_x3d_xs_fp32", "top1", 67.5,
               ["X3D_XS (fp32)", "X3D_XS", "top 1"]))]
ZOO = ("arch | depth | frames | top 1 | top 5 | Model\n"
       "---- | ----- | ------ | ----- | ----- | -----\n"
       "X3D  | XS    | 4x12   | 68.10 | TOP5  | [link](https://example.org/zoo/kinetics/X3D\\_XS.pyth)\n"
       "X3D  | S     | 13x6   | 72.90 | 90.80 | [link](https://example.org/zoo/kinetics/X3D\\_S.pyth)\n")


@pytest.mark.parametrize("top5, found", [("87.60", set()), ("87.40", {"87.40"})],
                         ids=["clean", "drifted"])
def test_a_checkpoint_file_named_like_another_model_names_no_row(tmp_path, top5, found):
    # before, `.pyth` (PyTorchVideo's checkpoints) was no file's extension: `X3D_XS` in
    # `X3D_XS.pyth` named the mobile variant's claims, and the row matched none
    report = run(tmp_path, CLAIMS, ZOO.replace("TOP5", top5))
    assert_drifts(report, found, "k400/x3d_xs_4x12/top5/test", 4)


NUSCENES = [alias_claim("nus", variant, "map", value, names + ["mAP"])
            for variant, value, names in (
                ("r101", 31.7, ["ResNet101 w/ DCN"]),
                ("r101_ft", 34.6, ["ResNet101 w/ DCN", "above w/ finetune", "finetune"]),
                ("r101_ft_tta", 35.5, ["ResNet101 w/ DCN", "above w/ finetune",
                                       "above w/ tta"]))]
RELATIVE = ("| Backbone | Lr schd | mAP | Download |\n| :--: | :--: | :--: | :--: |\n"
            "| [ResNet101 w/ DCN](./pgd_r101.py) | 1x | BASE | [model](https://example.org/"
            "pgd_r101_20211112.pth) \\| [log](https://example.org/pgd_r101_20211112.log.json) |\n"
            "| [above w/ finetune](./pgd_r101_ft.py) | 1x | 34.6 | [model](https://example.org/"
            "pgd_r101_ft_20211114.pth) \\| [log](https://example.org/pgd_r101_ft.log.json) |\n"
            "| above w/ tta | 1x | 35.5 | |\n")


@pytest.mark.parametrize("base, found", [("31.7", set()), ("31.2", {"31.2"})],
                         ids=["clean", "drifted"])
def test_a_row_with_download_links_is_ours_beside_one_without(tmp_path, base, found):
    # before, the links cell's `links` was a word no alias covers: beside the link-less
    # `above w/ tta` row, naming some of the same runs, the rows with links read as another
    # system's and were not checked
    report = run(tmp_path, NUSCENES, RELATIVE.replace("BASE", base))
    assert_drifts(report, found, "nus/r101/map/test", 3)


KITTI = [alias_claim(f"kitti_car_{level.lower()}", "pgd", f"{ap.lower()}_{view.lower()}", value,
                     ["PGD", f"Car ({ap})", ap, level, view])
         for ap, level, view, value in (
             ("AP11", "Easy", "3D", 24.09), ("AP11", "Easy", "BEV", 30.11),
             ("AP11", "Hard", "3D", 16.9), ("AP11", "Hard", "BEV", 19.33),
             ("AP40", "Easy", "3D", 19.27), ("AP40", "Easy", "BEV", 26.6),
             ("AP40", "Hard", "3D", 10.65), ("AP40", "Hard", "BEV", 15.0))]
DETAILED = ("# PGD\n\nDetailed performance on KITTI 3D detection (3D/BEV) is as follows, "
            "evaluated by AP11 and AP40 metric:\n\n"
            "|            |     Easy      |     Hard      |\n"
            "| ---------- | :-----------: | :-----------: |\n"
            "| Car (AP11) | 24.09 / 30.11 | 16.90 / BEV   |\n"
            "| Car (AP40) | 19.27 / 26.60 | 10.65 / 15.00 |\n")


@pytest.mark.parametrize("bev, found", [("19.33", set()), ("19.30", {"19.30"})],
                         ids=["clean", "drifted"])
def test_the_sentence_above_names_a_cell_s_numbers_in_turn(tmp_path, bev, found):
    # before, `3D/BEV` (a name opening with a digit) was no list of names: the cells' two
    # numbers were attributed to no claim
    report = run(tmp_path, KITTI, DETAILED.replace("BEV  ", bev))
    assert_drifts(report, found, "kitti_car_hard/pgd/ap11_bev/test", 8)


ZOO_AP = [alias_claim("coco", variant, metric, value, [variant, "AP", name])
          for variant in ("ctdet_hg", "ctdet_dla")
          for metric, name, value in (
              ("ap", "no augmentation", 40.3 if variant == "ctdet_hg" else 37.4),
              ("ap_flip", "flip augmentation", 42.2 if variant == "ctdet_hg" else 39.2),
              ("ap_ms", "multi scale (0.5, 0.75, 1, 1.25, 1.5) augmentation",
               45.1 if variant == "ctdet_hg" else 41.7))]
NOTED = ("### COCO\n\n| Model | GPUs | AP |\n|---|---|---|\n"
         "| ctdet_hg | 5 | 40.3 / 42.2 / MS |\n| ctdet_dla | 8 | 37.4 / 39.2 / 41.7 |\n\n"
         "#### Notes\n\n- All models are evaluated on val 2017.\n"
         "- We show test time and AP with no augmentation / flip augmentation / multi scale "
         "(0.5, 0.75, 1, 1.25, 1.5) augmentation.\n")


@pytest.mark.parametrize("ms, found", [("45.1", set()), ("45.5", {"45.5"})],
                         ids=["clean", "drifted"])
def test_notes_below_a_table_name_its_cells_numbers_in_turn(tmp_path, ms, found):
    # before, only a caption's slashed names (`PSNR/SSIM`) named a cell's numbers in turn:
    # the notes' `no augmentation / flip augmentation / multi scale … augmentation` did not,
    # and the cells' numbers were held against any of the three
    report = run(tmp_path, ZOO_AP, NOTED.replace("MS", ms))
    assert_drifts(report, found, "coco/ctdet_hg/ap_ms/test", 6)


ALL_FRAMES = [alias_claim("ytb", variant, "mean", value, names + ["AOTL", "Mean"])
              for variant, value, names in (("aotl", 84.1, []),
                                            ("aotl_allf", 84.5, ["All-F", "ALL-F", "all frames"]))]
MARKED = ("### YouTube-VOS 2018\n`ALL-F`: all frames. The default evaluation setting is "
          "6fps, but 30fps sequences are also supplied.\n"
          "| Model | FPS | All-F | Mean |\n|:--|:--:|:--:|:--:|\n"
          "| AOTL | 16.0 |   | PLAIN |\n| AOTL | 6.5 | √ | 84.5 |\n")


@pytest.mark.parametrize("plain, found", [("84.1", set()), ("83.8", {"83.8"})],
                         ids=["clean", "drifted"])
def test_a_caption_s_definition_of_a_mark_column_names_no_row(tmp_path, plain, found):
    # before, the caption's `ALL-F: all frames.` (the ✓ column's header, an alias of the
    # all-frames runs) named every row, the unmarked one too, and its numbers were held
    # against the all-frames run's
    report = run(tmp_path, ALL_FRAMES, MARKED.replace("PLAIN", plain))
    assert_drifts(report, found, "ytb/aotl/mean/test", 2)


REFCOCO = [alias_claim(exp, "mdetr_r101", "recall_at_1", value, ["R101", name, f"{name} R@1"])
           for exp, name, value in (("refcoco", "Refcoco", 72.1),
                                    ("refcoco_plus", "Refcoco+", 57.8),
                                    ("refcocog", "Refcocog", 55.8))]
SPANNED = ("<table>\n<thead>\n<tr>\n<th>Backbone</th>\n<th colspan=\"3\">Refcoco</th>\n</tr>\n"
           "<tr>\n<td></td>\n<td>Refcoco R@1</td>\n<td>Refcoco+ R@1</td>\n<td>Refcocog R@1</td>\n"
           "</tr>\n</thead>\n<tbody>\n<tr>\n<td>R101</td>\n<td>72.1</td>\n<td>PLUS</td>\n"
           "<td>55.8</td>\n</tr>\n</tbody>\n</table>\n")


@pytest.mark.parametrize("plus, found", [("57.8", set()), ("57.5", {"57.5"})],
                         ids=["clean", "drifted"])
def test_a_group_header_a_sub_header_repeats_adds_nothing(tmp_path, plus, found):
    # before, `Refcoco` spanning the columns joined `Refcoco+ R@1` and `Refcocog R@1`: those
    # columns named two datasets and no claim
    report = run(tmp_path, REFCOCO, SPANNED.replace("PLUS", plus))
    assert_drifts(report, found, "refcoco_plus/mdetr_r101/recall_at_1/test", 3)


LOADERS = [alias_claim(exp, variant, metric, value, names)
           for exp, variant, metric, value, names in (
               ("in100", "byol", "acc1", 80.16, ["BYOL", "ImageNet-100", "Acc@1"]),
               ("in100", "simclr", "acc1", 77.64, ["SimCLR", "ImageNet-100", "Acc@1"]),
               ("loaders", "dali", "memory", 9521, ["Dali", "Memory"]))]
LOADED = ("### ImageNet-100\n\n| Method | Dali | Acc@1 |\n|---|:--:|:--:|\n"
          "| BYOL | :heavy_check_mark: | BYOL_ACC |\n| SimCLR | :x: | 77.64 |\n")


@pytest.mark.parametrize("acc, found", [("80.16", set()), ("80.61", {"80.61"})],
                         ids=["clean", "drifted"])
def test_a_mark_column_s_header_naming_another_table_s_runs_leaves_the_row(tmp_path, acc,
                                                                          found):
    # before, the ✓ under `Dali` named the row by `Dali`, an alias of another table's runs
    # only (the loaders' efficiency): the row's names shared no claim, and its numbers were
    # checked against none
    report = run(tmp_path, LOADERS, LOADED.replace("BYOL_ACC", acc))
    assert_drifts(report, found, "in100/byol/acc1/test", 2)
