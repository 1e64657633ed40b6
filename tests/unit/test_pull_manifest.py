"""The pull manifest builder on real directories: what it lists, refuses and leaves out; its
atomic write; its identity; and that its source runs alone on a bare interpreter."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rgt.base.hashing import digest_json
from rgt.pull import manifest as builder
from rgt.pull.bundle import manifest_problems, path_problem

RUN = "0123456789abcdef"


def plant(root: Path, run_id: str = RUN) -> dict[str, bytes]:
    """A host-side project layout for one run; returns {bundle path: bytes} of what is listed."""
    files = {
        f"runs/{run_id}/run.json": json.dumps({"run_id": run_id}).encode(),
        f"runs/{run_id}/train.csv": b"epoch,step\n1,10\n",
        f"checkpoints/{run_id}/step-000000010.pt": os.urandom(5000),
        f"checkpoints/{run_id}/step-000000010.json": b"{}",
        f"checkpoints/{run_id}/sub/deeper.txt": b"nested",
        f"jobs/{run_id}/exit_code": b"0\n",
        f"jobs/{run_id}/job.log": b"",
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    areas = {"runs": "run", "checkpoints": "checkpoints", "jobs": "job"}
    return {areas[rel.split("/")[0]] + "/" + rel.split("/", 2)[2]: data
            for rel, data in files.items()}


def test_build_lists_every_file_sorted_with_size_and_hash(tmp_path):
    expected = plant(tmp_path)
    manifest = builder.build(str(tmp_path), RUN)
    assert manifest["schema"] == "rgt/pull/v1" and manifest["run_id"] == RUN
    assert manifest["files"] == [
        {"path": rel, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        for rel, data in sorted(expected.items())]
    assert manifest["totals"] == {"files": len(expected),
                                  "bytes": sum(map(len, expected.values()))}
    assert manifest_problems(manifest) == []


def test_torn_tmp_and_part_files_are_left_out(tmp_path):
    expected = plant(tmp_path)
    (tmp_path / "checkpoints" / RUN / "step-000000020.pt.tmp").write_bytes(b"torn")
    (tmp_path / "runs" / RUN / "model.pt.part").write_bytes(b"half")
    paths = [entry["path"] for entry in builder.build(str(tmp_path), RUN)["files"]]
    assert paths == sorted(expected)


@pytest.mark.parametrize("where", ["file", "directory", "run directory"])
def test_symlinks_are_refused_and_named_never_followed(tmp_path, where):
    plant(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"not part of the run")
    link = {"file": tmp_path / "runs" / RUN / "model.pt",
            "directory": tmp_path / "checkpoints" / RUN / "linked"}.get(where)
    if link is None:
        (tmp_path / "jobs" / RUN / "exit_code").unlink()
        (tmp_path / "jobs" / RUN / "job.log").unlink()
        (tmp_path / "jobs" / RUN).rmdir()
        link = tmp_path / "jobs" / RUN
    link.symlink_to(outside / "secret" if where == "file" else outside)
    with pytest.raises(builder.ManifestError, match="symlink") as caught:
        builder.build(str(tmp_path), RUN)
    named = {"file": "run/model.pt", "directory": "checkpoints/linked", "run directory": "job"}
    assert f"{named[where]} (symlink)" in str(caught.value)


def test_a_failed_transfers_bad_leftover_is_refused_by_name(tmp_path):
    plant(tmp_path)
    (tmp_path / "runs" / RUN / "model.pt.bad").write_bytes(b"x")
    with pytest.raises(builder.ManifestError, match=r"run/model.pt.bad \(a failed transfer"):
        builder.build(str(tmp_path), RUN)


@pytest.mark.parametrize("bad", ["", ".", "..", "../x", "a/b", "-x"])
def test_unsafe_run_ids_are_refused(tmp_path, bad):
    with pytest.raises(builder.ManifestError, match="not a plain directory name"):
        builder.build(str(tmp_path), bad)


def test_identity_ignores_created_at_and_follows_the_files(tmp_path):
    plant(tmp_path)
    first = builder.build(str(tmp_path), RUN, created_at="2026-01-01T00:00:00Z")
    second = builder.build(str(tmp_path), RUN, created_at="2026-02-02T00:00:00Z")
    assert first != second
    assert builder.manifest_sha256(first) == builder.manifest_sha256(second) == digest_json(
        {"run_id": RUN, "files": first["files"]})
    (tmp_path / "runs" / RUN / "train.csv").write_bytes(b"epoch,step\n1,11\n")
    assert builder.manifest_sha256(builder.build(str(tmp_path), RUN)) != \
        builder.manifest_sha256(first)


def test_written_manifest_is_not_listed_and_leaves_no_tmp(tmp_path):
    expected = plant(tmp_path)
    written = builder.build_and_write(str(tmp_path), RUN)
    path = tmp_path / "jobs" / RUN / "PULL_MANIFEST.json"
    assert path.read_text() == builder.manifest_text(written)
    assert json.loads(path.read_text()) == written
    assert not path.with_name(path.name + ".tmp").exists()
    again = builder.build_and_write(str(tmp_path), RUN)
    assert [entry["path"] for entry in again["files"]] == sorted(expected)


def test_an_interrupted_write_leaves_the_old_manifest_whole(tmp_path, monkeypatch):
    plant(tmp_path)
    builder.build_and_write(str(tmp_path), RUN)
    path = tmp_path / "jobs" / RUN / "PULL_MANIFEST.json"
    old = path.read_text()
    (tmp_path / "runs" / RUN / "new.txt").write_bytes(b"new file")

    def crash(*_):
        raise OSError("power lost before the rename")

    monkeypatch.setattr(builder.os, "replace", crash)
    with pytest.raises(OSError, match="power lost"):
        builder.build_and_write(str(tmp_path), RUN)
    assert path.read_text() == old
    torn = json.loads(path.with_name(path.name + ".tmp").read_text())
    assert "run/new.txt" in [entry["path"] for entry in torn["files"]]


def test_survey_rebuilds_every_run_and_reports_what_cannot_be_built(tmp_path):
    plant(tmp_path, "aaaa")
    plant(tmp_path, "bbbb")
    (tmp_path / "checkpoints" / "cccc").mkdir()  # only checkpoints: still a run on the host
    (tmp_path / "runs" / "bbbb" / "link").symlink_to(tmp_path / "runs" / "aaaa" / "run.json")
    (tmp_path / "runs" / "stray-file").write_bytes(b"not a run")
    survey = builder.survey(str(tmp_path))
    assert survey["root_exists"] is True and sorted(survey["runs"]) == ["aaaa", "bbbb", "cccc"]
    assert survey["runs"]["aaaa"]["manifest_sha256"] == builder.manifest_sha256(
        builder.build(str(tmp_path), "aaaa"))
    assert "run/link (symlink)" in survey["runs"]["bbbb"]["error"]
    assert survey["runs"]["cccc"]["files"] == 0
    assert (tmp_path / "jobs" / "aaaa" / "PULL_MANIFEST.json").is_file()
    assert survey["jobs"] == ["aaaa", "bbbb"]  # as the host had them, before any manifest
    assert builder.survey(str(tmp_path / "missing")) == {
        "schema": "rgt/pull-survey/v1", "root_exists": False, "runs": {}, "jobs": []}


def _run_source(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The module's source fed to a bare interpreter (-I -S: no site, no project) on stdin."""
    source = Path(builder.__file__).read_bytes()
    return subprocess.run([sys.executable, "-I", "-S", "-", *args], input=source, cwd=cwd,
                          capture_output=True, timeout=60)


def test_the_source_runs_alone_on_a_bare_interpreter(tmp_path):
    plant(tmp_path / "proj")
    result = _run_source(tmp_path, "build", "proj", RUN)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["files"] == builder.build(str(tmp_path / "proj"), RUN)["files"]
    survey = json.loads(_run_source(tmp_path, "survey", "proj").stdout)
    assert survey["runs"][RUN]["manifest_sha256"] == builder.manifest_sha256(printed)


def test_the_source_exits_non_zero_with_the_reason(tmp_path):
    plant(tmp_path)
    (tmp_path / "runs" / RUN / "model.pt").symlink_to("/etc/hostname")
    result = _run_source(tmp_path, "build", str(tmp_path), RUN)
    assert result.returncode == 65 and b"run/model.pt (symlink)" in result.stderr
    assert _run_source(tmp_path, "nonsense").returncode == 64


@pytest.mark.parametrize("rel", ["../x", "/etc/passwd", "run/../../x", "run/./x", "other/x",
                                 "run", "run/a\nb", ""])
def test_path_problem_refuses_paths_outside_the_bundle_layout(rel):
    assert path_problem(rel) is not None


def test_path_problem_accepts_bundle_paths():
    assert path_problem("checkpoints/step-000000010.pt") is None
    assert path_problem("job/exit_code") is None


def test_a_checkpoint_takes_its_markers_hash_unread_and_weights_only_leaves_it_out(tmp_path):
    plant(tmp_path)
    state = tmp_path / "checkpoints" / RUN
    data = (state / "step-000000010.pt").read_bytes()
    marked = hashlib.sha256(b"as written" + data[10:]).hexdigest()  # the store's hash
    (state / "step-000000010.json").write_text(json.dumps(
        {"file": "step-000000010.pt", "bytes": len(data), "sha256": marked}))
    entries = {e["path"]: e for e in builder.build(str(tmp_path), RUN)["files"]}
    # Not read: a checkpoint changed on the host since its save fails the pull, not the marker.
    assert entries["checkpoints/step-000000010.pt"]["sha256"] == marked
    (state / "step-000000010.pt").write_bytes(data[:-1])  # another size: the marker is not its
    entries = {e["path"]: e for e in builder.build(str(tmp_path), RUN)["files"]}
    assert entries["checkpoints/step-000000010.pt"]["sha256"] == hashlib.sha256(
        data[:-1]).hexdigest()
    light = builder.build(str(tmp_path), RUN, weights_only=True)
    assert light["weights_only"] is True and "checkpoints/step-000000010.pt" not in {
        e["path"] for e in light["files"]}
    assert "checkpoints/step-000000010.json" in {e["path"] for e in light["files"]}
    survey = builder.survey(str(tmp_path))["runs"][RUN]
    assert survey["weights_only_sha256"] == builder.manifest_sha256(light)
    assert survey["manifest_sha256"] != survey["weights_only_sha256"]
