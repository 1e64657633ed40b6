"""Every generated path that more than one place names: rules, CLI defaults and DVC."""

from __future__ import annotations

VERIFY_JSON = "verify/report.json"
VERIFY_MD = "verify/report.md"
AGGREGATE = "evidence/results.json"
EVIDENCE = "evidence/EVIDENCE.json"
FIGURE_OUTPUTS = ("figure.png", "figure.pdf", "provenance.json")


def smoke_record(smoke_id: str) -> str:
    """Where the smoke gate of one variant writes its record."""
    return f"smoke/{smoke_id}.json"

