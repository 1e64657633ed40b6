"""Shapes of results the real corpus's forty-ninth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: ActionFormer's README, whose two
Ego4D tables have the same rows and columns and are told apart only by the bullet above each,
`* The results (mAP at tIoUs) should be`, then `* The results (Recall@1x at tIoUs) should be`.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

EGO4D = [alias_claim("ego4d", "actionformer_s", metric, value,
                     ["ActionFormer (S)", "Ego4D", name, "0.1"])
         for metric, name, value in (("map", "mAP", 20.09), ("recall", "Recall@1x", 52.25))]
TABLES = ("## Ego4D\n\n* The results (mAP at tIoUs) should be\n\n| Method | 0.1 |\n|---|---|\n"
          "| ActionFormer (S) | {map} |\n\n* The results (Recall@1x at tIoUs) should be\n\n"
          "| Method | 0.1 |\n|---|---|\n| ActionFormer (S) | 52.25 |\n")


@pytest.mark.parametrize("value, found", [("20.09", set()), ("20.07", {"20.07"})],
                         ids=["clean", "drifted"])
def test_a_bullet_left_open_above_a_table_names_its_metric(tmp_path, value, found):
    # before, only a paragraph ending in a colon (or reading `Table …`) captioned the table
    # below it: the two tables' cells named no metric, and none was checked
    report = run(tmp_path, EGO4D, TABLES.format(map=value))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[2] for item in report["drift"] + report["matched"]} == {
        "map", "recall"}
