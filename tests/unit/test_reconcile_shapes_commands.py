"""Shapes of results the real corpus's thirty-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a reST model-zoo page whose
single-run results follow the command that produced them (``It produces the final slot
labelling F1 = 95.83%``), beside a table of the same metric's three-seed mean; a sentence of
ours that sets the original paper's number beside it (``We achieve 85.0% accuracy …,
comparable to 86.3% reported in the original paper``). The snippets follow those shapes, with
numbers of their own. And one shape a `dev` project had long shown: tables of per-seed columns
whose corners name the machine (``DGX A100 80GB, FP16, 8x GPU``), where ``Seed #2`` names the
best seed of the run on another machine."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

SLOTS = [alias_claim("atis", "bert_single_run", "slot_f1", 95.71,
                     ["finetune_icsl.py", "ATIS", "slot labelling F1", "Slot F1"]),
         alias_claim("atis", "bert_three_seeds", "slot_f1", 95.80,
                     ["Ours", "ATIS", "slot labelling F1", "Slot F1"], n=3,
                     variance={"type": "std", "value": 0.05})]
PAGE = ("For the ATIS dataset, use the following command to run the experiment:\n\n"
        ".. code-block:: console\n\n    $ python finetune_icsl.py --gpu 0 --dataset atis\n\n"
        "It produces the final slot labelling F1 = `{single}%`\n\n"
        "Also, we train the models with three random seeds and report the mean/std.\n\n"
        "+--------+-------------+\n| Model  | Slot F1 (%) |\n+========+=============+\n"
        "| Ours   | 95.80±0.05  |\n+--------+-------------+\n")


@pytest.mark.parametrize("single, found", [("95.71", set()),
                                           ("95.74", {("bert_single_run", "95.74%")})],
                         ids=["clean", "drifted"])
def test_a_result_of_the_command_above_is_that_command_s_run(tmp_path, single, found):
    # before, "It produces" named no run: the number was left unmapped between the two
    report = run(tmp_path, SLOTS, PAGE.format(single=single), "index.rst")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    # the single run's value; the mean, its spread and its three seeds
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 4


SNLI = [alias_claim("snli", variant, "accuracy", value, [*names, "SNLI", "accuracy"])
        for variant, names, value in (("basic", ["snli-basic"], 85.0),
                                      ("intra", ["snli-intra", "intra-sentence attention"], 85.5))]
NLI = ("Test:\n\n```\n$ python main.py --model-dir output/snli-intra --mode test\n```\n\n"
       "We achieve {ours}% accuracy on the SNLI test set, compared to 86.8% reported in the\n"
       "original paper.\n")


@pytest.mark.parametrize("ours, found", [("85.5", set()), ("85.4", {("intra", "85.4%")})],
                         ids=["clean", "drifted"])
def test_the_other_work_of_a_sentence_does_not_take_a_clause_of_ours(tmp_path, ours, found):
    # before, "reported in the original paper" made the whole sentence another work's
    report = run(tmp_path, SNLI, NLI.format(ours=ours))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 1


def _best(machine: str, corner: str, seed: str, value: float) -> dict:
    return alias_claim("jasper", f"{machine}_best", "wer", value,
                       [corner, machine.upper(), seed, "dev-clean", "WER"],
                       direction="lower", unit=None)


BEST = [_best("a100", "DGX A100 80GB, FP16, 8x GPU", "Seed #3", 3.20),
        _best("dgx1", "DGX-1 32GB, FP16, 8x GPU", "Seed #2", 3.26)]
SEEDS = ("| DGX A100 80GB, FP16, 8x GPU | Seed #1 | Seed #2 | Seed #3 | Mean |\n"
         "|---:|---:|---:|---:|---:|\n| dev-clean | 3.46 | 3.55 | {a100} | 3.40 |\n\n"
         "| DGX-1 32GB, FP16, 8x GPU | Seed #1 | Seed #2 | Seed #3 | Mean |\n"
         "|---:|---:|---:|---:|---:|\n| dev-clean | 3.31 | 3.26 | 3.44 | 3.34 |\n")


@pytest.mark.parametrize("a100, found", [("3.20", set()), ("3.24", {("a100_best", "3.24")})],
                         ids=["clean", "drifted"])
def test_a_column_naming_a_run_another_corner_does_not_name_is_neither_s(tmp_path, a100, found):
    # before, the A100 table's `Seed #2` cell (3.55) was held against the DGX-1 run's best
    # seed, which `Seed #2` names in the DGX-1 table
    report = run(tmp_path, BEST, SEEDS.format(a100=a100))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2
