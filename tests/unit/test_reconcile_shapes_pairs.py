"""Shapes of results the real corpus's twenty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a LaTeX paper's tables whose cells
hold two metrics, ``$38.31$ / $0.9754$``, named in turn only by the caption (``with PSNR/SSIM
metrics``), under captions that speak of training without naming the training split (``cannot
be split into independent train/evaluation sets``, ``the training do not converge``, ``with
training and prediction scheme unchanged``, ``see \\ref{sec:training}``); a README giving the
paper's protocol (``Paper uses mean over 3 seeds``) beside its own single-seed rows. The
snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.cellparts import caption_in_turn, in_turn

DENOISE = [alias_claim(dataset, "ours", metric, value, ["Ours (G1)", dataset.upper(),
                                                         metric.upper()])
           for dataset, metric, value in (("w2s-1", "psnr", 35.33), ("w2s-1", "ssim", 0.9619),
                                          ("w2s-2", "psnr", 33.46), ("w2s-2", "ssim", 0.8867))]
FLOAT = ("\\begin{{table*}}\n\\caption{{Evaluation of our method with PSNR/SSIM metrics. {note}}}"
         "\n\\begin{{tabular}}{{lcc}}\n\\toprule\nMethod/Dataset & W2S-1 & W2S-2 \\\\\n\\midrule\n"
         "Ours (G1) & $\\underline{{35.33}}$ / $\\underline{{{ssim}}}$ & $33.46$ / $0.8867$ \\\\\n"
         "\\bottomrule\n\\end{{tabular}}\n\\end{{table*}}\n")


@pytest.mark.parametrize("note", [
    "The supervised version cannot be split into independent train/evaluation sets.",
    "For the other datasets the training do not converge.",
    "D-net only (with training and prediction scheme unchanged).",
    "Settings as in~\\ref{sec:training}.",
], ids=["train/evaluation", "the training do not", "training and prediction", "a reference"])
def test_a_caption_naming_a_cell_s_two_metrics_in_turn_names_them(tmp_path, note):
    # before, the caption's training word named the training split and the cells no metric
    clean = run(tmp_path, DENOISE, FLOAT.format(note=note, ssim="0.9619"), "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(clean["matched"]) == 4
    drifted = run(tmp_path, DENOISE, FLOAT.format(note=note, ssim="0.9612"), "paper.tex")
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("w2s-1/ours/ssim/test", "0.9612")]


def test_a_caption_s_slashed_names_count_only_when_they_are_as_many_and_no_splits():
    assert caption_in_turn("Evaluation with PSNR/SSIM metrics", 2) == ["PSNR", "SSIM"]
    assert caption_in_turn("Evaluation with PSNR/SSIM metrics", 3) == ["", "", ""]
    assert caption_in_turn("independent train/evaluation sets", 2) == ["", ""]
    assert caption_in_turn("Top-1/Top-5 accuracy on ImageNet", 2) == ["Top-1", "Top-5"]


def test_the_paper_s_seed_count_is_the_paper_s(tmp_path):
    claims = [alias_claim("hopper", "dt_seed1", "score", 102.2, ["Hopper", "Normalized Score"],
                          n=1)]
    text = ("### Comparison with paper (Chen et al. 2021, Table 1)\n\n"
            "> Scores are normalized. Paper uses mean over 3 seeds.\n")
    report = run(tmp_path, claims, text)
    assert report["drift"] == [] and report["unmapped"] == []


def test_a_header_s_words_around_its_slashed_names_qualify_each():
    assert in_turn("Training / Evaluation Time", 2) == (
        "Time", ["Training Time", "Evaluation Time"])
    assert in_turn("Flip AP / FPS", 2) == ("Flip", ["Flip AP", "Flip FPS"])
    assert in_turn("mIoU/mAcc(ss)", 2) == ("mIoU/mAcc(ss)", ["mIoU", "mAcc"])
    assert in_turn("Training / Evaluation Time", 3) == ("Training / Evaluation Time",
                                                        ["", "", ""])


VERIFICATION = [alias_claim("cn", variant, metric, value, [name, "CN"], direction="lower",
                            **({} if metric == "eer" else {"unit": None}))
                for variant, name, eer, dcf in (("r221", "221-layer ResNet", 5.381, 0.312),
                                                ("winner", "winner system", 6.214, 0.347))
                for metric, value in (("eer", eer), ("mindcf", dcf))]
NEWS = ("* 221-layer ResNet achieves **5.381%/{dcf}**  EER/minDCF on CN\n"
        "* The winner system's EER/minDCF drop from 8.127%/0.455 to **6.214%/0.347** on CN "
        "after fine-tuning\n")


@pytest.mark.parametrize("dcf, found", [("0.312", set()), ("0.321", {"0.321"})],
                         ids=["clean", "drifted"])
def test_slashed_numbers_named_in_turn_by_slashed_names_beside_them(tmp_path, dcf, found):
    # before, `EER/minDCF` after `5.381%/0.312` (no brackets) named neither in turn, the
    # EER right after the second number claimed it; and the lower ends of `from
    # 8.127%/0.455 to 6.214%/0.347` were held against the upper ends' claims
    report = run(tmp_path, VERIFICATION, NEWS.format(dcf=dcf))
    assert_drifts(report, found, "cn/r221/mindcf/test", 4)
