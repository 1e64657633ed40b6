"""Shapes of results the real corpus's seventieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a bachelor thesis's traffic table
telling its rows apart only by a one-letter graph ``Type`` under each model, its own graphs
(``C``, ``A'``) beside the baselines' (``A``, ``P``, ``DTW``), whose letters name nothing or
read as a metric's (``P``). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("flow", variant, "rmse", value, ["STGCN", name, "RMSE"], unit=None)
          for variant, name, value in (("stgcn_c", "C", 4.21), ("stgcn_a_refined", "A'", 4.26))]
TABLE = ("\\begin{table}\n\\caption{Traffic flow, test set.}\n\\begin{tabular}{llc}\n"
         "\\toprule\nModel & Type & RMSE \\\\\n\\midrule\n"
         "\\multirow{5}{*}{STGCN} & A & 4.35 \\\\\n & P & 5.12 \\\\\n & DTW & 4.30 \\\\\n"
         " & C & OURS \\\\\n & A' & 4.26 \\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n")


@pytest.mark.parametrize("ours, found", [("4.21", set()), ("4.12", {"4.12"})],
                         ids=["clean", "drifted"])
def test_rows_told_apart_by_a_letter_naming_nothing_are_other_runs(tmp_path, ours, found):
    # before, the baselines' `A` and `P` rows (a letter no name covers, one a metric's name)
    # were left with the thesis's two runs and paired with them: two false drifts on each copy
    report = run(tmp_path, CLAIMS, TABLE.replace("OURS", ours), "thesis.tex")
    assert_drifts(report, found, "flow/stgcn_c/rmse/test", 2)


def test_a_column_of_links_tells_no_rows_apart(tmp_path):
    # a model zoo's last column of checkpoint links, two named by claims' aliases, leaves the
    # row whose link names nothing (`SlowFast`'s, a run named by its `arch`) in place
    claims = [alias_claim("k400", variant, "top1", value, names)
              for variant, names, value in (("slow", ["Slow", "SLOW_8x8.pyth"], 74.58),
                                            ("x3d", ["X3D", "X3D_S.pyth"], 73.1),
                                            ("fast", ["SlowFast"], 76.94))]
    text = ("| arch | top 1 | model |\n|---|---|---|\n| Slow | 74.58 | [link](x/SLOW_8x8.pyth) |\n"
            "| X3D | 73.1 | [link](x/X3D_S.pyth) |\n| SlowFast | 76.49 | [link](x/SF_8x8.pyth) |\n")
    assert_drifts(run(tmp_path, claims, text), {"76.49"}, "k400/fast/top1/test", 3)
