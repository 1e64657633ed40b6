"""``figures/<fig>/provenance.json``: what went into a figure and what came out.

Inputs and outputs are bound by sha256; the code that drew the figure by the content hash of
the areas of ``rgt`` a figure comes from (``FIGURE_CODE``), the last commit that changed them
and their dirty flag; the environment by package versions. No timestamp is recorded, and a
commit elsewhere (training code, hosts, the delivery itself) changes nothing recorded, so a
rebuild from the same inputs and code writes the same provenance and the committed delivery
stays current.
"""

from __future__ import annotations

from pathlib import Path

import rgt
from rgt.base.environment import code_state, package_versions
from rgt.base.hashing import sha256_files
from rgt.deliver.disclosures import claim_id, variant_disclosures

PROVENANCE_SCHEMA = "rgt/provenance/v1"
PACKAGES = ("numpy", "matplotlib", "torch")
# The areas of rgt a figure's code comes from (`rgt figure` imports nothing else of rgt).
FIGURE_CODE = ("base", "config", "plan", "verify", "deliver")


def figure_code() -> dict:
    """What decides a figure's code: the sha256 of ``FIGURE_CODE``'s files, the last commit
    that changed them and whether they have uncommitted changes (None outside git)."""
    root = Path(rgt.__file__).parent
    files = [path for area in FIGURE_CODE for path in sorted((root / area).rglob("*.py"))]
    commit, dirty = code_state(root, FIGURE_CODE)
    return {"sha256": sha256_files(root, files), "commit": commit, "dirty": dirty}


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


def _distinct(identities: dict, run_ids: list[str], key: str) -> list[str]:
    return sorted({identities[run][key] for run in run_ids
                   if run in identities and identities[run].get(key)})


def build_provenance(fig_id: str, rows: list[dict], parts: dict) -> dict:
    """The provenance document of figure ``fig_id``.

    ``parts`` keys: ``inputs`` and ``outputs`` (lists of ``{path, sha256}``), ``command``
    (argv), ``findings`` (verify findings), ``pixel_gate``, ``source_matches_aggregate``,
    ``render_messages``, ``run_identities`` (the aggregate's ``runs``), ``kind`` (bar when
    absent).
    """
    # A curve draws training dynamics: it supports no claim (the delivered numbers are the
    # runs' results, which bars show).
    claims = figure_claims(rows) if parts.get("kind", "bar") == "bar" else {}
    identities = parts.get("run_identities") or {}
    run_ids = sorted({row["run_id"] for row in rows})
    return {
        "schema": PROVENANCE_SCHEMA,
        "fig_id": fig_id,
        "inputs": parts["inputs"],
        "run_ids": run_ids,
        "command": list(parts["command"]),
        "code": figure_code(),
        # The code and data that decided the runs (the user's sources and data for a job).
        "runs_code_sha256": _distinct(identities, run_ids, "code_sha256"),
        "runs_data_sha256": _distinct(identities, run_ids, "data_sha256"),
        "packages": package_versions(PACKAGES),
        "outputs": parts["outputs"],
        "claims": list(claims),
        "disclosures": figure_disclosures(claims, parts["findings"]),
        "source_matches_aggregate": parts["source_matches_aggregate"],
        "render_messages": parts["render_messages"],
        "pixel_gate": parts["pixel_gate"],
    }
