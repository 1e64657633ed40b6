"""Shapes of results the real corpus's seventy-first held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a few-shot detection toolbox's
model zoo telling its runs apart only by a ``Y``/``N`` column under ``contrastive loss`` and
by ``Split`` and ``Shot`` columns of whole numbers, whose header and number compose the
evidence's names of runs (``split1``, ``1shot``). The snippets follow that shape, with
numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

RUNS = [(variant, split, shot) for variant in ("fsce", "fsce_cl") for split in (1, 2)
        for shot in (1, 5)]
VALUES = dict(zip(RUNS, (41.2, 59.4, 30.1, 44.7, 44.2, 61.5, 31.0, 45.3), strict=True))


def fsce_claim(variant: str, split: int, shot: int) -> dict:
    names = ["FSCE", "r101_fpn", f"split{split}", f"{shot}shot", "Novel AP50"]
    return alias_claim(f"voc-split{split}-{shot}shot", variant, "novel_ap50",
                       VALUES[variant, split, shot], names + (
                           ["contrastive loss"] if variant == "fsce_cl" else []), unit=None)


CLAIMS = [fsce_claim(*run_) for run_ in RUNS]
HEAD = "| arch | contrastive loss | Split | Shot | Novel AP50 |\n|---|---|---|---|---|\n"


def table(first: str) -> str:
    rows = [(variant, split, shot, VALUES[variant, split, shot]) for variant, split, shot in RUNS]
    lines = [f"| [r101_fpn](configs/x.py) | {'Y' if variant == 'fsce_cl' else 'N'} | {split} | "
             f"{shot} | {value} |" for variant, split, shot, value in rows]
    lines[0] = lines[0].replace("41.2", first)
    return HEAD + "\n".join(lines) + "\n"


@pytest.mark.parametrize("first, found", [("41.2", set()), ("41.5", {"41.5"})],
                         ids=["clean", "drifted"])
def test_runs_told_apart_by_yes_no_marks_and_numbers_their_headers_name(tmp_path, first, found):
    # before, the `contrastive loss` header named the contrastive-loss runs for every row and
    # the `Split` and `Shot` numbers named none: each number was left among many runs
    report = run(tmp_path, CLAIMS, table(first))
    assert_drifts(report, found, "voc-split1-1shot/fsce/novel_ap50/test", 8)
    assert report["unmapped"] == []


def test_yes_and_no_that_are_names_stay_names(tmp_path):
    # a `Yes` or `No` that the evidence names runs by tells the rows apart as that name: read
    # as a ✓, the `32000` row's `Yes` would name its `LanTrans` header, which the one claim of
    # `32000` (a `No` run) also carries, and its number would be that claim's drift
    claims = [alias_claim("ted", variant, "bleu", value, ["Decoupled", size, mark, "LanTrans"])
              for variant, size, mark, value in (("no_32k", "32000", "No", 12.7),
                                                 ("no_8k", "8000", "No", 12.4),
                                                 ("yes_8k", "8000", "Yes", 11.8))]
    text = ("| ngram | LanTrans | aze |\n|---|---|---|\n| 8000 | Yes | 11.8 |\n|  | No | 12.4 |\n"
            "| 32000 | Yes | 12.3 |\n|  | No | 12.7 |\n")
    assert_drifts(run(tmp_path, claims, text), set(), "", 3)


def test_a_header_with_yes_or_no_that_is_a_name_names_the_row(tmp_path):
    # `MS Testing No`, the header with the cell, is the evidence's name of the single-scale
    # run: its row states that run even where its number is the other run's (read as a ✗,
    # the row would name both runs and its 41.6 would match the multi-scale one)
    claims = [alias_claim("ade", variant, "miou", value, ["UperNet", "MS Testing", name])
              for variant, value, name in (("ms", 41.6, "MS Testing Yes"),
                                           ("ss", 40.4, "MS Testing No"))]
    text = "| Model | MS Testing | mIoU |\n|---|---|---|\n| UperNet | No | 41.6 |\n" \
        "| UperNet | Yes | 41.6 |\n"
    assert_drifts(run(tmp_path, claims, text), {"41.6"}, "ade/ss/miou/test", 2)
