"""Shapes of results the real corpus's thirty-first held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a paper that keeps each result in
a macro of its own (``\\newcommand\\varMFWarm{\\fmtResult{0.541103}}``) and fills its table
with the macros; a blog post whose results are a program's log lines in code blocks, each run
named only by the paragraph presenting it, beside a block of the original paper's numbers. The
snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

AUC = [alias_claim(f"movielens_{start}", variant, "roc_auc", value,
                   [f"\\varMovielens{name}{start.capitalize()}", name, "ROC AUC"], unit=None)
       for variant, name, start, value in (("mf", "MF", "warm", 0.762156555535),
                                           ("lsi_lr", "LSILR", "warm", 0.686159232425),
                                           ("mf", "MF", "cold", 0.500360882628))]
MACROS = ("\\newcommand{{\\fmtResult}}[1]"
          "{{\\pgfmathparse{{#1}}\\pgfmathprintnumber{{\\pgfmathresult}}}}\n"
          "\\newcommand\\varMovielensMFWarm{{\\textbf{{\\fmtResult{{{mf}}}}}}}\n"
          "\\newcommand\\varMovielensLSILRWarm{{\\fmtResult{{0.686159232425}}}}\n"
          "\\newcommand\\varMovielensMFCold{{\\fmtResult{{0.500360882628}}}}\n"
          "\\begin{{tabular}}{{lcc}}\n\\toprule\n& Warm & Cold \\\\ \\midrule\n"
          "LSI-LR & \\varMovielensLSILRWarm{{}} & {{}} \\\\\n"
          "MF & \\varMovielensMFWarm{{}} & \\varMovielensMFCold{{}} \\\\\n"
          "\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize("mf, found", [("0.762156555535", set()),
                                       ("0.762156555531", {(2, "0.762156555531")})],
                         ids=["clean", "drifted"])
def test_a_result_kept_in_a_macro_is_checked_where_the_macro_defines_it(tmp_path, mf, found):
    # before, the definitions were read as bare numbers no name claimed, and the table's
    # cells as the macros' names: no number was checked
    report = run(tmp_path, AUC, MACROS.format(mf=mf), "paper.tex")
    assert {(item["line"], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 3


def _run(variant: str, names: list[str], error: float, misses: int) -> list[dict]:
    return [alias_claim("lecun1989", variant, metric, value, [*names, "split test", metric],
                        direction="lower", unit=unit)
            for metric, value, unit in (("error", error, "%"), ("misses", misses, None))]


RUNS = _run("repro", ["Reproducing 1989 performance", "repro.py"], 4.09, 82) \
    + _run("adamw", ["AdamW"], 3.59, 72)
BLOG = ("**Reproducing 1989 performance**. The original paper reports the following results.\n\n"
        "```\neval: split test . loss 1.8e-2. error 5.00%. misses: 102\n```\n\n"
        "Then I swapped SGD for AdamW with its default weight decay, which helped a bit.\n\n"
        "```\neval: split test . loss 2.1e-02. error {error}%. misses: 72\n```\n")


@pytest.mark.parametrize("error, found", [("3.59", set()), ("3.62", {("adamw", "3.62%")})],
                         ids=["clean", "drifted"])
def test_log_lines_in_code_take_their_run_from_the_paragraph_presenting_them(
        tmp_path, error, found):
    # before, code that no line introduced with a colon was not read; the paper's own block,
    # presented as theirs, is left alone
    report = run(tmp_path, RUNS, BLOG.format(error=error))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert [item["claim"] for item in report["drift"] + report["matched"]] == [
        "lecun1989/adamw/error/test"]
