"""Reproduction: regenerated evidence vs the committed reference within declared tolerances,
and delivery never editing a byte of a sealed run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import rgt
from evidence_helpers import deliver
from rgt.base.hashing import sha256_file
from rgt.cli import main

pytestmark = pytest.mark.integration
PLAIN = "digits/plain/accuracy/test"


@pytest.fixture
def delivered(tmp_path, monkeypatch) -> Path:
    """Synthetic runs delivered, and the evidence committed as reference/EVIDENCE.json."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(
        "tolerances: {accuracy: 1.0e-9}\nclaims:\n  digits/dropout/accuracy/test:\n"
        "    tolerance: 0.01\n")
    deliver(tmp_path, claims="claims.yaml")
    (tmp_path / "reference").mkdir()
    shutil.copy(tmp_path / "evidence/EVIDENCE.json", tmp_path / "reference/EVIDENCE.json")
    return tmp_path


def edit_reference(project: Path, claim_id: str, **changes) -> None:
    path = project / "reference/EVIDENCE.json"
    evidence = json.loads(path.read_text())
    for claim in evidence["claims"]:
        if claim["id"] == claim_id:
            claim.update(changes)
    evidence["claims"] = [c for c in evidence["claims"] if c.get("value") != "drop"]
    path.write_text(json.dumps(evidence))


def check(project: Path):
    return rgt(["check-evidence", "--reference", "reference/EVIDENCE.json"], project, 60)


def test_a_faithful_rebuild_reproduces_every_number(delivered):
    result = check(delivered)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 of 5 reference claim(s) reproduced, 0 mismatch(es)" in result.stderr


def test_a_tampered_committed_number_fails_with_the_list(delivered):
    edit_reference(delivered, PLAIN, value=0.9566)
    result = check(delivered)
    assert result.returncode == 1
    assert f"MISMATCH {PLAIN}: value is 0.95649" in result.stdout
    assert "reference 0.9566 (tolerance 1e-09)" in result.stdout
    assert "4 of 5 reference claim(s) reproduced, 1 mismatch(es)" in result.stderr


def test_a_difference_within_the_declared_tolerance_passes(delivered, capsys):
    reference = json.loads((delivered / "reference/EVIDENCE.json").read_text())
    dropout = {c["id"]: c for c in reference["claims"]}["digits/dropout/accuracy/test"]
    assert dropout["tolerance"] == 0.01
    edit_reference(delivered, dropout["id"], value=dropout["value"] + 0.005)
    assert main(["check-evidence", "--reference", "reference/EVIDENCE.json"]) == 0
    edit_reference(delivered, dropout["id"], value=dropout["value"] + 0.02)
    assert main(["check-evidence", "--reference", "reference/EVIDENCE.json"]) == 1


def test_a_vanished_or_new_claim_is_a_mismatch(delivered, capsys):
    edit_reference(delivered, PLAIN, value="drop")
    assert main(["check-evidence", "--reference", "reference/EVIDENCE.json", "--json"]) == 1
    (item,) = json.loads(capsys.readouterr().out)
    assert item["claim"] == PLAIN and item["problem"] == "not in the reference evidence"


def test_a_changed_n_is_a_mismatch_even_with_the_same_value(delivered, capsys):
    edit_reference(delivered, PLAIN, n=3)
    assert main(["check-evidence", "--reference", "reference/EVIDENCE.json"]) == 1
    assert "n is 2, reference 3" in capsys.readouterr().out


def snapshot(runs: Path) -> dict:
    return {p.relative_to(runs).as_posix(): (sha256_file(p), p.stat().st_mtime_ns)
            for p in sorted(runs.rglob("*")) if p.is_file()}


def test_delivering_again_never_edits_a_byte_of_a_sealed_run(delivered):
    before = snapshot(delivered / "runs")
    for argv in (["aggregate", "--out", "evidence/results.json"],
                 ["source-data", "--fig", "test_accuracy"],
                 ["figure", "--fig", "test_accuracy"],
                 ["evidence", "--claims", "claims.yaml"],
                 ["report"]):
        assert main(argv) == 0, argv
    assert snapshot(delivered / "runs") == before
    assert main(["check-evidence", "--reference", "reference/EVIDENCE.json"]) == 0


def test_data_pins_pass_on_the_same_data_and_name_a_changed_one(tmp_path, tiny_config):
    from conftest import write_config

    config = write_config(tmp_path, tiny_config)
    assert rgt(["data-pin", "--config", str(config)], tmp_path, 120).returncode == 0
    pins = json.loads((tmp_path / "evidence/data.json").read_text())
    assert {(p["exp_id"], p["variant"]) for p in pins["data"]} == {("tiny", "plain"),
                                                                   ("tiny", "dropout")}
    assert rgt(["data-pin", "--config", str(config), "--check"], tmp_path, 120).returncode == 0
    tiny_config["defaults"]["data"]["split"]["seed"] = 1
    write_config(tmp_path, tiny_config)
    result = rgt(["data-pin", "--config", str(config), "--check"], tmp_path, 120)
    assert result.returncode == 1
    assert "tiny/plain: split_sha256 is" in result.stderr and "fix: restore" in result.stderr


OTHER_PLATFORM = [{"fingerprint": "0123456789abcdef", "cpu": "Intel(R) Xeon(R) Gold 6248",
                   "capability": "AVX512", "torch": "2.13.0+cpu", "blas": "mkl", "threads": 1,
                   "device": "cpu", "runs": 5}]


def made_elsewhere(project: Path, claim_id: str, shift: float) -> dict:
    """The reference as if made on another platform, one claim's value moved by ``shift``."""
    path = project / "reference/EVIDENCE.json"
    evidence = json.loads(path.read_text())
    evidence["made_on"] = OTHER_PLATFORM
    for claim in evidence["claims"]:
        if claim["id"] == claim_id:
            claim["value"] += shift
            if claim["variance"]["type"] == "ci95":
                claim["variance"]["value"] = [end + shift for end in claim["variance"]["value"]]
            moved = claim
    path.write_text(json.dumps(evidence))
    return moved


def test_numbers_made_on_another_platform_are_judged_by_the_seed_spread(delivered):
    # 1e-4 is far beyond the claim's tolerance (1e-9) but well inside 3 seeds' 95% interval.
    moved = made_elsewhere(delivered, "digits/dropout/accuracy/test", 1e-4)
    result = check(delivered)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cross-machine reproduction: the committed evidence was made on Intel(R) Xeon(R) " \
           "Gold 6248 [AVX512]" in result.stdout
    assert "Bit-identity holds on one platform only" in result.stdout
    line = next(x for x in result.stdout.splitlines()
                if x.startswith("  ok digits/dropout/accuracy/test:"))
    assert f"{moved['value']!r} committed" in line and "diff -0.0001" in line
    assert "within the reference mean's 95% interval" in line and "seed std" in line


def test_another_platform_outside_the_seed_spread_is_a_mismatch(delivered):
    made_elsewhere(delivered, "digits/dropout/accuracy/test", 0.05)
    result = check(delivered)
    assert result.returncode == 1
    assert "MISMATCH digits/dropout/accuracy/test:" in result.stdout
    assert "within the reference mean's 95% interval" in result.stdout
    assert "4 of 5 reference claim(s) reproduced, 1 mismatch(es)" in result.stderr


def test_a_comparison_made_elsewhere_must_land_inside_the_reference_interval(delivered):
    claim = "digits/dropout-vs-plain/accuracy/test"
    made_elsewhere(delivered, claim, 0.005)  # the interval is diff ± 0.01
    assert check(delivered).returncode == 0
    made_elsewhere(delivered, claim, 0.02)
    result = check(delivered)
    assert result.returncode == 1 and f"MISMATCH {claim}:" in result.stdout
    assert "inside the reference's 95% CI" in result.stdout


def test_a_single_seed_made_elsewhere_is_held_to_the_tolerance(delivered, capsys):
    from rgt.evidence.check_reference import reproduce

    reference = json.loads((delivered / "reference/EVIDENCE.json").read_text())
    current = json.loads((delivered / "evidence/EVIDENCE.json").read_text())
    reference["made_on"] = OTHER_PLATFORM
    claim = next(c for c in reference["claims"] if c["id"] == PLAIN)
    claim.update(n=1, variance={"type": "std", "value": None}, value=claim["value"] + 1e-4)
    next(c for c in current["claims"] if c["id"] == PLAIN)["n"] = 1
    result = reproduce(reference, current)
    [mismatch] = result.mismatches
    assert mismatch["claim"] == PLAIN and "no seed spread" in mismatch["problem"]
