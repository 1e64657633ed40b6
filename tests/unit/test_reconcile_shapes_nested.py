"""Shapes of results the real corpus's twenty-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a README whose tables sit under
prose about training (``We train latent diffusion models``, ``up to several hundred thousand
training iterations``) that names no split; a LaTeX paper whose cells are one-cell tabulars
(``\\begin{tabular}[c]{@{}c@{}}43.74\\\\\\end{tabular}``), under a caption naming both of its
datasets (``on CUB and NAB datasets``), with a row for the baseline its relative improvements
are measured against (``GAZSL``) and prose stating them with a bound (``a ratio improvement of
up to 18.37\\%``). The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

CHECKPOINTS = [alias_claim(exp, "dit_xl_2", "fid50k", value, ["XL/2", size, "FID-50K"])
               for exp, size, value in (("imagenet_256", "256x256", 2.31),
                                        ("imagenet_512", "512x512", 3.18))]
ZOO = ("{intro} The checkpoints can be downloaded here:\n\n"
       "| DiT Model | Image Resolution | FID-50K |\n|---|---|---|\n"
       "| [XL/2](https://example.org/DiT-XL-2-256x256.pt) | 256x256 | {fid} |\n"
       "| [XL/2](https://example.org/DiT-XL-2-512x512.pt) | 512x512 | 3.18 |\n")


@pytest.mark.parametrize("intro", [
    "We train latent diffusion models, replacing the U-Net backbone with a transformer.",
    "We've trained XL/2 models from scratch with the PyTorch training script.",
    "These reproduce the paper up to several hundred thousand training iterations.",
], ids=["we train", "we've trained", "training iterations"])
def test_prose_about_training_above_a_table_names_no_split(tmp_path, intro):
    # before, the paragraph's training word named the training split and no claim was left
    clean = run(tmp_path, CHECKPOINTS, ZOO.format(intro=intro, fid="2.31"))
    assert clean["drift"] == [] and clean["unmapped"] == [] and len(clean["matched"]) == 2
    drifted = run(tmp_path, CHECKPOINTS, ZOO.format(intro=intro, fid="2.35"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("imagenet_256/dit_xl_2/fid50k/test", "2.35")]


def _zsl(exp: str, variant: str, value: float, name: str) -> dict:
    return alias_claim(exp, variant, "top1_accuracy", value,
                       [name, exp.split("_")[0].upper(), "SCS", "Top-1 accuracy"])


SUMMARIES = [_zsl("cub_scs", "zest", 47.48, "ZEST"), _zsl("nab_scs", "zest", 38.2, "ZEST"),
             _zsl("cub_scs", "zest_vrs", 48.57, "ZEST+VRS"),
             _zsl("nab_scs", "zest_vrs", 38.51, "ZEST+VRS")]
NESTED = ("\\begin{{table}}[t]\n\\begin{{tabular}}{{l|c|c}}\n\\hline\n"
          "methods & \\textbf{{CUB SCS}} & \\textbf{{NAB SCS}} \\\\\n\\hline\n"
          "ZEST & \\begin{{tabular}}[c]{{@{{}}c@{{}}}}{cell}\\\\\\end{{tabular}} & 38.2 \\\\\n"
          "ZEST+VRS & 48.57\n  & {last}\n \\\\\n\\hline\n\\end{{tabular}}\n"
          "\\caption{{Top-1 accuracy (\\%) on CUB and NAB datasets.}}\n\\end{{table}}\n")


def test_a_cell_set_in_a_tabular_of_its_own_is_the_cell_s_number(tmp_path):
    # before, the outer tabular ended at the inner one's \end{tabular}: the rows after it
    # were read as prose, and the one-cell tabular's \\ ended the row
    clean = run(tmp_path, SUMMARIES, NESTED.format(cell="47.48", last="38.51"), "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == [] and len(clean["matched"]) == 4
    drifted = run(tmp_path, SUMMARIES, NESTED.format(cell="47.43", last="38.56"), "paper.tex")
    assert sorted((item["claim"], item["found"], item["line"]) for item in drifted["drift"]) == [
        ("cub_scs/zest/top1_accuracy/test", "47.43", 6),
        ("nab_scs/zest_vrs/top1_accuracy/test", "38.56", 8)]


def test_a_caption_naming_both_datasets_narrows_a_column_to_neither(tmp_path):
    # before, the caption's first dataset (CUB) narrowed the NAB column's cells to CUB's
    # claims, and none was left
    drifted = run(tmp_path, SUMMARIES, NESTED.format(cell="47.48", last="38.51").replace(
        "& 38.2 \\\\", "& 38.7 \\\\"), "paper.tex")
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("nab_scs/zest/top1_accuracy/test", "38.7")]


RATIO = alias_claim("cub_sce", "zest-vs-gazsl", "top1_accuracy", 14.27,
                    ["ZEST", "GAZSL", "CUB", "SCE", "ratio improvement"],
                    candidate="zest", baseline="gazsl", difference=14.27, relative=True)
LEVELS = [alias_claim("cub_sce", "zest", "top1_accuracy", 11.77, ["ZEST", "CUB", "SCE"])]
BASELINE_ROW = ("| Method | CUB SCE |\n|---|---|\n| GAZSL | 10.3 |\n| ZEST | 11.77 |\n\n"
                "ZEST obtains a ratio improvement of up to {ratio}% over GAZSL on CUB SCE.\n")


def test_a_row_named_by_a_comparison_s_baseline_holds_the_baseline_s_number(tmp_path):
    # before, GAZSL's own 10.3 was read as the relative improvement over GAZSL (14.27)
    clean = run(tmp_path, [RATIO, *LEVELS], BASELINE_ROW.format(ratio="14.27"))
    assert clean["drift"] == [] and clean["unmapped"] == []


def test_a_difference_with_a_bound_is_the_difference(tmp_path):
    # before, "of up to" between the noun and the number hid the difference: a level was
    # looked for and none found
    drifted = run(tmp_path, [RATIO, *LEVELS], BASELINE_ROW.format(ratio="14.21"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("cub_sce/zest-vs-gazsl/top1_accuracy/test", "14.21%")]


def test_a_float_cut_off_by_the_quote_still_ends_at_the_next_end(tmp_path):
    # a quote may stop inside a float: its tables are read up to the next float's end, as
    # before nested tabulars were followed (only a tabular may hold one of its kind)
    text = ("\\begin{table*}[t]\n\\begin{tabular}{lc}\n\\hline\nmethods & CUB SCS \\\\\n"
            "\\hline\nZEST & 47.41 \\\\\n\\hline\n\\end{tabular}\n"
            "\\begin{table*}[t]\n\\caption{Top-1 accuracy}\n\\end{table*}\n")
    drifted = run(tmp_path, SUMMARIES, text, "paper.tex")
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("cub_scs/zest/top1_accuracy/test", "47.41")]


def _gain(exp: str, baseline: str, value: float, aliases: list[str]) -> dict:
    return alias_claim(exp, f"jukebox-vs-{baseline}", "f1", value,
                       ["Jukebox", "melody transcription", *aliases], candidate="jukebox",
                       baseline=baseline, difference=value, relative=True)


GAINS = [_gain("rwc", "mel", 27, ["stronger performance on melody transcription (as measured "
                                  "by note-wise F1) relative to handcrafted features"]),
         _gain("rwc", "strongest", 70, ["relative to the strongest available baseline"])]


@pytest.mark.parametrize("written, found", [("$27$", []), ("$31$", ["31%"])])
def test_a_comparative_names_a_difference_and_an_alias_cut_by_its_clause_names_it(
        tmp_path, written, found):
    # before, "stronger" said nothing, and the parenthesis cut the one comparison's alias
    # out of the number's clause, leaving the alias both comparisons share
    text = (f"Representations from Jukebox yield {written}\\% stronger performance on melody "
            "transcription (as measured by note-wise F1) relative to handcrafted features.\n")
    report = run(tmp_path, GAINS, text, "intro.tex")
    assert [item["found"] for item in report["drift"]] == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 1
    assert {item["claim"] for item in report["drift"] + report["matched"]} == {
        "rwc/jukebox-vs-mel/f1/test"}
