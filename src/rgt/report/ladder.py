"""Where each delivered number stands: ``planned → trained → evaluated → pull_verified →
delivered``.

A run is ``planned`` until it is sealed, ``trained`` when sealed, ``evaluated`` with its
``results.json``, ``pull_verified`` when ``export/<run-id>/PULL_VERIFIED.json`` vouches for it. A
claim takes the least advanced state of its runs; it is ``delivered`` when every run is as far as
it must go (evaluated; pull-verified too when it was trained on a rented host).
"""

from __future__ import annotations

import json
from pathlib import Path

LADDER = ("planned", "trained", "evaluated", "pull_verified", "delivered")
PULL_SCHEMA = "rgt/pull-verified/v1"


def _json(path: Path) -> dict | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return document if isinstance(document, dict) else None


def pull_verified(run_id: str, export_dir: Path) -> bool:
    """Whether ``export/<run-id>/PULL_VERIFIED.json`` vouches for this run."""
    record = _json(export_dir / run_id / "PULL_VERIFIED.json")
    return bool(record) and record.get("schema") == PULL_SCHEMA and record.get("run_id") == run_id


def run_status(run_id: str, runs_dir: Path, export_dir: Path) -> tuple[str, bool]:
    """``(state, remote)`` of one run; ``remote`` when it carries a rented host's audit."""
    run = _json(runs_dir / run_id / "run.json")
    if not run or run.get("status") != "finished":
        state = "pull_verified" if pull_verified(run_id, export_dir) else "planned"
        return state, True
    remote = run.get("host_audit") is not None
    if pull_verified(run_id, export_dir):
        return "pull_verified", remote
    return ("evaluated" if (runs_dir / run_id / "results.json").is_file() else "trained"), remote


def claim_runs(claim: dict, claims_by_id: dict[str, dict]) -> list[str]:
    """The runs behind a claim; a comparison's are those of its two variants."""
    if claim.get("run_ids"):
        return list(claim["run_ids"])
    runs: list[str] = []
    for side in ("candidate", "baseline"):
        if claim.get(side):
            other = f"{claim['exp_id']}/{claim[side]}/{claim['metric']}/{claim['split']}"
            runs += (claims_by_id.get(other) or {}).get("run_ids") or []
    return runs


def claim_status(run_states: list[tuple[str, bool]]) -> str:
    """The least advanced state, or ``delivered`` when every run has gone as far as it must."""
    if not run_states:
        return "planned"
    done = all(state == "pull_verified" or (state == "evaluated" and not remote)
               for state, remote in run_states)
    if done:
        return "delivered"
    return min((state for state, _ in run_states), key=LADDER.index)
