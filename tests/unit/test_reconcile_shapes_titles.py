"""Shapes of results the real corpus's fifty-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a LaTeX table titled by a head
row of one cell spanning it (`\\multicolumn{8}{c}{Table II}`), its last column a ratio whose
claim the evidence also calls `Table II`. The snippets follow that shape, with numbers of
their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run


def _gated(variant: str, metric: str, value: float, names: list[str]) -> dict:
    return alias_claim("c100", variant, metric, value, ["CIFAR100", "VGG16", *names])


ACCURACY, RECOVERED = r"$\%$ test accuracy", r"$\%$ of DNN performance recovered by DLGN"
CLAIMS = [_gated("plain", "accuracy", 73.1, ["DNN", ACCURACY]),
          _gated("gated", "accuracy", 61.2, [r"DLGN$(x,\mathbf{1})$", ACCURACY]),
          _gated("gated", "recovery", 83.72, [r"$\frac{\text{DLGN}(x,\mathbf{1})}{\text{DNN}}$",
                                              "DNN", "Table II", RECOVERED])]
TABULAR = ("\\begin{table}\n\\begin{tabular}{cccc}\n\\toprule\n\\multicolumn{4}{c}{Table II}\\\\\n"
           "\\toprule\nDataset & DNN & DLGN$(x,\\mathbf{1})$ & "
           "$\\frac{\\text{DLGN}(x,\\mathbf{1})}{\\text{DNN}}$\\\\\\midrule\n"
           "CIFAR100 VGG16 & {plain} & 61.2 & $83.72$\\\\\n\\bottomrule\n\\end{tabular}\n"
           f"\\caption{{All columns (except the last) show the {ACCURACY} on CIFAR-100, and "
           f"{RECOVERED} is in the last column.}}\n\\end{{table}}\n")


@pytest.mark.parametrize("plain, found", [("73.1", set()), ("73.4", {"73.4"})],
                         ids=["clean", "drifted"])
def test_a_head_row_spanning_the_table_titles_it(tmp_path, plain, found):
    # before, `Table II` headed every column: `Table II DNN` named the ratio's claim, and
    # the plain network's accuracy was drift of the ratio
    report = run(tmp_path, CLAIMS, TABULAR.replace("{plain}", plain), "paper.tex")
    assert_drifts(report, found, "c100/plain/accuracy/test", 3)


def _pose(variant: str, value: float, names: list[str]) -> dict:
    return alias_claim("coco", variant, "ap", value, [*names, "COCO", "AP"], unit="")


POSES = [_pose("vb", 75.8, ["PoseNet-B", "MAE"]), _pose("vbs", 77.5, ["PoseNet-B*", "AIC"]),
         _pose("vg", 81.1, ["PoseNet"])]
ZOO = ("| Model | Pretrain | AP | config |\n| :-: | :-: | :-: | :-: |\n"
       "| PoseNet-B | MAE | {base} | [config](configs/coco/PoseNet_base_coco_256x192.py) |\n"
       "| PoseNet-B* | AIC | 77.5 | [config](configs/coco/PoseNet_base_aic_256x192.py) |\n")


@pytest.mark.parametrize("base, found", [("75.8", set()), ("75.6", {"75.6"})],
                         ids=["clean", "drifted"])
def test_a_starred_name_and_a_name_inside_a_file_s_name(tmp_path, base, found):
    # before, `PoseNet` inside the config's file name (another run's alias) left the row's
    # names no claim in common, and `PoseNet-B*` lost its star
    report = run(tmp_path, POSES, ZOO.format(base=base))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {(number, "coco/vb/ap/test") for number in found}
    assert sorted(item["claim"] for item in report["matched"]) == sorted(
        ["coco/vbs/ap/test", "coco/vb/ap/test"][:2 - len(found)])


def _knn(variant: str, value: float, names: list[str]) -> dict:
    return alias_claim("cifar10", variant, "knn_top1", value,
                       [variant, "NNCLR", "Res18", "kNN Top 1", "CIFAR-10", *names], unit="")


KNN = [_knn("nnclr_res18_bs128_ep200", 0.834, ["Batch Size 128", "200 epochs"]),
       _knn("nnclr_res18_bs512_ep200", 0.815, ["NNCLR*", "Batch Size 512", "200 epochs"]),
       _knn("nnclr_res18_bs512_ep800", 0.892, ["NNCLR*", "Batch Size 512", "800 epochs"])]
CSV = (".. csv-table:: CIFAR-10 benchmark results\n"
       '  :header: "Model", "Backbone", "Batch Size", "Epochs", "kNN Top 1"\n\n'
       '  "NNCLR", "Res18", "128", "200", "{small}"\n\n'
       ".. csv-table:: CIFAR-10 benchmark results\n"
       '  :header: "Model", "Backbone", "Batch Size", "Epochs", "kNN Top 1"\n\n'
       '  "NNCLR*", "Res18", "512", "200", "0.815"\n\n'
       ".. csv-table:: CIFAR-10 benchmark results\n"
       '  :header: "Model", "Backbone", "Batch Size", "Epochs", "kNN Top 1"\n\n'
       '  "NNCLR*", "Res18", "512", "800", "0.892"\n')


@pytest.mark.parametrize("small, found", [("0.834", set()), ("0.838", {"0.838"})],
                         ids=["clean", "drifted"])
def test_rows_no_name_tells_apart_state_fewest_candidates_first(tmp_path, small, found):
    # before, the plain row's candidates (all three runs) and the starred rows' (two) were
    # resolved apart: the plain row, alone with three claims, was left alone
    report = run(tmp_path, KNN, CSV.format(small=small), "benchmarks.rst")
    assert_drifts(report, found, "cifar10/nnclr_res18_bs128_ep200/knn_top1/test", 3)
