"""The sealed runs shared through DVC (``runs.dvc``, pushed by ``make share``): which runs it
holds, and bringing the ones ``runs/`` lacks back from the DVC remote.

A ``dvc pull`` (a checkout of the whole ``runs`` directory) deletes every run that is not in
``runs.dvc`` — runs trained since the last share, runs pulled from a rented host — or stops
and suggests ``--force``. Restoring here only adds: each missing run is copied into a hidden
staging directory, checked to be a sealed run, and renamed into place; a run that exists is
never touched, whatever the remote holds for it.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.yaml_files import read_yaml
from rgt.plan.sealed import is_sealed, seal_problem

RUNS_DVC = "runs.dvc"


@dataclass
class Restored:
    """What a restore did: runs copied in, runs kept as they were, runs it could not use."""

    tracked: str = "runs"
    shared: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    unusable: dict[str, str] = field(default_factory=dict)


class ShareUnreachable(RgtError):
    """The DVC remote (or the project's DVC set-up) could not be read."""


def tracked_runs_path(project: Path) -> str | None:
    """The directory ``runs.dvc`` tracks (``runs``), or None when the project shares none."""
    if not (project / ".dvc").is_dir() or not (project / RUNS_DVC).is_file():
        return None
    outs = (read_yaml(project / RUNS_DVC) or {}).get("outs") or [{}]
    return str(outs[0].get("path") or "runs")


def shared_run_ids(project: Path) -> set[str] | None:
    """The run ids ``runs.dvc`` holds; None when the project shares no runs through DVC."""
    tracked = tracked_runs_path(project)
    if tracked is None:
        return None
    return set(_listing(project, tracked))


def _listing(project: Path, tracked: str) -> list[str]:
    """Run ids of the DVC-tracked directory (the workspace's own files left out)."""
    try:
        fs = _dvc_fs(project)
        entries = fs.ls(tracked, detail=True)
    except Exception as error:  # noqa: BLE001 - DVC raises many kinds; each means unreadable
        raise ShareUnreachable(f"cannot read the runs shared in {RUNS_DVC}: {error}",
                               "check the DVC remote (`dvc remote list`) and its credentials"
                               ) from None
    return sorted(Path(entry["name"]).name for entry in entries
                  if entry.get("dvc_info") and entry.get("type") == "directory")


def _dvc_fs(project: Path):
    # lazy: DVC costs ~0.3 s to import and only the verbs that share runs need it
    from dvc.api import DVCFileSystem

    return DVCFileSystem(str(project))


def restore_runs(project: Path) -> Restored | None:
    """Copy every shared sealed run that the project lacks into it; None without ``runs.dvc``.

    Never removes or replaces a local file; a shared entry that is no sealed run is reported,
    not copied.
    """
    tracked = tracked_runs_path(project)
    if tracked is None:
        return None
    report, fs = Restored(tracked=tracked, shared=_listing(project, tracked)), None
    for run_id in report.shared:
        target = project / tracked / run_id
        if target.exists():
            report.kept.append(run_id)
            continue
        fs = fs or _dvc_fs(project)
        problem = _copy_in(fs, f"{tracked}/{run_id}", target)
        if problem:
            report.unusable[run_id] = problem
        else:
            report.added.append(run_id)
    return report


def _copy_in(fs, source: str, target: Path) -> str | None:
    """Copy ``source`` to ``target`` through a staging directory; why not, or None."""
    staging = target.with_name(f".{target.name}.restoring")
    shutil.rmtree(staging, ignore_errors=True)  # an earlier restore cut short
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fs.get(source, str(staging), recursive=True)
    except Exception as error:  # noqa: BLE001 - DVC raises many kinds; each means unreadable
        shutil.rmtree(staging, ignore_errors=True)
        raise ShareUnreachable(f"cannot copy {source} from the DVC remote: {error}",
                               "check the DVC remote (`dvc remote list`) and its credentials; "
                               "runs already copied are in place") from None
    problem = seal_problem(staging, target.name, required=None)
    if problem:
        shutil.rmtree(staging, ignore_errors=True)
        return problem
    os.rename(staging, target)
    return None


def unshared_runs(project: Path, report: Restored) -> list[str]:
    """The sealed runs of the shared directory that ``runs.dvc`` does not hold."""
    root, shared = project / report.tracked, set(report.shared)
    if not root.is_dir():
        return []
    return sorted(path.name for path in root.iterdir()
                  if path.is_dir() and not path.name.startswith(".")
                  and path.name not in shared and is_sealed(path, path.name, required=None))


def print_restored(report, quiet: bool = False) -> None:
    """What a restore brought, kept and could not use."""
    if report.added:
        print(f"rgt restore: {len(report.added)} sealed run(s) brought from the DVC remote "
              f"into {report.tracked}/ (runs.dvc): reused, never retrained", file=sys.stderr)
    elif not quiet:
        print(f"rgt restore: every run of runs.dvc is already in {report.tracked}/ "
              f"({len(report.kept)}); nothing was replaced", file=sys.stderr)
    for run_id, problem in sorted(report.unusable.items()):
        print(f"rgt restore: {report.tracked}/{run_id} in runs.dvc is not a sealed run "
              f"({problem}): not copied", file=sys.stderr)
