"""Describing a Snakemake job for the host: which files go, which come back, and its key."""

from __future__ import annotations

import pytest

from rgt.remote.snakejobs import SnakeJobError, snake_job


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "Snakefile").write_text("rule a: output: 'x.out'\n")
    (tmp_path / "data" / "raw").mkdir(parents=True)
    (tmp_path / "data" / "raw" / "one.csv").write_text("1\n")
    (tmp_path / "data" / "raw" / "two.csv").write_text("2\n")
    (tmp_path / "in.txt").write_text("input\n")
    return tmp_path


def describe(workdir, **overrides):
    fields = {"rules": ["a"], "sources": ["Snakefile"], "inputs": ["in.txt", "data/raw"],
              "products": ["out/x.out", "logs/a.log"], "command": "python -m snakemake"}
    return snake_job(workdir, **{**fields, **overrides})


def test_sources_inputs_and_directory_inputs_are_pushed(workdir):
    job = describe(workdir)
    assert sorted(job.files) == ["Snakefile", "data/raw/one.csv", "data/raw/two.csv", "in.txt"]
    assert job.products == ("logs/a.log", "out/x.out")
    assert job.key.startswith("sm-") and len(job.key) == 19


def test_key_is_stable_and_follows_the_bytes_of_every_pushed_file(workdir):
    first = describe(workdir).key
    assert describe(workdir, command="another attempt's command").key == first
    (workdir / "data" / "raw" / "two.csv").write_text("changed\n")
    assert describe(workdir).key != first
    assert describe(workdir, products=["out/y.out"]).key != describe(workdir).key


def test_absolute_paths_inside_the_workdir_are_made_relative(workdir):
    job = describe(workdir, inputs=[str(workdir / "in.txt")])
    assert "in.txt" in job.files


@pytest.mark.parametrize("field, value, words", [
    ("inputs", ["/etc/hostname"], "outside the working directory"),
    ("inputs", ["missing.txt"], "does not exist here"),
    ("products", ["../escape.out"], "cannot be shipped"),
])
def test_what_the_host_cannot_see_is_refused_with_a_fix(workdir, field, value, words):
    with pytest.raises(SnakeJobError) as error:
        describe(workdir, **{field: value})
    assert words in error.value.message and error.value.fix
