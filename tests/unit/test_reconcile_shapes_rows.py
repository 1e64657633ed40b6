"""Shapes of results the real corpus's seventeenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: segmentation tables whose cells
hold three fractions joined by slashes under a header naming them in turn with a qualifier
glued on (``mIoU/mAcc/aAcc(ss)``); a distillation benchmark whose first row gives teacher and
student in one cell (``75.61 <br> 73.26``) beside a label and under headers broken the same
way (``Teacher <br> Student``, ``wrn-40-2 <br> wrn-16-2``); a LaTeX ``tabular`` whose rows
carry no label at all, the datasets given only by their order. The snippets follow those
shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

SEGMENTATION = [alias_claim("ade", f"pspnet_{scale}", metric, value,
                            ["PSPNet", f"mIoU/mAcc({scale})", metric],
                            unit="")
                for scale, metric, value in (("ss", "mIoU", 0.4012), ("ss", "mAcc", 0.5120),
                                             ("ms", "mIoU", 0.4135), ("ms", "mAcc", 0.5233))]
SEG_TABLE = """| Network | mIoU/mAcc(ss) | mIoU/mAcc(ms) |
| :-----: | :-----------: | :-----------: |
| PSPNet  | {ss}. | 0.4135/0.5233. |
"""


def test_a_header_naming_a_cells_numbers_in_turn_before_a_qualifier_names_each(tmp_path):
    # before, the three-way header was one name for every number: none was checked
    clean = run(tmp_path, SEGMENTATION, SEG_TABLE.format(ss="0.4012/0.5120"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} == {
        ("ade/pspnet_ss/mIoU/test", "0.4012"), ("ade/pspnet_ss/mAcc/test", "0.5120"),
        ("ade/pspnet_ms/mIoU/test", "0.4135"), ("ade/pspnet_ms/mAcc/test", "0.5233")}
    drifted = run(tmp_path, SEGMENTATION, SEG_TABLE.format(ss="0.4012/0.5160"))
    assert [(item["claim"], item["found"], item["fix"]) for item in drifted["drift"]] == [
        ("ade/pspnet_ss/mAcc/test", "0.5160", "0.5120")]


DISTILLATION = [
    alias_claim("cifar", "resnet56_teacher", "accuracy", 72.10, ["resnet56", "Teacher"]),
    alias_claim("cifar", "resnet20_student", "accuracy", 69.20, ["resnet20", "Student"]),
    alias_claim("cifar", "kd", "accuracy", 70.50,
                ["KD", "resnet56", "resnet20", "Teacher", "Student"])]
BENCHMARK = """| Teacher <br> Student | resnet56 <br> resnet20 |
|:---:|:---:|
| Teacher <br> Student | {teacher} <br> 69.20 |
| KD | 70.50 |
"""


def test_a_cell_broken_in_lines_takes_the_broken_header_and_row_label_in_turn(tmp_path):
    # before, both numbers were read as the method's row (KD carries every name there)
    clean = run(tmp_path, DISTILLATION, BENCHMARK.format(teacher="72.10"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("resnet56_teacher", 3, "72.10"),
                                       ("resnet20_student", 3, "69.20"), ("kd", 4, "70.50")}
    drifted = run(tmp_path, DISTILLATION, BENCHMARK.format(teacher="72.13"))
    assert found(drifted) == {("resnet56_teacher", 3, "72.13")}


def test_numbers_named_by_a_break_keep_their_names(tmp_path):
    claims = [alias_claim("etth1", "scinet", "mae", 0.41, ["SCINet", "mae"], unit="")]
    text = "| Model | ETTh1 |\n|---|---|\n| SCINet | mae={mae} <br> mse=0.39 |\n"
    assert found(run(tmp_path, claims, text.format(mae="0.41")), "matched") == {
        ("scinet", 3, "0.41")}
    assert found(run(tmp_path, claims, text.format(mae="0.44"))) == {("scinet", 3, "0.44")}


UNLABELLED = r"""\begin{{tabular}}{{|c|c|}}
\hline
Ours & Lin \\
\hline
1.00 & 3.20 \\
{middle} & 1.00 \\
1.57 & 11.30 \\
\hline
\end{{tabular}}
"""
ERRORS = [alias_claim(exp, "ours", "rmse", value, ["Ours", name], unit="", direction="lower")
          for exp, name, value in (("air", "`air'", 1.00), ("gas", "`gas'", 2.41),
                                   ("calls", "`calls'", 1.57))] + [
    alias_claim("calls", "lin", "rmse", 11.30, ["Lin", "`calls'"], unit="", direction="lower")]


def test_a_column_of_rows_nothing_names_is_any_rows_claim(tmp_path):
    # before, Lin's one claim was every row's: 3.20 and 1.00 were reported against 11.30
    clean = run(tmp_path, ERRORS, UNLABELLED.format(middle="2.41"), "paper.tex")
    assert clean["drift"] == []
    assert ("lin", 7, "11.30") in found(clean, "matched")
    # as many claims as rows left open: each row states one, the drifted one is found
    drifted = run(tmp_path, ERRORS, UNLABELLED.format(middle="2.44"), "paper.tex")
    assert found(drifted) == {("ours", 6, "2.44")}


def test_a_column_of_distinct_settings_names_the_rows(tmp_path):
    claims = [alias_claim("coqa", "seq2seq", "f1", 24.0, ["seq2seq", "history size"], unit="")]
    text = ("| history size | seq2seq |\n|---|---|\n| 0 | {first} |\n| 1 | 27.5 |\n"
            "| all | 21.0 |\n")
    assert found(run(tmp_path, claims, text.format(first="24.3"))) >= {("seq2seq", 3, "24.3")}
