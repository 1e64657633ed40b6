"""Closeout on real bundles: export on success, quarantine with a reason and an attempt number on
failure, a no-op for the same manifest, and never an overwrite or a deletion."""

from __future__ import annotations

import json
from pathlib import Path

from test_pull_verify import CKPT, RUN, make_bundle, seal

from rgt.base.files import write_json
from rgt.base.hashing import sha256_file
from rgt.pull.bundle import verify_bundle
from rgt.pull.closeout import (
    OTHER_MANIFEST,
    closeout,
    existing_state,
    next_attempt,
    partial_dir,
    quarantine_root,
    read_verified,
    verified_record,
)
from rgt.pull.manifest import manifest_sha256


def attempt(export: Path, run_id: str = RUN) -> Path:
    """A complete attempt assembled in ``export/.partial/<run_id>``."""
    partial_dir(export, run_id).parent.mkdir(parents=True, exist_ok=True)
    return make_bundle(partial_dir(export, run_id).parent, run_id)


def snapshot(directory: Path) -> dict[str, str]:
    return {p.relative_to(directory).as_posix(): sha256_file(p)
            for p in sorted(directory.rglob("*")) if p.is_file()}


def test_a_verified_attempt_is_stamped_and_renamed_into_place(tmp_path):
    export = tmp_path / "export"
    partial = attempt(export)
    files = snapshot(partial)
    manifest = json.loads((partial / "PULL_MANIFEST.json").read_text())
    outcome = closeout(export, RUN)
    assert (outcome.state, outcome.path, outcome.ok) == ("exported", export / RUN, True)
    assert not partial.exists()
    verified = json.loads((export / RUN / "PULL_VERIFIED.json").read_text())
    assert verified.pop("verified_at").endswith("Z")
    assert verified == {"schema": "rgt/pull-verified/v1", "run_id": RUN,
                        "manifest_sha256": manifest_sha256(manifest),
                        "files": len(manifest["files"]), "bytes": manifest["totals"]["bytes"],
                        "weights_only": False}
    assert {k: v for k, v in snapshot(export / RUN).items() if k != "PULL_VERIFIED.json"} == files
    assert existing_state(export, RUN, manifest_sha256(manifest)) == "same"
    assert verify_bundle(export / RUN) == []
    (export / RUN / "run" / "train.csv").write_text("edited after the pull\n")
    seal(export / RUN, skip=("PULL_VERIFIED.json",))  # and a manifest forged to match
    assert [(p.path, p.kind) for p in verify_bundle(export / RUN)] == \
        [("PULL_VERIFIED.json", "hash")]


def test_a_failed_attempt_goes_to_quarantine_with_its_reason_and_numbers(tmp_path):
    export = tmp_path / "export"
    for number in (1, 2):
        partial = attempt(export)
        (partial / CKPT).write_bytes(b"torn")
        files = snapshot(partial)
        outcome = closeout(export, RUN)
        target = quarantine_root(export) / f"{RUN}--{number}"
        assert (outcome.state, outcome.path, outcome.ok) == ("quarantined", target, False)
        assert not partial.exists() and not (export / RUN).exists()
        reason = json.loads((target / "REASON.json").read_text())
        assert reason["attempt"] == number and reason["reason"] == "verification failed"
        assert {(p["path"], p["kind"]) for p in reason["problems"]} == {(CKPT, "size"),
                                                                        (CKPT, "unloadable")}
        assert {k: v for k, v in snapshot(target).items() if k != "REASON.json"} == files
        assert not (target / "PULL_VERIFIED.json").exists()


def test_the_same_manifest_again_is_a_no_op_success(tmp_path):
    export = tmp_path / "export"
    attempt(export)
    closeout(export, RUN)
    before = snapshot(export / RUN)
    attempt(export)
    outcome = closeout(export, RUN)
    assert (outcome.state, outcome.ok) == ("already", True)
    assert snapshot(export / RUN) == before
    assert not quarantine_root(export).exists()


def test_another_manifest_never_overwrites_an_export(tmp_path):
    export = tmp_path / "export"
    attempt(export)
    closeout(export, RUN)
    before = snapshot(export / RUN)
    partial = attempt(export)
    (partial / "run" / "train.csv").write_text("epoch,step,train_loss\n1,10,0.25\n")
    seal(partial)
    outcome = closeout(export, RUN)
    assert outcome.state == "quarantined" and outcome.reason == OTHER_MANIFEST.format(run_id=RUN)
    assert outcome.reason == f"export/{RUN} exists with another manifest"
    assert snapshot(export / RUN) == before
    reason = json.loads((outcome.path / "REASON.json").read_text())
    assert reason["reason"] == outcome.reason and reason["problems"] == []
    assert (outcome.path / "run" / "train.csv").read_text().endswith("0.25\n")


def test_an_unverified_directory_in_the_way_is_another_manifest(tmp_path):
    export = tmp_path / "export"
    (export / RUN).mkdir(parents=True)
    (export / RUN / "hand-made.txt").write_text("someone's files")
    attempt(export)
    outcome = closeout(export, RUN)
    assert outcome.state == "quarantined"
    assert (export / RUN / "hand-made.txt").read_text() == "someone's files"


def test_attempt_numbers_continue_after_the_highest(tmp_path):
    root = tmp_path / "quarantine"
    assert next_attempt(root, RUN) == 1
    for name in (f"{RUN}--1", f"{RUN}--7", f"{RUN}--x", "other--9"):
        (root / name).mkdir(parents=True)
    assert next_attempt(root, RUN) == 8


def test_a_full_bundle_replaces_a_verified_weights_only_one(tmp_path):
    export = tmp_path / "export"
    partial = attempt(export)
    manifest = json.loads((partial / "PULL_MANIFEST.json").read_text())
    light = export / RUN
    light.mkdir(parents=True)
    write_json(light / "PULL_VERIFIED.json", {**verified_record({**manifest, "files": []}),
                                              "manifest_sha256": "0" * 64, "weights_only": True})
    assert existing_state(export, RUN, manifest_sha256(manifest)) == "weights-only"
    outcome = closeout(export, RUN)
    assert (outcome.state, outcome.ok) == ("exported", True)
    assert read_verified(export / RUN)["manifest_sha256"] == manifest_sha256(manifest)
    assert not list(partial.parent.iterdir())  # nothing left aside


def test_a_weights_only_bundle_never_replaces_a_verified_one(tmp_path):
    export = tmp_path / "export"
    partial = attempt(export)
    manifest = json.loads((partial / "PULL_MANIFEST.json").read_text())
    write_json(partial / "PULL_MANIFEST.json", {**manifest, "weights_only": True})
    light = export / RUN
    light.mkdir(parents=True)
    write_json(light / "PULL_VERIFIED.json", {**verified_record(manifest),
                                              "manifest_sha256": "0" * 64, "weights_only": True})
    outcome = closeout(export, RUN)
    assert (outcome.state, outcome.reason) == ("quarantined", OTHER_MANIFEST.format(run_id=RUN))
