"""Shapes of results the real corpus's seventy-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a knowledge-graph library's
results page, reST simple tables whose rows run over many lines (a hyper-parameter column, one
setting a line, blank lines between the rows) under a ``Model`` corner, a runtime report after
``Ubuntu 20.04``, a tutorial's printed ``MRR: 0.28``; a multilingual model's README table
presented by ``Following is a table of …`` under a ``Validation & Training Curves`` heading.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

METRICS = (("mr", "MR"), ("mrr", "MRR"), ("hits10", "Hits@10"))
TABLE_VALUES = {"transe": (231, 0.29, 0.47), "distmult": (219, 0.27, 0.45)}
TABLE = [alias_claim("fb15k", variant, metric, TABLE_VALUES[variant][i], [name, "FB15K",
                                                                          header], unit=None)
         for variant, name in (("transe", "TransE"), ("distmult", "DistMult"))
         for i, (metric, header) in enumerate(METRICS)]
# a tutorial's run, one of whose names is the word its README uses for it
TUTORIAL = [alias_claim("got", "transe", metric, value, ["TransE", "model", "GoT", header],
                        unit=None)
            for (metric, header), value in zip(METRICS, (180, 0.33, 0.48), strict=True)]
SIMPLE = """\
FB15K
-----

========== ====== ====== ========= =====================
  Model      MR    MRR    Hits@10    Hyperparameters
========== ====== ====== ========= =====================
  TransE    231    0.29    0.47      k: 400;
                                     epochs: 4000;
                                     eta: 30;
                                     seed: 0;

  DistMult  219    DMRR    0.45      k: 300;
                                     epochs: 4000;
                                     lr: 0.29;
========== ====== ====== ========= =====================
"""


@pytest.mark.parametrize("mrr, found", [("0.27", set()),
                                        ("0.25", {("0.25", "fb15k/distmult/mrr/test")})],
                         ids=["clean", "drifted"])
def test_a_rest_simple_table_s_rows_run_over_their_continuation_lines(tmp_path, mrr, found):
    # before, the blank line after the first row ended the table at its header: the rows
    # read as prose, and a drift in the second row went unseen
    report = run(tmp_path, TABLE + TUTORIAL, SIMPLE.replace("DMRR", mrr), "results.rst")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 6 - len(found)  # the settings under the rows no results


def test_a_header_over_the_names_saying_they_are_models_names_no_claim(tmp_path):
    # `Model` over the names is what each row is, not the tutorial's run that evidence
    # calls `model`: the FB15K rows stay FB15K's, under their section's heading
    report = run(tmp_path, TABLE + TUTORIAL, SIMPLE.replace("DMRR", "0.27"), "results.rst")
    assert report["drift"] == []
    assert {item["claim"].split("/")[0] for item in report["matched"]} == {"fb15k"}


RUNTIME = [alias_claim("fb15k_runtime", "transe", "seconds_per_epoch", 0.09,
                       ["TransE", "FB15K", "seconds/epoch", "runtime report"], unit=None,
                       direction="lower")]


@pytest.mark.parametrize("system", ["Ubuntu 20.04", "CUDA 11.8", "TensorFlow 2.13"])
def test_an_operating_system_s_or_a_library_s_version_is_no_result(tmp_path, system):
    text = (f"Training the models on FB15K on one A100 GPU and {system} gives the following "
            "runtime report:\n\n| model | seconds/epoch |\n|---|---|\n| TransE | 0.09 |\n")
    report = run(tmp_path, RUNTIME, text)
    assert report["drift"] == [] and report["unmapped"] == []
    assert [item["found"] for item in report["matched"]] == ["0.09"]


OUTPUT = """\
## Training TransE on GoT

### Metrics

```python
print("MRR: %.2f" % (mrr))
```

    MRR: MRR1
    Hits@10: 0.48
    Hits@3: 0.37
"""
PRINTED = [alias_claim("got", "transe", metric, value, ["TransE", "GoT", header], unit=None)
           for metric, header, value in (("mrr", "MRR", 0.33), ("hits10", "Hits@10", 0.48),
                                         ("hits3", "Hits@3", 0.37))]


@pytest.mark.parametrize("mrr, found", [("0.33", set()),
                                        ("0.37", {("0.37", "got/transe/mrr/test")})],
                         ids=["clean", "drifted-to-another-metric-s-value"])
def test_a_printed_metric_s_value_is_that_metric_s(tmp_path, mrr, found):
    # before, nothing named the run where the number stood, and a drifted MRR equal to the
    # Hits@3 printed below it passed for Hits@3's
    report = run(tmp_path, PRINTED, OUTPUT.replace("MRR1", mrr))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found


LANGUAGES = [alias_claim(f"coco_{code}", "labse", "recall_at_10", value,
                         ["LaBSE", name, "MS-COCO testset", "R@10"], unit=None)
             for code, name, value in (("en", "En", 91.6), ("de", "De", 89.6))]
PRESENTED = """\
### Validation & Training Curves
Following is a table of the R@10 for the human-translated MS-COCO testset.

| Name | En | De |
|---|:-:|:-:|
| LaBSE | 91.6 | DE1 |
"""


@pytest.mark.parametrize("de, found", [("89.6", set()),
                                       ("89.9", {("89.9", "coco_de/labse/recall_at_10/test")})],
                         ids=["clean", "drifted"])
def test_a_paragraph_presenting_the_table_below_is_its_caption(tmp_path, de, found):
    # before, the blank line under `Following is a table of …` left the table uncaptioned,
    # and the heading's `Training` made its cells the train split's: nothing was checked
    report = run(tmp_path, LANGUAGES, PRESENTED.replace("DE1", de))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)
