"""Shapes of results the real corpus's fortieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a speaker toolkit's README whose
benchmark table sits right under its one-line description, `The EER results on VoxCeleb,
CNCeleb and 3D-Speaker datasets …` (no blank line between), over columns of those datasets, one
of which has a MinDCF beside its EER in the evidence; a restoration README whose gains read
`exceeding the previous SOTA 0.28 dB`, where the evidence lists `dB` among the comparison's
names. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

EERS = {"eres2net_base": ("ERes2Net-base", 0.91, 6.72, 7.35, 12.1),
        "campp": ("CAM++", 0.72, 6.81, 7.80, 13.2)}
SPEAKERS = [claim for variant, (name, vox, cn, device, dialect) in EERS.items() for claim in (
    alias_claim("voxceleb1_o", variant, "eer", vox, [name, "VoxCeleb1-O", "EER"]),
    alias_claim("cnceleb", variant, "eer", cn, [name, "CNCeleb", "EER"]),
    alias_claim("cnceleb", variant, "mindcf", 0.4, [name, "CNCeleb", "MinDCF"], unit=None),
    alias_claim("speaker3d_cross_device", variant, "eer", device,
                [name, "3D-Speaker", "Cross-Device", "EER"]),
    alias_claim("speaker3d_cross_dialect", variant, "eer", dialect,
                [name, "3D-Speaker", "Cross-Dialect", "EER"]))]
BENCHMARK = ("## Benchmark\n"
             "The EER results on VoxCeleb, CNCeleb and 3D-Speaker datasets for speaker "
             "verification.\n"
             "| Model | Params | VoxCeleb1-O | CNCeleb | 3D-Speaker |\n"
             "|:-----:|:------:|:------:|:------:|:------:|\n"
             "| ERes2Net-base | 6.61 M | 0.91% | {cnceleb}% | 7.35% |\n"
             "| CAM++ | 7.2 M | 0.72% | 6.81% | {device}% |\n")


@pytest.mark.parametrize("cnceleb, device, found", [
    ("6.72", "7.80", set()),
    ("6.75", "7.80", {("cnceleb/eres2net_base/eer", "6.75%")}),
    ("6.72", "7.84", {("speaker3d_cross_device/campp/eer", "7.84%")})],
    ids=["clean", "drifted-cnceleb", "drifted-3d-speaker"])
def test_a_paragraph_touching_a_table_captions_it(tmp_path, cnceleb, device, found):
    # before, nothing said the CNCeleb cells were EERs rather than MinDCFs: the drifted cell
    # was no claim's; and the caption's `CNCeleb` must not then hold the `3D-Speaker` column
    # (whose aliases name two tracks, so no single experiment) against CNCeleb's claims
    report = run(tmp_path, SPEAKERS, BENCHMARK.format(cnceleb=cnceleb, device=device))
    assert {(item["claim"].rsplit("/", 1)[0], item["found"])
            for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 6


GAINS = [alias_claim("sidd", "nafnet", "psnr", 40.30, ["NAFNet", "SIDD", "PSNR", "dB PSNR"],
                     unit=None),
         alias_claim("sidd", "nafnet-vs-previous_sota", "psnr", 0.28,
                     ["NAFNet", "previous SOTA", "SIDD", "PSNR", "dB"], unit=None,
                     candidate="nafnet", baseline="previous_sota", difference=0.28)]
PROSE = ("SOTA results are achieved, e.g. 40.30 dB PSNR on SIDD (for image denoising), "
         "exceeding the previous SOTA {gain} dB with less than half of its computational "
         "costs.\n")


@pytest.mark.parametrize("gain, found", [("0.28", set()), ("0.29", {("0.29", 0.28)})],
                         ids=["clean", "drifted"])
def test_a_unit_after_a_number_is_no_run_it_sets(tmp_path, gain, found):
    # before, `dB` (one of the comparison's names in the evidence) right after the gain read as
    # a run the number was a setting of, `a 0.28 dB …` like `a 90% sparse model`: not read
    report = run(tmp_path, GAINS, PROSE.format(gain=gain))
    assert {(item["found"], item["expected"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2
