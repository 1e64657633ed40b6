"""Shapes of results the real corpus's twenty-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a README whose test results sit
in prose under splits of their own (``**72.42%** for test-dev and **72.54%** for
test-standard``) after a sentence on the validation result, with expected ranges (``around
**74.0** to **74.5**``, ``0.1% to 0.5% lower``) and ``after training`` nearby; a speedrun's
bullets giving a signed change of a lower-is-better loss by its label (``Δloss -0.0007``)
beside ``strictly-better loss``, and naming the run in the sentence while the clause's only
name is the ``Δ`` every comparison shares; a results table beside inference times measured
on the same splits (``GPU- Test-clean Inference Time``). The snippets follow those shapes,
with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _vqa(split: str, value: float, names: list[str]) -> dict:
    return {**alias_claim("vqa", "lxmert", "accuracy", value,
                          ["LXMERT", "VQA", "testing accuracy", *names]),
            "id": f"vqa/lxmert/accuracy/{split}", "split": split}


SPLITS = [_vqa("val", 69.90, ["validation result"]), _vqa("test-dev", 72.42, ["test-dev"]),
          _vqa("test-std", 72.54, ["test-standard"])]
PROSE = ("### VQA\nThe validation result after training will be around **69.7%** to "
         "**70.2%**.\nThe testing accuracy with this code is **{dev}%** for test-dev and "
         "**{std}%** for test-standard.\n")


@pytest.mark.parametrize("dev, std, found", [
    ("72.42", "72.54", set()), ("72.46", "72.54", {("test-dev", "72.46%")}),
    ("72.42", "72.51", {("test-std", "72.51%")})], ids=["clean", "test-dev", "test-std"])
def test_splits_of_the_evidence_s_own_are_named_and_a_range_is_no_result(
        tmp_path, dev, std, found):
    # before, "test-dev" named no split (the validation sentence's did), "test-standard"
    # only the test split, "after training" the training split, and the range's ends were
    # held against the validation claim
    report = run(tmp_path, SPLITS, PROSE.format(dev=dev, std=std))
    assert {(item["claim"].split("/")[-1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == []
    assert len(report["drift"] + report["matched"]) == 2


def _run(variant: str, loss: float, delta: float | None = None) -> dict:
    if delta is None:
        return {**alias_claim("speedrun", variant, "loss", loss, [variant, "loss"]),
                "direction": "lower", "unit": None}
    return {**alias_claim("speedrun", f"{variant}-vs-baseline", "loss", -delta,
                          [variant, "Δloss", "Δ"], candidate=variant, baseline="baseline",
                          difference=delta), "direction": "lower", "unit": None}


RUNS = [_run("baseline", 3.2788), _run("v1_1415", 3.2815), _run("v2", 3.2781),
        _run("v1_1415", 3.2815, 0.0027), _run("v2", 3.2781, -0.0007)]
BULLETS = ("## v2\n"
           "- **v2 reaches loss 3.2781 at strictly-better loss** (Δloss `{v2}` vs baseline).\n"
           "- v1_1415 misses the target (loss 3.2815, Δ `{v1}`), so the new targets matter.\n")


@pytest.mark.parametrize("v2, v1, found", [
    ("-0.0007", "+0.0027", set()), ("+0.0007", "+0.0027", {"+0.0007"}),
    ("-0.0007", "+0.0031", {"+0.0031"})], ids=["clean", "wrong sign", "drift"])
def test_a_change_labelled_delta_is_the_change_and_the_sentence_names_its_run(
        tmp_path, v2, v1, found):
    # before, "strictly-better" made Δloss -0.0007 a positive-is-better value (+0.0007), and
    # the v1 bullet's Δ was held against the v2 heading's comparison
    report = run(tmp_path, RUNS, BULLETS.format(v2=v2, v1=v1))
    assert {item["found"] for item in report["drift"]} == found
    assert report["unmapped"] == []


def _wer(split: str, value: float) -> dict:
    return {**alias_claim("librispeech", "whisper_small", "wer", value,
                          ["train_hf_whisper.yaml (small)", "WER"]),
            "id": f"librispeech/whisper_small/wer/{split}", "split": split,
            "direction": "lower"}


TIMED = [_wer("test_clean", 4.72), _wer("test_other", 12.66)]
TIMES = ("| Hyperparams file | Test-clean WER | GPU- Test-clean Inference Time | Test-other WER "
         "| GPU- Test-other Inference Time |\n|---|---|---|---|---|\n"
         "| train_hf_whisper.yaml (small) | 4.72 | 3.08 | 12.66 | 3.30 |\n")


def test_an_inference_time_on_a_split_is_no_result_on_it(tmp_path):
    # before, "Test-clean" named no split and no cell was checked; with the evidence's split
    # ids as names, the time columns would name the WER claims too, were inference time not
    # a quantity of its own
    report = run(tmp_path, TIMED, TIMES)
    assert report["drift"] == [] and report["unmapped"] == []
    assert len(report["matched"]) == 2
