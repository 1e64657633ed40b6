"""Shapes of results in the real corpus's `dev` part (tests/data/reconcile_real/dev), read
as a reader reads them: NNI's parallel TPE page, a reST list table whose cells give a mean and
a variance apart by a custom role's line break (``avg = 0.4838 :raw-html:`<br>` var =
0.1953``). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

BEST = [alias_claim(f"gmm_c{count}", variant, "best_result", value, [name, f"c={count}", "avg"],
                    unit=None, direction="lower")
        for variant, name, values in (("plain", "Without batching", (0.5312, 0.4407)),
                                      ("batched", "With batching", (0.2246, 0.1893)))
        for count, value in zip((64, 16), values, strict=True)]
LIST_TABLE = (".. list-table::\n   :header-rows: 1\n\n   * -\n     - c=64\n     - c=16\n"
              "   * - Without batching\n     - avg =  {plain} :raw-html:`<br>` var =  0.2011\n"
              "     - avg =  0.4407 :raw-html:`<br>` var =  0.1816\n"
              "   * - With batching\n     - avg =  0.2246 :raw-html:`<br>` var = 0.0712\n"
              "     - avg =  0.1893 :raw-html:`<br>` var = 0.0458\n")


@pytest.mark.parametrize("plain, found", [("0.5312", set()), ("0.5321", {"0.5321"})],
                         ids=["clean", "drifted"])
def test_a_list_table_s_named_values_apart_by_a_raw_html_break(tmp_path, plain, found):
    # before, `:raw-html:` (a role with a hyphen) stayed as words, so the first row's
    # cells named no number and joined the header; and `* -` with nothing after it (the
    # corner's empty cell) was no row
    report = run(tmp_path, BEST, LIST_TABLE.format(plain=plain), "sharing.rst")
    assert_drifts(report, found, "gmm_c64/plain/best_result/test", 4)
