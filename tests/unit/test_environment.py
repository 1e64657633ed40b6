"""Git state and package versions recorded in run.json and provenance.json."""

from __future__ import annotations

import subprocess

from rgt.base.environment import code_state, git_state, package_versions


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
    assert code_state(tmp_path) == (None, None)


def test_code_state_ignores_commits_of_other_files(tmp_path):
    """Committing a rebuilt delivery file must not change the code a rebuild records."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "code.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm"]
    _git(tmp_path, "add", ".")
    _git(tmp_path, *commit, "code")
    code = code_state(tmp_path / "src")
    (tmp_path / "figure.json").write_text("{}\n")
    _git(tmp_path, "add", "figure.json")
    _git(tmp_path, *commit, "delivery")
    assert code_state(tmp_path / "src") == code and code[1] is False
    assert git_state(tmp_path)[0] != code[0]
    (tmp_path / "figure.json").write_text("{\"edited\": 1}\n")
    assert code_state(tmp_path / "src")[1] is False  # an edited output is not a code change
    (tmp_path / "src" / "code.py").write_text("x = 2\n")
    assert code_state(tmp_path / "src") == (code[0], True)


def test_code_state_of_some_areas_ignores_commits_of_the_others(tmp_path):
    """A figure names only the code that draws it: a commit to training code leaves it."""
    for area in ("deliver", "train"):
        (tmp_path / "rgt" / area).mkdir(parents=True)
        (tmp_path / "rgt" / area / "m.py").write_text("x = 1\n")
    _git(tmp_path, "init", "-q")
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm"]
    _git(tmp_path, "add", ".")
    _git(tmp_path, *commit, "both")
    drawn = code_state(tmp_path / "rgt", ("deliver",))
    (tmp_path / "rgt" / "train" / "m.py").write_text("x = 2\n")
    assert code_state(tmp_path / "rgt", ("deliver",)) == drawn  # not dirty either
    _git(tmp_path, "add", ".")
    _git(tmp_path, *commit, "training only")
    assert code_state(tmp_path / "rgt", ("deliver",)) == drawn
    assert code_state(tmp_path / "rgt")[0] != drawn[0]


def test_absent_package_version_is_none():
    versions = package_versions(("numpy", "surely-not-installed-pkg"))
    assert versions["surely-not-installed-pkg"] is None and versions["numpy"]
    assert versions["python"].count(".") == 2
