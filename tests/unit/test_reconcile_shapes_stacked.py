"""Shapes of results the real corpus's thirtieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a generated LaTeX table written as
a bare ``tabular`` body, transposed (splits in rows, runs in columns); a paper's table whose
rows are built by a macro of its own that adds cells, ruled only below its first body row; a
Markdown ablation table whose cells stack settings and results with ``<br>``, under a caption
about training done a certain way; a count given as alternatives (``5 or 10 trials``); a change
written end first (``to 0.91 from 0.87``). The snippets follow those shapes, with numbers of
their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _sharing(variant: str, split: str, value: float, names: list[str]) -> dict:
    splits = {"train": ["Train error", "Training loss"], "test": ["Test error", "Test loss"]}
    claim = alias_claim("omniglot", variant, "error", value, [*names, *splits[split]],
                        direction="lower", unit=None)
    return {**claim, "id": f"omniglot/{variant}/error/{split}", "split": split}


SHARING = [_sharing(variant, split, value, names)
           for variant, names, values in (("separate", ["Separate networks", "No Sharing"],
                                           (0.52, 1.41)),
                                          ("tied", ["Tied weights", "Full Sharing"], (0.83, 1.22)),
                                          ("learned", ["Learned sharing", "Learned"], (0.55, 1.07)))
           for split, value in zip(("train", "test"), values, strict=True)]
BARE = (" & No Sharing & Full Sharing & Learned \\\\\n"
        "Training loss & 0.52 & 0.83 & 0.55 \\\\\n"
        "Test loss & {separate} & 1.22 & \\bf 1.07")


@pytest.mark.parametrize("separate, found", [("1.41", set()), ("1.44", {("separate", "1.44")})],
                         ids=["clean", "drifted"])
def test_a_bare_tabular_body_is_read_as_a_table(tmp_path, separate, found):
    # before, the file was read as prose: every number of a row went to the run named last
    report = run(tmp_path, SHARING, BARE.format(separate=separate), "results_table.tex")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 6


MACRO_ROWS = (
    "\\newcommand{\\pic}[2]{\\parbox{4em}{\\includegraphics[width=1cm]{corr_#1_#2.pdf}}}\n"
    "\\newcommand{\\pics}[1]{\\pic{#1}{0} & \\pic{#1}{1} & \\pic{#1}{2}}\n"
    "\\begin{tabular}{cccccc}\n"
    "& Input & Middle & Output & Train & Test\\\\\n"
    "& weights & weights & weights & error & error \\\\\n"
    "\\parbox{3.7em}{Separate networks} & \\pics{none} & 0.52 & {separate}\\\\ \\hline\n"
    "\\parbox{3.7em}{Tied weights} & \\pics{full} & 0.83 & 1.22\\\\ \\hline\n"
    "\\parbox{3.7em}{Learned sharing} & \\pics{learned} & 0.55 & \\bf 1.07\n"
    "\\end{tabular}\n")


@pytest.mark.parametrize("separate, found", [("1.41", set()), ("1.38", {("separate", "1.38")})],
                         ids=["clean", "drifted"])
def test_a_row_macro_adding_cells_is_expanded_and_the_first_ruled_row_is_a_body_row(
        tmp_path, separate, found):
    # before, each row had three cells fewer than its header (numbers under ``Middle`` and
    # ``Output``), and the first row, above the first rule, was read as a third header row
    report = run(tmp_path, SHARING, MACRO_ROWS.replace("{separate}", separate), "paper.tex")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 6


ABLATION = [{**alias_claim("cifar10", variant, "error_rate", value,
                           [*names, "Mixing method", "CIFAR-10", "error rate", "Our reproduction"],
                           n=5, direction="lower")}
            for variant, names, value in (("bc", ["BC", "None (BC)"], 5.71),
                                          ("mix_a", ["a"], 5.62),
                                          ("mix_a_b", ["a+b"], 5.58),
                                          ("bc_plus", ["BC+", "a+b+c (BC+)"], 5.47))]
STACKED = ("Table 4. Comparison of training using various settings. The error rate is averaged "
           "over 5 trials.\n\n"
           "| Comparison of | Setting | Original paper | Our reproduction |\n"
           "| :---- | :---- | :----: | :----: |\n"
           "| Mixing method | None (BC) <br> a <br> a+b <br> a+b+c (BC+) | 5.40 <br> 5.45 <br> "
           "**5.17** <br> 5.22 | 5.71 <br> 5.62 <br> {mixed} <br> **5.47** |\n\n"
           "For standard and BC+ learning, the error rates of 5 or 10 trials vary more.\n")


@pytest.mark.parametrize("mixed, found", [("5.58", set()), ("5.53", {("mix_a_b", "5.53")})],
                         ids=["clean", "drifted"])
def test_cells_stacked_with_br_are_rows_and_training_done_some_way_names_no_split(
        tmp_path, mixed, found):
    # before, the stacked cell was one row of four runs' numbers and the caption's "training
    # using" pinned the train split, so no cell was checked; "10 trials" was held against the
    # BC+ run's 5 trials
    report = run(tmp_path, ABLATION, STACKED.format(mixed=mixed))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) >= 4


ARENA = [alias_claim("arena", variant, "spearman", value, [*names, "Chat Arena"], unit=None)
         for variant, names, value in (("length_controlled", ["LCAE", "length-controlled"], 0.91),
                                       ("plain", ["AlpacaEval 2.0"], 0.87))]


@pytest.mark.parametrize("end, found", [("0.91", set()), ("0.93", {("length_controlled", "0.93")})],
                         ids=["clean", "drifted"])
def test_a_change_written_end_first_holds_its_start_apart(tmp_path, end, found):
    # before, the start (the plain run's) was held against the length-controlled claim
    report = run(tmp_path, ARENA, f"- **LCAE increases the correlation with Chat Arena to "
                                  f"{end}** from 0.87.\n")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == []


def test_a_macro_is_expanded_only_where_its_arguments_are_on_the_line():
    from rgt.evidence.reconcile.macros import definitions, expand
    lines = ["\\newcommand{\\best}[1]{\\textbf{#1}}", "\\newcommand\\ours{FooNet}",
             "\\ours{} gets \\best{91.2} and $\\ours$", "\\best{92.0", "}"]
    macros = definitions(lines)
    assert macros == {"best": (1, "\\textbf{#1}", 0), "ours": (0, "FooNet", 1)}
    assert expand(lines[2], macros) == "FooNet{} gets \\textbf{91.2} and $\\ours$"
    assert expand(lines[3], macros) == lines[3]  # its argument runs onto the next line
    assert expand(lines[0], macros) == lines[0]  # a definition is no text of the document
