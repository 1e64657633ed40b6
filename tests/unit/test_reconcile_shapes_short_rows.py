"""A shape the real corpus's eightieth held-out part showed at planting: a few-shot library's
reproduction page whose table row is broken over two source lines, so that the second line is
a row of one cell left of the column that names the rows (``Comments``). Before, reading it
raised an ``IndexError`` (a traceback, not a report)."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("mini", "boil_conv64f", "accuracy", 66.45,
                      ["Conv64F", "BOIL", ":computer: miniImageNet (5,5)"])]
PAGE = """\
| :book: miniImageNet (5,5) | :computer: miniImageNet (5,5) | Embed | Comments |
| --- | --- | --- | --- |
| 66.45 | 66.45 ± 0.31 | Conv64F | Table.2 |
| 77.74 ± 0.38
| 70.13 | 70.50 ± 0.29 | ResNet12 | Reproduce |
"""


def test_a_row_cut_short_left_of_the_naming_column_is_read_without_a_traceback(tmp_path):
    report = run(tmp_path, CLAIMS, PAGE)
    assert set(report) == {"ok", "drift", "unmapped", "matched", "files"}
    assert report["drift"] == []
    assert [item["found"] for item in report["matched"]] == ["66.45"]
