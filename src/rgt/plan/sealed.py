"""Whether a run directory holds a sealed run that verifies: what the workflow, ``rgt train``
and ``rgt status`` ask before touching a run.

A sealed run is final wherever it came from (trained here, pulled from a host, brought from the
DVC remote): ``run.json`` names the run and says ``finished``, the files its kind requires are
there, and every file its seal lists (``files`` in ``run.json``) that is there has the size the
seal recorded. Sizes, not hashes, so the check stays cheap for multi-gigabyte weights; the
sha256 of each file is in the seal for a deeper check.
"""

from __future__ import annotations

import json
from pathlib import Path

from rgt.base.hashing import sha256_file

BUILT_IN_FILES = ("config.yaml", "train.csv", "model.pt", "run.json")
JOB_FILES = ("config.yaml", "train.csv", "results.json", "run.json")
# Matches no run id: the train rule's pattern when every planned run is sealed.
NOTHING = "(?!x)x"


def seal_problem(run_dir: Path, run_id: str,
                 required: tuple[str, ...] | None = BUILT_IN_FILES) -> str | None:
    """Why ``run_dir`` does not hold the sealed run ``run_id`` (None when it does).

    ``required=None``: the files of the run's kind (a plain-loop run's, your own command's,
    or the built-in trainer's)."""
    record_path = run_dir / "run.json"
    if not record_path.is_file():
        return "no run.json (not sealed)"
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "run.json is damaged (not complete JSON)"
    if not isinstance(record, dict):
        return "run.json is damaged (not a JSON object)"
    if record.get("run_id") != run_id:
        return f"run.json belongs to run {record.get('run_id')!r}"
    if record.get("status") != "finished":
        return f"run.json says {record.get('status')!r}, not finished"
    if required is None:  # the plain-loop API's seal records per_sample, a job its command
        plain_loop = "job_command" in record or "per_sample" in record
        required = JOB_FILES if plain_loop else BUILT_IN_FILES
    return _files_problem(run_dir, record.get("files") or {}, required)


def _files_problem(run_dir: Path, seals: dict, required: tuple[str, ...]) -> str | None:
    """The ``required`` files must be there; every sealed file that is there must have its
    sealed size (a copy of the run that brought only the workflow's outputs, e.g. from a host
    without its TensorBoard events, is still the sealed run)."""
    for name in sorted(set(required) | set(seals)):
        path = run_dir / name
        if not path.is_file():
            if name in required:
                return f"{name} is missing"
            continue
        expected = (seals.get(name) or {}).get("bytes")
        if expected is not None and path.stat().st_size != expected:
            return f"{name} has {path.stat().st_size} bytes, its seal says {expected}"
    return None


def is_sealed(run_dir: Path, run_id: str, required: tuple[str, ...] = BUILT_IN_FILES) -> bool:
    """True when ``run_dir`` holds the finished run ``run_id`` and its sealed files verify."""
    return seal_problem(Path(run_dir), run_id, required) is None


def file_seals(run_dir: Path) -> dict[str, dict]:
    """``{name: {"bytes", "sha256"}}`` of every file in ``run_dir`` but ``run.json`` (written
    last, with this in it)."""
    return {path.name: {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
            for path in sorted(run_dir.iterdir())
            if path.is_file() and path.name != "run.json" and not path.name.endswith(".tmp")}


def training_pattern(run_ids: list[str], runs_root: str | Path,
                     required: tuple[str, ...] = BUILT_IN_FILES) -> str:
    """The ``run_id`` pattern of the train rule: the planned runs not sealed yet. A sealed run
    is nobody's output, so the workflow never plans, deletes or retrains it."""
    todo = [run_id for run_id in run_ids
            if not is_sealed(Path(runs_root) / run_id, run_id, required)]
    return "|".join(todo) if todo else NOTHING
