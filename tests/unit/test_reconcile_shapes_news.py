"""Shapes of results the real corpus's forty-first held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a detector's news line that opens
with its date in brackets, `[2021-06-20] The real time version of CenterPoint ranked 2nd …
(72.8 mAPH / 57.1 ms)`; its abstract's `CenterPoint achieved state-of-the-art performance …
with 65.5 NDS`; an RL toolkit's baseline table whose cells carry a note's number, `70.5 [1]`,
the note itself under `### Notes`. The snippets follow those shapes, with numbers of their
own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

REALTIME = [alias_claim("waymo_det", "realtime", "maph", 71.4,
                        ["real time version of CenterPoint", "Waymo", "mAPH"], unit=None)]
NEWS = ("## News\n\n[2021-06-20] The real time version of CenterPoint ranked 2nd in the Waymo "
        "Real-time 3D detection challenge ({maph} mAPH / 57.1 ms).\n")


@pytest.mark.parametrize("maph, found", [("71.4", set()), ("71.2", {("realtime", "71.2")})],
                         ids=["clean", "drifted"])
def test_a_bracketed_date_cites_no_other_work(tmp_path, maph, found):
    # before, `[2021-06-20]` read as a citation `[2021-6-20]` before the number: another
    # work's, not read
    report = run(tmp_path, REALTIME, NEWS.format(maph=maph))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 1


BENCHMARK = [alias_claim(exp, variant, metric, value,
                         ["VoxelNet", "nuScenes benchmark", "single model", name], unit=None)
             for exp, variant, metric, name, value in (
                 ("nusc_det", "voxelnet", "nds", "NDS", 66.1),
                 ("nusc_track", "voxelnet_flip", "amota", "AMOTA", 62.7))]
ABSTRACT = ("CenterPoint {verb} state-of-the-art performance on the nuScenes benchmark for both 3D "
            "detection and tracking, with {nds} NDS and 62.7 AMOTA for a single model.\n")


@pytest.mark.parametrize("verb, nds, found", [
    ("achieved", "66.1", {"matched": 2}),
    ("achieved", "66.4", {"drift": 1, "matched": 1}),
    ("falls short of the", "66.4", {})], ids=["clean", "drifted", "someone-else-s"])
def test_achieving_the_state_of_the_art_names_no_other_system(tmp_path, verb, nds, found):
    # before, `state-of-the-art` named another system, whose numbers these were: not read;
    # falling short of it still says the numbers are another's
    report = run(tmp_path, BENCHMARK, ABSTRACT.format(verb=verb, nds=nds))
    counted = {status: len(report[status]) for status in ("drift", "matched") if report[status]}
    assert counted == found and report["unmapped"] == []


GSM8K = [alias_claim("gsm8k", method.lower(), "test_score", value,
                     ["deepseek-llm-7b-chat", method, "GSM8k", "Test score"])
         for method, value in (("PPO", 70.2), ("GRPO", 71.6))]
BASELINES = ("### GSM8k\n\n| Model | Method | Test score | Details |\n|---|---|---|---|\n"
             "| deepseek-llm-7b-chat | PPO | {ppo} [1] | [log](logs/ppo.log) |\n"
             "| deepseek-llm-7b-chat | GRPO | 71.6 [1] | [log](logs/grpo.log) |\n\n"
             "### Notes\n\n[1] {note}\n")
OWN_NOTE = "During evaluation, we have only extracted answers following the format `####`."
REFERENCE = "Z. Shao et al. DeepSeekMath: pushing the limits of mathematical reasoning. 2024."


@pytest.mark.parametrize("ppo, note, found", [
    ("70.2", OWN_NOTE, {"matched": 2}),
    ("70.5", OWN_NOTE, {"drift": 1, "matched": 1}),
    ("70.5", REFERENCE, {})], ids=["clean", "drifted", "cited"])
def test_a_numbered_note_s_mark_after_a_cell_s_number_cites_nothing(tmp_path, ppo, note, found):
    # before, `[1]` after each score read as a citation: the numbers were another work's and
    # none was read; a reference list's `[1]` (a year, `et al`) still cites one
    report = run(tmp_path, GSM8K, BASELINES.format(ppo=ppo, note=note))
    counted = {status: len(report[status]) for status in ("drift", "matched") if report[status]}
    assert counted == found and report["unmapped"] == []
