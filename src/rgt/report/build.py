"""``evidence/report.md`` and ``evidence/report.html`` from EVIDENCE.json and the run files."""

from __future__ import annotations

import html
from pathlib import Path

from rgt.report.ladder import claim_runs, claim_status, run_status

COLUMNS = ("claim", "value", "n", "variance", "runs", "status", "disclosures")
DIGITS = 4  # significant digits shown; EVIDENCE.json keeps full precision


def _number(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_number(item) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.{DIGITS}g}"
    return "n/a" if value is None else str(value)


def report_rows(evidence: dict, runs_dir: str | Path, export_dir: str | Path) -> list[dict]:
    """One row per claim: its value (to ``DIGITS`` significant digits), runs, disclosures and
    status."""
    claims = evidence.get("claims") or []
    by_id = {claim["id"]: claim for claim in claims}
    rows = []
    for claim in claims:
        runs = claim_runs(claim, by_id)
        states = [run_status(run, Path(runs_dir), Path(export_dir)) for run in runs]
        variance = claim.get("variance") or {}
        rows.append({
            "claim": claim["id"],
            "value": _number(claim.get("value")),
            "n": str(claim.get("n")),
            "variance": f"{variance.get('type')} {_number(variance.get('value'))}",
            "runs": ", ".join(runs) or "none",
            "status": claim_status(states),
            "disclosures": "; ".join(claim.get("disclosures") or []) or "none",
        })
    return rows


def render_markdown(rows: list[dict], source: str) -> str:
    """The report as a Markdown table."""
    escape = lambda text: str(text).replace("|", "\\|")  # noqa: E731
    lines = [f"# Delivery report\n\nEvery delivered number, from `{source}`.\n",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(escape(row[c]) for c in COLUMNS) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def render_html(rows: list[dict], source: str) -> str:
    """The report as a self-contained HTML page."""
    head = "".join(f"<th>{c}</th>" for c in COLUMNS)
    body = "\n".join(
        f'<tr class="{html.escape(row["status"])}">'
        + "".join(f"<td>{html.escape(row[c])}</td>" for c in COLUMNS) + "</tr>"
        for row in rows
    )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Delivery report</title>"
        "<style>td,th{border:1px solid #999;padding:4px}table{border-collapse:collapse}"
        ".delivered{background:#e8f5e9}</style></head><body>\n<h1>Delivery report</h1>\n"
        f"<p>Every delivered number, from <code>{html.escape(source)}</code>.</p>\n"
        f"<table><tr>{head}</tr>\n{body}\n</table></body></html>\n"
    )
