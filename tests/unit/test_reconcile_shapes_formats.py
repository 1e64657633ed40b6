"""Shapes of results the real corpus's sixty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: Torchreid's model zoo, whose cells
hold two numbers inside a download link (``[87.9 (70.4)](https://drive.google.com/…)``), named
only by a bullet at the top of the page: ``Results are presented in the format of *<Rank-1
(mAP)>*``; SwinIR's tables, whose rows are told apart by a training set and a scale factor
column under a corner headed ``Training Set``. The snippets follow those shapes, with numbers
of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.mdinline import inline

ZOO = [alias_claim("market1501", "resnet50", metric, value, ["resnet50", "market1501", name])
       for metric, name, value in (("rank1", "Rank-1", 87.9), ("map", "mAP", 70.4))]
PAGE = ("# Model Zoo\n\n- Results are presented in the format of *<Rank-1 (mAP)>*.\n"
        "- Asterisk (\\*) means the model is trained from scratch.\n\n"
        "| Model | # Param (10^6) | market1501 |\n| :--- | :---: | :---: |\n"
        "| resnet50 | 23.5 | [87.9 (MAP)](https://drive.google.com/file/d/1dUUZ4rHDWohmsQXCRe2C"
        "/view?usp=sharing) |\n")


@pytest.mark.parametrize("map_, found", [("70.4", set()), ("70.7", {"70.7"})],
                         ids=["clean", "drifted"])
def test_a_cell_s_bracket_named_by_the_format_a_bullet_gives(tmp_path, map_, found):
    # before, `<Rank-1 (mAP)>` read as an HTML tag, so nothing named the cell's two numbers
    report = run(tmp_path, ZOO, PAGE.replace("MAP)", f"{map_})"))
    assert_drifts(report, found, "market1501/resnet50/map/test", 2)


@pytest.mark.parametrize("text, read", [
    ("in the format of <Rank-1 (mAP)>", "in the format of <Rank-1 (mAP)>"),
    ("Top-1<br />(%)", "Top-1 (%)"), ('<a href="x.pt">model</a> 76.1', " model  76.1"),
    ("<!-- note --> 80.2", "  80.2"), ("<td rowspan=2>Models</td>", " Models ")])
def test_only_html_tags_and_comments_are_markup(text, read):
    assert inline(text) == read


def _restoration(scale: int, training: str, metric: str, value: float) -> dict:
    claim = alias_claim(f"div2k_val_x{scale}", f"swinir_{training.lower()}", metric, value,
                        [f"{training} (800 images)", "SwinIR", f"scale factor {scale}",
                         "PSNR (Y)"], unit="dB")
    return {**claim, "id": claim["id"].replace("/test", "/val"), "split": "val"}


SCALES = [_restoration(2, "DIV2K", "psnr_y", 36.77), _restoration(3, "DIV2K", "psnr_y", 32.97)]
BY_SCALE = ("|  Training Set | scale factor | PSNR (Y) |\n| :--- | :---: | :---: |\n"
            "|  DIV2K (800 images) | 2 | 36.77 |\n|  DIV2K (800 images) | 3 | X3 |\n")


@pytest.mark.parametrize("x3, found", [("32.97", set()), ("32.95", {"32.95"})],
                         ids=["clean", "drifted"])
def test_rows_told_apart_by_a_scale_factor_under_a_training_set_corner(tmp_path, x3, found):
    # before, the `scale factor` column's `3` was a number of no claim, so both rows named
    # both runs, and the corner's `Training Set` named the train split
    report = run(tmp_path, SCALES, BY_SCALE.replace("X3", x3))
    assert_drifts(report, found, "div2k_val_x3/swinir_div2k/psnr_y/val", 2)
