r"""Shapes of results the real corpus's fiftieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a variational inference paper's
LaTeX table whose column spec, `l@{\ica}r@{$\pm$}l`, prints a `±` between each value column
and the column after it, so that a value and its standard error sit in cells of their own,
`2.47&0.08`, under a `\multicolumn{2}` header; NNI's NAS comparison, whose table of the
original papers' results, under the same method names as its re-runs, is captioned `The best
or average results reported in the paper:`. The snippets follow those shapes, with numbers
of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

NLL = [alias_claim("boston", variant, "nll", value,
                   ["boston", name, "negative test log likelihood"], unit="", direction="lower",
                   variance={"type": "std", "value": spread})
       for variant, name, value, spread in (("alpha_0", "$\\alpha = 0.0$", 2.47, 0.07),
                                            ("alpha_1", "$\\alpha = 1.0$ (VI)", 2.52, 0.03))]
TABLE = ("\\begin{{table}}\n\\caption{{Regression experiment: Average negative test log "
         "likelihood/nats}}\n\\begin{{tabular}}{{l@{{\\ica}}r@{{$\\pm$}}l@{{\\ica}}r@{{$\\pm$}}l}}\n"
         "\\hline\n\\bf{{Dataset}}&\\multicolumn{{2}}{{c}}{{\\bf{{$\\alpha = 0.0$}}}}&"
         "\\multicolumn{{2}}{{c}}{{\\bf{{$\\alpha = 1.0$ (VI)}}}}\\\\\n\\hline\n"
         "boston&2.47&{spread}&\\textbf{{2.52}}&\\textbf{{0.03}}\\\\\n\\hline\n"
         "\\end{{tabular}}\n\\end{{table}}\n")


@pytest.mark.parametrize("spread, found", [("0.07", set()), ("0.05", {"± 0.05"})],
                         ids=["clean", "drifted"])
def test_a_spread_printed_by_the_column_spec_s_pm(tmp_path, spread, found):
    # before, each spread cell was a column of its own: 0.07 was read as the next setting's
    # value, and held against its 2.52
    report = run(tmp_path, NLL, TABLE.format(spread=spread), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 4


REPRODUCED = [alias_claim("cifar10", "enas", "accuracy", 95.68, ["ENAS (macro) (%)", "CIFAR- 10"])]
PAGES = ("{caption}\n\n| NAS | ENAS (macro) (%) |\n|---|---|\n| CIFAR- 10 | 96.13(best) |\n")


@pytest.mark.parametrize("caption, found", [
    ("The best or average results reported in the paper:", set()),
    ("We compare the results reported in the paper:", {"96.13"})],
    ids=["theirs", "ours-beside"])
def test_a_table_its_caption_gives_as_the_paper_s_is_another_work_s(tmp_path, caption, found):
    # before, only a heading said so: the original paper's 96.13, captioned as reported in
    # the paper, was held against the reproduced 95.68
    report = run(tmp_path, REPRODUCED, PAGES.format(caption=caption))
    assert {item["found"] for item in report["drift"]} == found
