"""Shapes of results the real corpus's twenty-ninth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a checkpoint table whose cells hold
a model's accuracy and, in parentheses, its error, under headers naming both (``Prec@1 (Err)``
over ``77.698 (22.298)``); a results table whose ``Seeds`` column lists the seeds themselves
(``1337, 1234, 2026``). The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _checkpoint(metric: str, value: float, names: list[str]) -> dict:
    return {**alias_claim("imagenet", "mobilenetv2_100", metric, value,
                          ["mobilenetv2_100", *names]),
            "direction": "lower" if metric.endswith("error") else "higher"}


CHECKPOINT = [_checkpoint("top1_accuracy", 72.97, ["Prec@1 (Err)", "Prec@1"]),
              _checkpoint("top1_error", 27.03, ["Prec@1 (Err)", "Err"]),
              _checkpoint("top5_accuracy", 91.01, ["Prec@5 (Err)", "Prec@5"]),
              _checkpoint("top5_error", 8.99, ["Prec@5 (Err)", "Err"])]
PAIRS = ("|Model | Prec@1 (Err) | Prec@5 (Err) | Param#(M) |\n|---|---|---|---|\n"
         "| mobilenetv2_100 | {top1} (27.03) | 91.01 ({err5}) | 3.5 |\n")


@pytest.mark.parametrize("top1, err5, found", [
    ("72.97", "8.99", set()), ("72.94", "8.99", {("top1_accuracy", "72.94")}),
    ("72.97", "8.95", {("top5_error", "8.95")})], ids=["clean", "accuracy", "error"])
def test_a_header_naming_a_cell_s_parenthesis_names_its_second_number(
        tmp_path, top1, err5, found):
    # before, no level named a metric of its own (``Prec@1 (Err)`` is an alias of both), and
    # ``91.01 (8.99)`` was read as a mean and its spread: no cell was checked
    report = run(tmp_path, CHECKPOINT, PAIRS.format(top1=top1, err5=err5))
    assert {(item["claim"].split("/")[2], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 4


SEEDED = [{**alias_claim("fineweb", run_name, "bpb", value, [label, "BPB"], n=n),
           "direction": "lower", "unit": None}
          for run_name, label, value, n in (("byte260_10min", "byte260 10-min", 1.4116, 3),
                                            ("byte260_4hour", "byte260 4-hour", 1.3595, 1))]
SEEDS = ("| Config | BPB | Seeds |\n|---|---|---|\n"
         "| **byte260 10-min** | **1.4116** | 1337, 1234, 2026 |\n"
         "| **byte260 4-hour** | **1.3595** | 1337 |\n")


def test_a_seeds_column_listing_the_seeds_holds_no_count(tmp_path):
    # before, each seed (1337) was held against the row's seed count
    report = run(tmp_path, SEEDED, SEEDS)
    assert report["drift"] == [] and report["unmapped"] == []
    assert len(report["matched"]) == 2
