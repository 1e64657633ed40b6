"""Shapes of results the real corpus's twenty-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a model zoo's table marks one
cell with a footnote's mark (``**85.5**\\*``) and the note under the table opens with that mark
and restates the number, naming no model (``\\* … the model sets a new record on ImageNet-1K
with the accuracy of 85.5%``). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Cell, Table, noted_row

ZOO = [alias_claim("imagenet", name, "top1_accuracy", value, [name, "Top1 Acc"])
       for name, value in (("tiny_s12", 81.2), ("tiny_b24", 84.7), ("tiny_b24_384", 85.9))]
ZOO_TABLE = (
    "| Model | Resolution | Params | Top1 Acc |\n| :--- | :---: | :---: | :---: |\n"
    "| tiny_s12 | 224 | 12M | 81.2 |\n"
    "| tiny_b24 | 224 | 88M | **84.7**{mark} |\n"
    "| tiny_b24_384 | 384 | 88M | 85.9 |\n\n"
    ":tada: {mark} To our knowledge, the model sets a new record on ImageNet-1K with the accuracy"
    " of {note}% at 224x224 resolution.\n")


def test_a_note_under_a_table_states_the_row_its_mark_points_to(tmp_path):
    # before, the note named no model: its number went unchecked and a drift there was missed
    clean = run(tmp_path, ZOO, ZOO_TABLE.format(mark="\\*", note="84.7"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert ("tiny_b24", 7, "84.7%") in found(clean, "matched")
    drifted = run(tmp_path, ZOO, ZOO_TABLE.format(mark="\\*", note="84.9"))
    assert found(drifted) == {("tiny_b24", 7, "84.9%")}


def test_a_dagger_marks_a_row_as_an_asterisk_does(tmp_path):
    drifted = run(tmp_path, ZOO, ZOO_TABLE.format(mark="\u2020", note="84.2"))
    assert found(drifted) == {("tiny_b24", 7, "84.2%")}


def test_a_note_whose_mark_no_cell_carries_names_nothing(tmp_path):
    text = ZOO_TABLE.replace("**84.7**{mark}", "**84.7**").format(mark="\\*", note="84.9")
    report = run(tmp_path, ZOO, text)
    assert report["drift"] == []


def test_a_mark_on_two_rows_leaves_its_note_to_no_row():
    rows = [[Cell("a", 3), Cell("80.1*", 3)], [Cell("b", 4), Cell("81.0*", 4)]]
    table = Table(["Model", "Acc"], rows)
    assert noted_row(table, "* reproduced with our code: 80.1") == ""
    assert noted_row(Table(["Model", "Acc"], rows[:1]), "* reproduced: 80.1") == "a Acc"
    assert noted_row(Table(["Model", "Acc"], rows[:1]), "Reproduced: 80.1") == ""


def test_a_latex_superscript_mark_opens_a_note():
    table = Table(["Model", "Acc"], [[Cell("ours", 3), Cell("80.1^*", 3)]])
    assert noted_row(table, "^* trained twice as long") == "ours Acc"
