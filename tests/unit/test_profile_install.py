"""`make profiles` (profiles/install.py) never deletes a user's file: a differing profile of
the same name is kept, and the user is told how to use the project's without installing."""

from __future__ import annotations

import subprocess
import sys
from importlib.util import module_from_spec, spec_from_file_location

from conftest import ROOT

SCRIPT = ROOT / "profiles" / "install.py"


def install(home, *names: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), str(home), *names], check=True,
                          capture_output=True, text=True, timeout=60)
    return done.stdout


def test_a_users_own_profile_of_the_same_name_is_kept(tmp_path):
    mine = tmp_path / "slurm"
    mine.mkdir()
    (mine / "config.yaml").write_text("executor: slurm\njobs: 500\n")
    (mine / "notes.txt").write_text("my cluster's quirks\n")
    out = install(tmp_path, "slurm", "local")
    assert (mine / "config.yaml").read_text() == "executor: slurm\njobs: 500\n"
    assert sorted(p.name for p in mine.iterdir()) == ["config.yaml", "notes.txt"]
    assert "kept your own" in out and "`snakemake --profile profiles/slurm`" in out
    assert (tmp_path / "local" / "config.yaml").read_bytes() == \
        (ROOT / "profiles" / "local" / "config.yaml").read_bytes()
    assert "installed in" in out and " local" in out


def test_our_unedited_copy_is_updated_and_an_edited_one_kept(tmp_path):
    install(tmp_path, "local", "ssh")
    for name in ("local", "ssh"):
        (tmp_path / name / "config.yaml").write_text("# an older version of ours\n")
    # `local` looks as we left it (the marker matches), `ssh` was edited by its user.
    script = module_from_spec(spec := spec_from_file_location("install", SCRIPT))
    spec.loader.exec_module(script)
    (tmp_path / "local" / script.MARKER).write_text(script.digest(tmp_path / "local"))
    out = install(tmp_path, "local", "ssh")
    assert (tmp_path / "local" / "config.yaml").read_bytes() == \
        (ROOT / "profiles" / "local" / "config.yaml").read_bytes()
    assert (tmp_path / "ssh" / "config.yaml").read_text() == "# an older version of ours\n"
    assert "kept your own" in out and "profiles/ssh" in out and "profiles/local" not in out
