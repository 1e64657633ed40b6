"""Shapes of results a text-classification library's tutorial showed (in the real corpus's
``dev``), read as a reader reads them: console sessions whose commands train a model with an
option (``>> ./fasttext supervised -input cooking.train -output model_cooking -lr 1.0``) and
then print its scores as names and numbers apart by spaces (``P@1  0.565``); and (the real
corpus's sixty-eighth held-out part) a quantization library's grid tables printed in a code
block, each titled by a comment line (``# gemma3-12b-it``). The snippets follow those shapes,
with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.names import project_vocabulary

CLAIMS = [alias_claim("cooking", variant, metric, value, [option, name, "cooking.valid"],
                      unit=None)
          for variant, option, metric, name, value in (
              ("lr1", "-lr 1.0", "precision_at_1", "P@1", 0.561),
              ("lr1", "-lr 1.0", "recall_at_1", "R@1", 0.243),
              ("epoch25", "-epoch 25", "precision_at_1", "P@1", 0.503),
              ("epoch25", "-epoch 25", "recall_at_1", "R@1", 0.217))]
SESSION = ("## Making the model better\n\nA larger learning rate:\n\n```bash\n"
           ">> ./fasttext supervised -input cooking.train -output model_cooking -lr 1.0\n"
           "Read 0M words\nNumber of words:  9012\nNumber of labels: 734\n\n"
           ">> ./fasttext test model_cooking.bin cooking.valid\n"
           "N  3000\nP@1  LR_P\nR@1  0.243\nNumber of examples: 3000\n```\n\n"
           "More epochs:\n\n```bash\n"
           ">> ./fasttext supervised -input cooking.train -output model_cooking -epoch 25\n"
           ">> ./fasttext test model_cooking.bin cooking.valid\n"
           "N  3000\nP@1  0.503\nR@1  0.217\nNumber of examples: 3000\n```\n")


@pytest.mark.parametrize("precision, found", [("0.561", set()), ("0.565", {"0.565"})],
                         ids=["clean", "drifted"])
def test_scores_a_session_prints_are_the_run_its_options_name(tmp_path, precision, found):
    # before, a code block's `P@1  0.565` lines (no colon) were not read, and a command's
    # options named no run
    report = run(tmp_path, CLAIMS, SESSION.replace("LR_P", precision))
    assert_drifts(report, found, "cooking/lr1/precision_at_1/test", 4)


def test_a_setting_with_its_value_names_the_run_trained_so():
    # before, `-lr 1.0` read as the learning rate's name (a setting the evidence has no
    # metric of) and named no variant
    vocabulary = project_vocabulary(CLAIMS, {}, "EVIDENCE.json")
    hits = vocabulary.find("-lr 1.0")
    assert [hit.facets.get("variant") for hit in hits] == [{"lr1"}]


QAT = [alias_claim(f"{model}_bbh", variant, "accuracy", value, [model, header, "bbh"], unit=None)
       for model, variant, header, value in (
           ("gemma3-12b-it", "int4_qat", "int4 QAT", 0.7831),
           ("gemma3-4b-it", "int4_qat", "int4 QAT", 0.6912))]
GRIDS = ("Results:\n\n```\n# gemma3-12b-it\n+-------------+------------+\n"
         "| Eval task   |   int4 QAT |\n+=============+============+\n"
         "| bbh         |     0.7831 |\n+-------------+------------+\n\n"
         "# gemma3-4b-it\n+-------------+------------+\n"
         "| Eval task   |   int4 QAT |\n+=============+============+\n"
         "| bbh         |     SMALL  |\n+-------------+------------+\n```\n")


@pytest.mark.parametrize("small, found", [("0.6912", set()), ("0.7829", {"0.7829"})],
                         ids=["clean", "drifted"])
def test_a_comment_above_a_printed_grid_titles_it(tmp_path, small, found):
    # before, `# gemma3-4b-it` above a grid table in a code block named nothing: a cell was
    # held against both models' claims, and a changed one against the nearer model's
    report = run(tmp_path, QAT, GRIDS.replace("SMALL ", small))
    assert_drifts(report, found, "gemma3-4b-it_bbh/int4_qat/accuracy/test", 2)
