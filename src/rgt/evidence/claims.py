"""Claims: one per delivered number, each bound to its source, figure and disclosures.

Claim ids are ``<exp_id>/<variant>/<metric>/<split>`` for a variant's mean and
``<exp_id>/<candidate>-vs-<baseline>/<metric>/<split>`` for a verify comparison; verify findings
name the claims they affect by these ids.
"""

from __future__ import annotations

import csv
from pathlib import Path

from rgt.deliver.disclosures import (
    SINGLE_SEED,
    claim_id,
    finding_disclosures,
    variant_disclosures,
)
from rgt.deliver.inputs import DeliveryError
from rgt.verify.wording import comparison_change, reading, subtraction

EVIDENCE_SCHEMA = "rgt/evidence/v1"
VERIFY_SCHEMA = "rgt/verify/v1"
CLAIM_SPLIT = "test"
# Verdicts that limit what a comparison shows; "effect" and "noise" are stated, not disclosed.
LIMITING_VERDICTS = ("underpowered", "confounded", "suspect-bug")
COMPARISON_FIELDS = (
    "exp_id",
    "baseline",
    "candidate",
    "metric",
    "split",
    "direction",
    "n_baseline",
    "n_candidate",
    "diff",
    "ci_low",
    "ci_high",
    "verdict",
)


def comparison_claim_id(comparison: dict) -> str:
    """The id of the claim about a verify comparison (candidate minus baseline)."""
    pair = f"{comparison['candidate']}-vs-{comparison['baseline']}"
    return claim_id(comparison["exp_id"], pair, comparison["metric"], comparison["split"])


def figure_path(metric: str, split: str, figures_dir: str | Path) -> str | None:
    """The rendered figure showing ``metric`` on ``split`` under ``figures_dir`` (read from each
    figure's source data), if one exists."""
    for source in sorted(Path(figures_dir).glob("*/source_data.csv")):
        png = source.parent / "figure.png"
        with open(source, newline="", encoding="utf-8") as handle:
            first = next(csv.DictReader(handle), None)
        if first and (first.get("metric"), first.get("split")) == (metric, split) and \
                png.is_file():
            return png.as_posix()
    return None


def variant_statement(exp_id: str, variant: str, cell: dict) -> str:
    """A sentence stating a variant's mean, rounded for reading only."""
    what = f"{cell['split']} {cell['metric']}"
    if cell["n_seeds"] == 1:
        return f"{variant} reaches a {what} of {cell['mean']:.4f} on {exp_id} (single seed)"
    return (
        f"{variant} reaches a mean {what} of {cell['mean']:.4f} over "
        f"{cell['n_seeds']} seeds on {exp_id}"
    )


def variant_claim(exp_id: str, variant: str, cell: dict, context: dict) -> dict:
    """The claim for one variant's metric on one split, from its aggregate cell."""
    identity = claim_id(exp_id, variant, cell["metric"], cell["split"])
    return {
        "id": identity,
        "statement": variant_statement(exp_id, variant, cell),
        "aliases": [f"{cell['split']} {cell['metric']}", cell["metric"]],
        "metric": cell["metric"],
        "exp_id": exp_id,
        "variant": variant,
        "split": cell["split"],
        "direction": cell["direction"],
        "value": cell["mean"],
        "n": cell["n_seeds"],
        "variance": {"type": "std", "value": cell["std"]},
        "run_ids": [row["run_id"] for row in cell["values"]],
        "source": context["source"],
        "figure": figure_path(cell["metric"], cell["split"], context["figures_dir"]),
        "disclosures": variant_disclosures(identity, cell["n_seeds"], context["findings"]),
    }


def claim_split(aggregate: dict, metric: str) -> str:
    """The split a metric's claims are on: ``test``, or the one its declaration names (the
    aggregate's ``report_splits``; verify's ``report-split`` finding discloses it)."""
    return (aggregate.get("report_splits") or {}).get(metric, CLAIM_SPLIT)


def variant_claims(aggregate: dict, context: dict) -> list[dict]:
    """One claim per experiment, variant and metric on its split (``claim_split``)."""
    return [
        variant_claim(exp_id, variant, cell, context)
        for exp_id, variants in aggregate["experiments"].items()
        for variant, cells in variants.items()
        for cell in cells.values()
        if cell["split"] == claim_split(aggregate, cell["metric"])
    ]


def comparison_statement(comparison: dict) -> str:
    """A sentence stating a comparison's difference (candidate − baseline, which way it goes),
    its 95% CI and its verdict."""
    c = comparison
    value, low, high = comparison_change(c)
    interval = _format_interval(low, high)
    test = c.get("test") or "percentile bootstrap"  # reports before the t tests had none
    return (
        f"{subtraction(c['candidate'], c['baseline'])} on {c['exp_id']} = {_signed(value)} "
        f"{c['split']} {c['metric']} ({reading(value, c['direction'])}; 95% CI {interval}, "
        f"{test}, {c['n_baseline']} vs {c['n_candidate']} seeds), verdict: {c['verdict']}"
    )


def _signed(number: float | None) -> str:
    return "not available" if number is None else f"{number:+.4f}"


def _format_interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "not available"
    return f"[{_signed(low)}, {_signed(high)}]"


def comparison_disclosures(claim: str, comparison: dict, findings: list[dict]) -> list[str]:
    """Findings attached to a comparison, its limiting verdict, and a single-seed side.

    The verdict is added only when no attached finding already reports it under that name.
    """
    texts = finding_disclosures(claim, findings)
    attached_checks = {
        item.get("check") for item in findings if claim in (item.get("claims") or [])
    }
    verdict = comparison["verdict"]
    if verdict in LIMITING_VERDICTS and verdict not in attached_checks:
        texts.append(f"verdict: {verdict}")
    if min(comparison["n_baseline"], comparison["n_candidate"]) == 1:
        texts.append(SINGLE_SEED)
    return texts


def comparison_claim(comparison: dict, context: dict) -> dict:
    """The claim for one verify comparison: value = diff (positive = better), variance = its
    95% CI; ``difference`` is candidate − baseline in the metric's own direction (with its
    interval, and ``reading`` says which way that is: ``worse: lower is better``)."""
    _require_comparison_fields(comparison, context["verify_source"])
    c, identity = comparison, comparison_claim_id(comparison)
    value, low, high = comparison_change(c)
    return {
        "id": identity,
        "statement": comparison_statement(c),
        "aliases": [f"{c['split']} {c['metric']} difference", f"{c['metric']} difference"],
        "metric": c["metric"],
        "exp_id": c["exp_id"],
        "variant": f"{c['candidate']}-vs-{c['baseline']}",
        "baseline": c["baseline"],
        "candidate": c["candidate"],
        "split": c["split"],
        "direction": c["direction"],
        "value": c["diff"],
        "difference": value,
        "difference_ci95": [low, high],
        "reading": reading(value, c["direction"]),
        "n": min(c["n_baseline"], c["n_candidate"]),
        "n_baseline": c["n_baseline"],
        "n_candidate": c["n_candidate"],
        "variance": {"type": "ci95", "value": [c["ci_low"], c["ci_high"]]},
        "verdict": c["verdict"],
        "source": context["verify_source"],
        "figure": None,
        "disclosures": comparison_disclosures(identity, c, context["findings"]),
    }


def _require_comparison_fields(comparison: dict, source: str) -> None:
    missing = [name for name in COMPARISON_FIELDS if name not in comparison]
    if missing:
        raise DeliveryError(
            f"{source}: a comparison lacks {', '.join(missing)} (schema {VERIFY_SCHEMA})",
            fix="rerun `rgt verify`",
        )


def build_evidence(aggregate: dict, verify: dict, context: dict) -> dict:
    """The ``rgt/evidence/v1`` document; ``context`` holds source paths and figures_dir.

    ``context`` keys: ``source`` (aggregate path), ``verify_source``, ``figures_dir``, ``inputs``.
    """
    context = {**context, "findings": verify.get("findings") or []}
    claims = variant_claims(aggregate, context) + [
        comparison_claim(comparison, context) for comparison in verify.get("comparisons") or []
    ]
    return {
        "schema": EVIDENCE_SCHEMA,
        "claims": sorted(claims, key=lambda claim: claim["id"]),
        "inputs": context["inputs"],
        "made_on": made_on(aggregate),
    }


def made_on(aggregate: dict) -> list[dict]:
    """Where the evidence was made: each platform fingerprint of its runs (rgt.train.platform)
    with its facts and how many runs it made; ``make repro`` compares them."""
    platforms: dict[str, dict] = {}
    for identity in (aggregate.get("runs") or {}).values():
        platform = identity.get("platform") or {"fingerprint": None}
        entry = platforms.setdefault(str(platform["fingerprint"]), {**platform, "runs": 0})
        entry["runs"] += 1
    return [platforms[key] for key in sorted(platforms)]
