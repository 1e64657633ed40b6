"""``make repro``: reproduce the committed delivery in a scratch checkout and compare.

The project itself is never rebuilt in place: the committed tree (``git archive HEAD``) is
unpacked into ``.rgt/repro/`` (or ``.rgt/retrain/`` when every run is trained again), the
delivery is rebuilt there (every stage of ``dvc repro``; with ``--retrain``, first the whole
pipeline through ``snakemake --profile local``), and its evidence is compared with the
committed one.
Nothing in ``runs/``, ``evidence/`` or ``figures/`` of the project is written, so runs that are
not shared yet can never be lost to a reproduction; the shared runs the project lacks are
brought into ``runs/`` (added, never replacing: ``rgt.deliver.share``).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.plan.paths import EVIDENCE as EVIDENCE_PATH

SCRATCH = Path(".rgt/repro")
RETRAIN_SCRATCH = Path(".rgt/retrain")
# What DVC says to push a user towards deleting files; rgt says what to do instead.
FORCE_HINT = "--force"


class ReproFailed(RgtError):
    """A step of the reproduction failed (its output was shown)."""


def committed_tree(project: Path, scratch: Path) -> Path:
    """Unpack the files committed at HEAD into ``scratch`` (emptied first); return it."""
    try:
        archive = subprocess.run(["git", "-C", str(project), "archive", "--format=tar", "HEAD"],
                                 check=True, capture_output=True, timeout=300).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", b"") or str(error).encode()
        raise ReproFailed(f"cannot read the committed tree of {project}: "
                          f"{detail.decode(errors='replace').strip()}",
                          "run make repro in a git clone with at least one commit") from None
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    if (scratch / ".dvc").is_dir():
        # The scratch lies inside the project's ignored .rgt/: DVC must not take the project's
        # git for its own (it would refuse dvc.yaml as git-ignored).
        (scratch / ".dvc" / "config.local").write_text("[core]\n    no_scm = True\n")
    return scratch


def committed_evidence(project: Path, scratch: Path) -> Path:
    """The committed ``EVIDENCE.json``, kept aside before anything rebuilds it."""
    kept = scratch.parent / f"{scratch.name}-EVIDENCE.committed.json"
    source = scratch / EVIDENCE_PATH
    if not source.is_file():
        raise ReproFailed(f"HEAD of {project} has no {EVIDENCE_PATH}: nothing to reproduce",
                          "run the pipeline and commit its delivery first")
    shutil.copyfile(source, kept)
    return kept


def tool_environment() -> dict[str, str]:
    """The environment of the steps: this interpreter's bin first (DVC's stages run ``python
    -m rgt``)."""
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONUNBUFFERED": "1"}


def run_step(argv: list[str], cwd: Path, what: str,
             echo: Callable[[str], None] = sys.stdout.write) -> None:
    """Run one step, its output shown as it comes — but for a line pointing at ``--force``,
    which deletes files; a failure is ``ReproFailed`` saying which step."""
    echo(f"rgt repro: {what} in {cwd}: {' '.join(argv)}\n")
    with subprocess.Popen(argv, cwd=cwd, env=tool_environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        withheld = False
        for line in process.stdout:
            if FORCE_HINT in line:
                withheld = True
                continue
            echo(line)
    if process.returncode:
        fix = ("nothing in the project was changed; fix the cause shown above and run make "
               "repro again")
        if withheld:
            fix += " (not with DVC's force option: it deletes files that exist only here)"
        raise ReproFailed(f"{what} failed (exit {process.returncode}) in {cwd}", fix)
