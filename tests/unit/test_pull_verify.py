"""Bundle verification on real bundles with real torch checkpoints: each problem kind planted
and reported with its kind; ``rgt pull --verify-only`` output and exit codes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch
from torch import nn

from rgt.cli import main
from rgt.pull.bundle import KINDS, verify_bundle
from rgt.pull.manifest import hash_file, manifest_text

RUN = "0123456789abcdef"
CKPT = "checkpoints/step-000000010.pt"


class Arbitrary:
    """Not a tensor or a container: weights_only refuses to unpickle it."""

    def __init__(self):
        self.payload = [1, 2, 3]


def checkpoint_state(seed: int = 0) -> dict:
    """A training state like rgt's: model, optimizer, scalars and rng."""
    torch.manual_seed(seed)
    model = nn.Linear(8, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(4, 8)).sum().backward()
    optimizer.step()
    return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 10,
            "rng": {"torch": torch.get_rng_state()}, "history": [{"epoch": 1, "loss": 0.5}],
            "selection": {"best": float("inf"), "step": None}}


def seal(bundle: Path, run_id: str = RUN, skip: tuple[str, ...] = ()) -> dict:
    """Write PULL_MANIFEST.json listing every file now in ``bundle`` (as the host would)."""
    files = []
    for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = path.relative_to(bundle).as_posix()
        if rel not in ("PULL_MANIFEST.json", *skip):
            size, digest = hash_file(str(path))
            files.append({"path": rel, "bytes": size, "sha256": digest})
    manifest = {"schema": "rgt/pull/v1", "run_id": run_id, "created_at": "2026-01-01T00:00:00Z",
                "files": files, "totals": {"files": len(files),
                                           "bytes": sum(f["bytes"] for f in files)}}
    (bundle / "PULL_MANIFEST.json").write_text(manifest_text(manifest))
    return manifest


def make_bundle(parent: Path, run_id: str = RUN, seal_it: bool = True) -> Path:
    """A complete, sealed run's bundle with real torch files."""
    bundle = parent / run_id
    (bundle / "run").mkdir(parents=True)
    (bundle / "checkpoints").mkdir()
    (bundle / "job").mkdir()
    (bundle / "run" / "run.json").write_text(json.dumps({"run_id": run_id, "status": "finished"}))
    (bundle / "run" / "train.csv").write_text("epoch,step,train_loss\n1,10,0.5\n")
    torch.save(checkpoint_state()["model"], bundle / "run" / "model.pt")
    torch.save(checkpoint_state(), bundle / CKPT)
    (bundle / "checkpoints" / "step-000000010.json").write_text('{"step": 10}')
    (bundle / "job" / "exit_code").write_text("0\n")
    if seal_it:
        seal(bundle, run_id)
    return bundle


def kinds(problems) -> set[str]:
    return {problem.kind for problem in problems}


def test_a_complete_bundle_has_no_problems(tmp_path):
    assert verify_bundle(make_bundle(tmp_path)) == []


def test_missing_extra_size_and_hash_are_each_reported(tmp_path):
    bundle = make_bundle(tmp_path)
    (bundle / "run" / "train.csv").unlink()
    (bundle / "run" / "notes.txt").write_text("not in the manifest")
    with open(bundle / "job" / "exit_code", "ab") as handle:
        handle.write(b"more")
    data = bytearray((bundle / "checkpoints" / "step-000000010.json").read_bytes())
    data[0] ^= 1
    (bundle / "checkpoints" / "step-000000010.json").write_bytes(bytes(data))
    found = {(p.path, p.kind) for p in verify_bundle(bundle)}
    assert found == {("run/train.csv", "missing"), ("run/notes.txt", "extra"),
                     ("job/exit_code", "size"), ("checkpoints/step-000000010.json", "hash")}


def test_a_truncated_checkpoint_is_unloadable(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    data = (bundle / CKPT).read_bytes()
    (bundle / CKPT).write_bytes(data[: len(data) // 2])
    seal(bundle)  # the host listed the torn file itself: size and hash match
    problems = verify_bundle(bundle)
    assert [(p.path, p.kind) for p in problems] == [(CKPT, "unloadable")]


def test_nan_anywhere_in_a_checkpoint_is_nonfinite(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    state = checkpoint_state()
    state["optimizer"]["state"][0]["momentum_buffer"][1, 2] = float("nan")
    torch.save(state, bundle / CKPT)
    weights = checkpoint_state()["model"]
    weights["bias"][0] = float("inf")
    torch.save(weights, bundle / "run" / "model.pt")
    seal(bundle)
    found = {(p.path, p.kind, p.detail) for p in verify_bundle(bundle)}
    assert found == {(CKPT, "nonfinite", "optimizer.state.0.momentum_buffer holds NaN or Inf"),
                     ("run/model.pt", "nonfinite", "bias holds NaN or Inf")}


def test_a_pickle_of_an_arbitrary_class_is_unsafe_unless_allowed(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    torch.save({"model": checkpoint_state()["model"], "extra": Arbitrary()}, bundle / CKPT)
    seal(bundle)
    problems = verify_bundle(bundle)
    assert [(p.path, p.kind) for p in problems] == [(CKPT, "unsafe")]
    assert "Arbitrary" in problems[0].detail
    assert verify_bundle(bundle, allow_unsafe_pickle=True) == []


def test_garbage_named_pt_is_unloadable_even_when_unsafe_pickles_are_allowed(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    (bundle / CKPT).write_bytes(b"this is not a checkpoint")
    seal(bundle)
    assert kinds(verify_bundle(bundle, allow_unsafe_pickle=True)) == {"unloadable"}


def test_symlinks_listed_or_not_are_reported(tmp_path):
    bundle = make_bundle(tmp_path)
    outside = tmp_path / "outside.csv"
    shutil.move(bundle / "run" / "train.csv", outside)
    (bundle / "run" / "train.csv").symlink_to(outside)
    (bundle / "job" / "sneaky").symlink_to(outside)
    found = {(p.path, p.kind) for p in verify_bundle(bundle)}
    assert found == {("run/train.csv", "symlink"), ("job/sneaky", "symlink")}


@pytest.mark.parametrize("bad", ["../escaped.txt", "/etc/hostname", "run/../../escaped.txt"])
def test_manifest_paths_leaving_the_bundle_are_escape(tmp_path, bad):
    bundle = make_bundle(tmp_path)
    (tmp_path / "escaped.txt").write_text("outside")
    manifest = json.loads((bundle / "PULL_MANIFEST.json").read_text())
    manifest["files"] = sorted(manifest["files"] + [
        {"path": bad, "bytes": 7, "sha256": "0" * 64}], key=lambda f: f["path"])
    (bundle / "PULL_MANIFEST.json").write_text(json.dumps(manifest))
    assert [(p.path, p.kind) for p in verify_bundle(bundle)] == [(bad, "escape")]


def test_a_directory_symlinked_out_of_the_bundle_is_escape(tmp_path):
    bundle = make_bundle(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(bundle / "job", elsewhere)
    (bundle / "job").symlink_to(elsewhere)
    found = {(p.path, p.kind) for p in verify_bundle(bundle)}
    assert found == {("job/exit_code", "escape"), ("job", "symlink")}


def test_an_empty_manifest_is_empty(tmp_path):
    bundle = tmp_path / RUN
    bundle.mkdir()
    seal(bundle)
    assert [(p.kind) for p in verify_bundle(bundle)] == ["empty"]


def test_run_ids_that_differ_are_run_id_mismatch(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    (bundle / "run" / "run.json").write_text(json.dumps({"run_id": "ffffffffffffffff"}))
    seal(bundle, run_id="eeeeeeeeeeeeeeee")
    found = {(p.path, p.kind) for p in verify_bundle(bundle)}
    assert found == {("PULL_MANIFEST.json", "run_id_mismatch"),
                     ("run/run.json", "run_id_mismatch")}
    assert verify_bundle(bundle, run_id="ffffffffffffffff")[0].path == "PULL_MANIFEST.json"


@pytest.mark.parametrize("text", [None, "{not json", '{"schema": "rgt/other"}',
                                  '{"schema": "rgt/pull/v1", "run_id": "x", "files": '
                                  '[{"path": "run/a", "bytes": -1, "sha256": "00"}]}'])
def test_an_unusable_manifest_is_manifest_invalid(tmp_path, text):
    bundle = make_bundle(tmp_path)
    if text is None:
        (bundle / "PULL_MANIFEST.json").unlink()
    else:
        (bundle / "PULL_MANIFEST.json").write_text(text)
    assert kinds(verify_bundle(bundle)) == {"manifest_invalid"}


def test_a_sealed_run_without_weights_or_checkpoint_is_missing_them(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    (bundle / "run" / "model.pt").unlink()
    (bundle / CKPT).unlink()
    seal(bundle)
    assert {(p.path, p.kind) for p in verify_bundle(bundle)} == {
        ("run/model.pt", "missing"), ("checkpoints/", "missing")}


def test_an_unsealed_run_needs_no_weights(tmp_path):
    bundle = make_bundle(tmp_path, seal_it=False)
    for rel in ("run/run.json", "run/model.pt"):
        (bundle / rel).unlink()
    seal(bundle)
    assert verify_bundle(bundle) == []


def test_verify_only_json_prints_ok_and_exits_zero(tmp_path, capsys):
    bundle = make_bundle(tmp_path)
    assert main(["pull", "--verify-only", str(bundle), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "problems": []}


def test_verify_only_json_lists_problems_and_exits_one(tmp_path, capsys):
    bundle = make_bundle(tmp_path)
    os.truncate(bundle / CKPT, 100)
    assert main(["pull", "--verify-only", str(bundle), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["problems"] == [{"path": CKPT, "kind": "size", "detail": report["problems"][0]
                                   ["detail"]}, {"path": CKPT, "kind": "unloadable",
                                                 "detail": report["problems"][1]["detail"]}]
    assert {p["kind"] for p in report["problems"]} <= set(KINDS)


def test_verify_only_prints_a_readable_table(tmp_path, capsys):
    bundle = make_bundle(tmp_path)
    (bundle / "run" / "stray.txt").write_text("x")
    assert main(["pull", "--verify-only", str(bundle)]) == 1
    out = capsys.readouterr().out
    assert "1 problem" in out and "run/stray.txt" in out and "extra" in out
    (bundle / "run" / "stray.txt").unlink()
    assert main(["pull", "--verify-only", str(bundle)]) == 0
    assert "verified" in capsys.readouterr().out


def test_pull_usage_mistakes_are_errors_with_a_fix(tmp_path, capsys):
    assert main(["pull", "--verify-only", str(tmp_path / "nope")]) == 1
    assert "no such directory" in capsys.readouterr().err
    assert main(["pull", RUN]) == 1
    err = capsys.readouterr().err
    assert "needs a RUN_ID and --host" in err and "fix:" in err
    assert main(["pull", "--verify-only", str(tmp_path), "--host", "x"]) == 1
