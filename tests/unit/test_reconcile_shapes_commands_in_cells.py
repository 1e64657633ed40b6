"""Shapes of results the real corpus's forty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a re-identification README whose
model table ends each row with its training command as code (`` `python train.py --lr 0.02
--erasing_p 0.5 …; python test.py …` ``); a parsing paper's `yields an error reduction of
2.9\\%`, a relative gain in F1. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

MODELS = [alias_claim("market1501", variant, metric, value, [name, "Market-1501", metric_name])
          for variant, name, rank1, map_ in (("resnet50_circle", "ResNet-50 (Circle)", 92.4, 80.1),
                                             ("densenet121", "DenseNet-121", 90.2, 74.0))
          for metric, metric_name, value in (("rank1", "Rank@1", rank1), ("map", "mAP", map_))]
TRAINED = ("|Methods | Rank@1 | mAP| Reference|\n| -------- | ----- | ---- | ---- |\n"
           "| [ResNet-50 (Circle)] | {rank1}% | 80.10% | `python train.py --warm_epoch 5 "
           "--erasing_p 0.5 --lr 0.02 --name warm5_p0.5_circle --circle; python test.py "
           "--name warm5_p0.5_circle` |\n"
           "| [DenseNet-121] | 90.20% | 74.00% | `python train.py --use_dense --lr 0.05` |\n")


@pytest.mark.parametrize("rank1, found", [("92.40", set()), ("92.45", {"92.45%"})],
                         ids=["clean", "drifted"])
def test_a_command_in_a_table_cell_names_nothing(tmp_path, rank1, found):
    # before, the command's `--lr` and `--erasing_p` named other metrics (a learning rate, a
    # probability) and `train.py` / `test.py` two splits: no cell of such a row was read
    report = run(tmp_path, MODELS, TRAINED.format(rank1=rank1))
    assert {item["found"] for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 4


MULTITASK = [alias_claim("wiki_en", "all-vs-single", "lf_primary", 2.9,
                         ["All", "Single", "single-task baseline", "primary", "F1"],
                         candidate="all", baseline="single", difference=2.9, relative=True)]
PROSE = ("Using all auxiliary tasks improves the primary F1 over the single-task baseline, "
         "which yields an {word} of 2.9\\%.\n")


@pytest.mark.parametrize("word, drifts", [("error reduction", 0), ("overall reduction", 1)],
                         ids=["error-reduction", "a-plain-reduction"])
def test_an_error_reduction_is_better_whatever_the_metric(tmp_path, word, drifts):
    # before, `reduction` said F1 went down: a false drift whose fix read `error increase`;
    # a reduction of nothing named is still F1's, the wrong way
    report = run(tmp_path, MULTITASK, PROSE.format(word=word), "paper.tex")
    assert len(report["drift"]) == drifts and len(report["drift"] + report["matched"]) == 1
    assert report["unmapped"] == []
