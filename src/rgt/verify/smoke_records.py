"""Probe results recorded by the smoke gate, as findings on the claims of their variant.

``rgt smoke`` writes ``smoke/<smoke-id>.json`` with the run-time probes of
:mod:`rgt.train.probes`. A variant's smoke id is recomputed from a run's sealed record (resolved
config, code, data and split hashes), so only the record of exactly that variant is read. A
variant without a record (trained outside the workflow) gets no probe finding.
"""

from __future__ import annotations

from pathlib import Path

from rgt.base.errors import RunStateError
from rgt.plan.runplan import variant_smoke_id
from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.runs import Run, read_json


def smoke_id_of(run: Run) -> str | None:
    """The smoke id of the run's variant, or None when ``run.json`` lacks the hashes."""
    hashes = tuple(run.meta.get(key) for key in ("code_sha256", "data_sha256", "split_sha256"))
    if not all(isinstance(value, str) for value in hashes):
        return None
    return variant_smoke_id(run.config, run.exp_id, run.variant, hashes)


def probe_findings(runs: tuple[Run, ...], smoke_dir: str | Path | None,
                   claims: ClaimIndex) -> list[Finding]:
    """``no-grad-params`` / ``optimizer-coverage`` findings from each variant's smoke record."""
    if smoke_dir is None or not Path(smoke_dir).is_dir():
        return []
    records = {}
    for run in runs:
        smoke_id = smoke_id_of(run)
        if smoke_id and (Path(smoke_dir) / f"{smoke_id}.json").is_file():
            records[(run.exp_id, run.variant, smoke_id)] = Path(smoke_dir) / f"{smoke_id}.json"
    findings = []
    for (exp_id, variant, _), path in sorted(records.items()):
        findings += record_findings(exp_id, variant, path, claims)
    return findings


def record_findings(exp_id: str, variant: str, path: Path, claims: ClaimIndex) -> list[Finding]:
    """The findings of one smoke record (an unreadable record is itself a finding)."""
    subject, affected = f"{exp_id}/{variant}", claims.claims_for(exp_id, variant)
    try:
        probes = read_json(path).get("probes") or {}
    except RunStateError as error:
        return [Finding("smoke-unreadable", "warning", subject, error.message, affected)]
    findings = []
    grads = probes.get("no-grad-params") or {}
    if grads and not grads.get("ok", True):
        findings.append(_finding("no-grad-params", subject, path, affected, [
            ("no gradient", grads.get("none"), "error"),
            ("non-finite gradient", grads.get("nonfinite"), "error"),
            ("all-zero gradient after one backward", grads.get("zero"), "warning")]))
    coverage = probes.get("optimizer-coverage") or {}
    if coverage and not coverage.get("ok", True):
        findings.append(_finding("optimizer-coverage", subject, path, affected, [
            ("trainable but in no optimizer group", coverage.get("missing"), "error"),
            ("frozen but inside an optimizer group", coverage.get("frozen"), "warning")]))
    return findings


def _finding(check: str, subject: str, path: Path, affected: tuple[str, ...],
             parts: list[tuple[str, list | None, str]]) -> Finding:
    present = [(what, names, severity) for what, names, severity in parts if names]
    severity = "error" if any(s == "error" for *_, s in present) else "warning"
    listed = "; ".join(f"{what}: {', '.join(map(str, names))}" for what, names, _ in present)
    return Finding(check, severity, subject,
                   f"smoke probes ({path.name}) found parameters {listed or 'flagged'}", affected)
