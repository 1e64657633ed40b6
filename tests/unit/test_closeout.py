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
from rgt.pull.compare import compare_bundle
from rgt.pull.manifest import is_checkpoint, manifest_sha256


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


def weights_only_bundle(export: Path, manifest: dict, changed: str | None = None) -> Path:
    """A verified weights-only bundle of ``manifest``'s run in ``export`` (its manifest without
    the checkpoints); ``changed``: a file whose recorded hash differs from the host's."""
    light = export / RUN
    light.mkdir(parents=True)
    files = [dict(entry) for entry in manifest["files"] if not is_checkpoint(entry["path"])]
    for entry in files:
        if entry["path"] == changed:
            entry["sha256"] = "f" * 64
    kept = {**manifest, "files": files, "weights_only": True}
    write_json(light / "PULL_MANIFEST.json", kept)
    write_json(light / "PULL_VERIFIED.json", verified_record(kept))
    return light


def test_a_full_bundle_replaces_a_verified_weights_only_one(tmp_path):
    export = tmp_path / "export"
    partial = attempt(export)
    manifest = json.loads((partial / "PULL_MANIFEST.json").read_text())
    weights_only_bundle(export, manifest)
    assert existing_state(export, RUN, manifest_sha256(manifest)) == "weights-only"
    assert compare_bundle(export, RUN, manifest).kind == "adds"
    outcome = closeout(export, RUN)
    assert (outcome.state, outcome.ok) == ("exported", True)
    assert read_verified(export / RUN)["manifest_sha256"] == manifest_sha256(manifest)
    assert not list(partial.parent.iterdir())  # nothing left aside


def test_a_full_bundle_that_changes_a_weights_only_one_needs_a_refresh(tmp_path):
    export = tmp_path / "export"
    partial = attempt(export)
    manifest = json.loads((partial / "PULL_MANIFEST.json").read_text())
    weights_only_bundle(export, manifest, changed="run/train.csv")
    comparison = compare_bundle(export, RUN, manifest)
    assert (comparison.kind, comparison.paths) == ("changed", ["run/train.csv"])
    assert closeout(export, RUN).state == "quarantined"  # no refresh: the attempt goes aside


def test_a_weights_only_manifest_that_a_full_bundle_holds_is_already_pulled(tmp_path):
    export = tmp_path / "export"
    attempt(export)
    assert closeout(export, RUN).state == "exported"
    manifest = json.loads((export / RUN / "PULL_MANIFEST.json").read_text())
    light = {**manifest, "weights_only": True,
             "files": [entry for entry in manifest["files"] if not is_checkpoint(entry["path"])]}
    assert compare_bundle(export, RUN, light).kind == "covered"
    assert compare_bundle(export, RUN, manifest).kind == "same"


def test_a_refresh_keeps_the_old_bundle_aside_with_its_reason(tmp_path):
    export = tmp_path / "export"
    attempt(export)
    closeout(export, RUN)
    old = snapshot(export / RUN)
    partial = attempt(export)
    (partial / "run" / "train.csv").write_text("step,loss\n1,0.5\n2,0.25\n")
    seal(partial, skip=("PULL_VERIFIED.json",))
    assert closeout(export, RUN, refresh=True).state == "exported"
    assert "0.25" in (export / RUN / "run" / "train.csv").read_text()
    aside = quarantine_root(export) / f"{RUN}--1"
    reason = json.loads((aside / "REASON.json").read_text())["reason"]
    assert reason.startswith("set aside by rgt pull --refresh: the host's copy changed")
    assert "run/train.csv" in reason
    kept = {k: v for k, v in snapshot(aside).items() if k != "REASON.json"}
    assert kept == old  # nothing of the old bundle was lost


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
