"""Shapes of results the real corpus's sixty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: Torchreid's model zoo, whose cells
hold two numbers inside a download link (``[87.9 (70.4)](https://drive.google.com/…)``), named
only by a bullet at the top of the page: ``Results are presented in the format of *<Rank-1
(mAP)>*``. The snippets follow that shape, with numbers of their own."""

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
