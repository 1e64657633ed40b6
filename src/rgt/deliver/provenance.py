"""``figures/<fig>/provenance.json``: what went into a figure and what came out.

Inputs and outputs are bound by sha256; the code by commit and dirty flag; the environment by
package versions. No timestamp is recorded, so a rebuild from the same inputs and code writes the
same provenance.
"""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

from rgt.evidence.claims import claim_id, variant_disclosures

PROVENANCE_SCHEMA = "rgt/provenance/v1"
PACKAGES = ("numpy", "matplotlib", "torch")


def git_state(cwd: str | Path = ".") -> dict:
    """``{"commit", "dirty"}`` of the git work tree at ``cwd``; both null outside a repository."""
    commit = _git(["rev-parse", "HEAD"], cwd)
    if commit is None:
        return {"commit": None, "dirty": None}
    # --no-optional-locks: never take index.lock, which would race a concurrent commit.
    status = _git(["--no-optional-locks", "status", "--porcelain"], cwd)
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def _git(arguments: list[str], cwd: str | Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *arguments], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def package_versions() -> dict:
    """Python and the numeric packages' versions, read from metadata (torch is not imported)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def figure_claims(rows: list[dict]) -> dict[str, int]:
    """The claim ids a figure's rows support, each with its number of seeds."""
    seeds: dict[str, int] = {}
    for row in rows:
        identity = claim_id(row["exp_id"], row["variant"], row["metric"], row["split"])
        seeds[identity] = seeds.get(identity, 0) + 1
    return dict(sorted(seeds.items()))


def figure_disclosures(claims: dict[str, int], findings: list[dict]) -> dict[str, list[str]]:
    """Per supported claim: the verify findings that list it, and ``single seed`` if n == 1."""
    return {
        identity: variant_disclosures(identity, n_seeds, findings)
        for identity, n_seeds in claims.items()
    }


def build_provenance(fig_id: str, rows: list[dict], parts: dict) -> dict:
    """The provenance document of figure ``fig_id``.

    ``parts`` keys: ``inputs`` and ``outputs`` (lists of ``{path, sha256}``), ``command``
    (argv), ``findings`` (verify findings), ``pixel_gate``, ``source_matches_aggregate``,
    ``render_messages``.
    """
    claims = figure_claims(rows)
    return {
        "schema": PROVENANCE_SCHEMA,
        "fig_id": fig_id,
        "inputs": parts["inputs"],
        "run_ids": sorted({row["run_id"] for row in rows}),
        "command": list(parts["command"]),
        "code": git_state(),
        "packages": package_versions(),
        "outputs": parts["outputs"],
        "claims": list(claims),
        "disclosures": figure_disclosures(claims, parts["findings"]),
        "source_matches_aggregate": parts["source_matches_aggregate"],
        "render_messages": parts["render_messages"],
        "pixel_gate": parts["pixel_gate"],
    }
