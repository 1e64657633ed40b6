"""Git state and package versions recorded in run.json and provenance.json."""

from __future__ import annotations

import subprocess

from rgt.base.environment import git_state, package_versions


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_git_state_reads_commit_and_dirty_flag(tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    _git(tmp_path, "add", "code.py")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit, dirty = git_state(tmp_path)
    assert len(commit) == 40 and dirty is False
    (tmp_path / "untracked_output.csv").write_text("a\n")
    assert git_state(tmp_path)[1] is False  # fresh outputs are not code changes
    (tmp_path / "code.py").write_text("x = 2\n")
    assert git_state(tmp_path) == (commit, True)


def test_git_state_outside_a_repository_is_none(tmp_path):
    assert git_state(tmp_path) == (None, None)


def test_absent_package_version_is_none():
    versions = package_versions(("numpy", "surely-not-installed-pkg"))
    assert versions["surely-not-installed-pkg"] is None and versions["numpy"]
    assert versions["python"].count(".") == 2
