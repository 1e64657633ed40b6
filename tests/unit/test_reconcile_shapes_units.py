"""Shapes of results the real corpus's fifty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: GraphVite's speed table, its
times written with their units in the cells (`1.18 mins`) beside other implementations'
times in Markdown reference links (`[1.39 hrs (CPU parallel)][2]`). The snippets follow that
shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

TIMES = [alias_claim("youtube", variant, "training_time", value, [name, "GraphVite"], unit="min",
                     direction="lower")
         for variant, name, value in (("walk", "DeepWalk", 1.21), ("lines", "LINE", 1.14))]
SPEEDS = ("Training time of node embedding on [Youtube] dataset.\n\n"
          "| Model | Existing Implementation | GraphVite | Speedup |\n| - | - | - | - |\n"
          "| [DeepWalk] | [1.64 hrs (CPU parallel)][1] | 1.21 mins | 81.3x |\n"
          "| [LINE] | [1.39 hrs (CPU parallel)][2] | {line} mins | 73.2x |\n")


@pytest.mark.parametrize("line, found", [("1.14", set()), ("1.16", {"1.16"})],
                         ids=["clean", "drifted"])
def test_times_with_their_units_beside_reference_links(tmp_path, line, found):
    # before, `mins` made each time a name (no cell was read) and `[…][2]` read as citing
    # a paper: the row was another's
    report = run(tmp_path, TIMES, SPEEDS.format(line=line))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)


F1S = [alias_claim("flickr", model.lower(), f"{kind}_f1", value, [model, f"{kind.title()}-F1"])
       for model, kind, value in (("Walk", "micro", 62.98), ("Line", "micro", 63.05),
                                  ("Walk", "macro", 61.72), ("Line", "macro", 61.77))]
GRID = ("+----------+------+-------+\n| Metric   | Model| Score |\n"
        "+==========+======+=======+\n|          | Walk | {walk} |\n"
        "|          +------+-------+\n| Micro-F1 | Line | 63.05 |\n"
        "+----------+------+-------+\n|          | Walk | 61.72 |\n"
        "|          +------+-------+\n| Macro-F1 | Line | 61.77 |\n"
        "+----------+------+-------+\n")


@pytest.mark.parametrize("walk, found", [("62.98", set()), ("62.93", {"62.93"})],
                         ids=["clean", "drifted"])
def test_a_grid_cell_spanning_rows_names_the_rows_above_its_text(tmp_path, walk, found):
    # before, `Micro-F1`, written on the lower of the two rows its cell spans, named only
    # that row: the row above it named no metric
    report = run(tmp_path, F1S, ".. table::\n\n" + "".join(
        f"   {line}\n" for line in GRID.format(walk=walk).splitlines()), "benchmark.rst")
    assert_drifts(report, found, "flickr/walk/micro_f1/test", 4)


COSTS = [alias_claim("fb", "rot", metric, value, ["RotE", "FB"], unit=unit, direction="lower")
         for metric, value, unit in (("training_time", 31.4, "min"),
                                     ("evaluation_time", 48.2, "s"))] + [
    alias_claim("fb", "trans", "training_time", 12.9, ["TransX", "FB"], unit="min",
                direction="lower")]
COST_TABLE = ("We benchmark TransX and RotE on two datasets. The training time and evaluation "
              "time of RotE on these datasets are given in the following table.\n\n"
              "| Dataset | Training / Evaluation Time |\n|---|---|\n"
              "| FB | 31.4 mins / {evaluation} s |\n")


@pytest.mark.parametrize("evaluation, found", [("48.2", set()), ("49.7", {"49.7"})],
                         ids=["clean", "drifted"])
def test_a_paragraph_pointing_at_the_table_below_and_a_header_naming_its_cells_in_turn(
        tmp_path, evaluation, found):
    # before, the paragraph ending `in the following table.` was no caption (no run was
    # named) and `Training / Evaluation Time` named neither number: no metric either
    report = run(tmp_path, COSTS, COST_TABLE.format(evaluation=evaluation))
    assert_drifts(report, found, "fb/rot/evaluation_time/test", 2)


SHARES = [alias_claim(f"blogcat_{share}pct", model.lower(), "micro_f1", value,
                      [model, "BlogCat", f"{share}%"])
          for model, values in (("Walk", (35.12, 38.64, 41.37)), ("Line", (34.80, 38.02, 40.96)))
          for share, value in zip((10, 30, 50), values, strict=True)] + [
    alias_claim("blogcat", "line", "training_time", 2.3, ["Line", "BlogCat"], unit="min",
                direction="lower")]
SHARE_GRID = ("+---------+-------+-------+-------+\n| BlogCat | 10%   | 30%   | 50%   |\n"
              "+=========+=======+=======+=======+\n| Walk    | 35.12 | 38.64 | {walk} |\n"
              "+---------+-------+-------+-------+\n| Vec     | Out of Memory         |\n"
              "+---------+-------+-------+-------+\n| Line    | 34.80 | 38.02 | 40.96 |\n"
              "+---------+-------+-------+-------+\n")


@pytest.mark.parametrize("walk, found", [("41.37", set()), ("41.73", {"41.73"})],
                         ids=["clean", "drifted"])
def test_a_dataset_over_columns_of_its_settings_and_a_row_out_of_memory(tmp_path, walk, found):
    # before, `BlogCat`, written as the id of the dataset's own experiment (its training
    # time), named that experiment, not the `10%` to `50%` runs of its columns; and the
    # `Out of Memory` row, names only, read as the header of the rows below it
    report = run(tmp_path, SHARES, ".. table::\n\n" + "".join(
        f"   {line}\n" for line in SHARE_GRID.format(walk=walk).splitlines()), "benchmark.rst")
    assert_drifts(report, found, "blogcat_50pct/walk/micro_f1/test", 6)
