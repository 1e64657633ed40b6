"""Shapes of results the real corpus's fifty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: GraphVite's speed table, its
times written with their units in the cells (`1.18 mins`) beside other implementations'
times in Markdown reference links (`[1.39 hrs (CPU parallel)][2]`). The snippets follow that
shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
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
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {(number, "flickr/walk/micro_f1/test") for number in found}
    assert len(report["matched"]) == 4 - len(found)
