"""Every generated path that more than one place names: rules, CLI defaults and DVC."""

from __future__ import annotations

VERIFY_JSON = "verify/report.json"
VERIFY_MD = "verify/report.md"
AGGREGATE = "evidence/results.json"
EVIDENCE = "evidence/EVIDENCE.json"
METRICS_DIR = "evidence/metrics"  # one file per variant, for `dvc metrics show`
FIGURE_OUTPUTS = ("figure.png", "figure.pdf", "provenance.json")


def smoke_record(smoke_id: str) -> str:
    """Where the smoke gate of one variant writes its record."""
    return f"smoke/{smoke_id}.json"



# The delivery rules build into this work directory (the same layout as the project) and
# `rgt promote` copies the complete delivery into place: a failed job never deletes a
# committed file (rgt.deliver.staging).
DELIVERY_WORK = ".rgt/delivery"
DELIVERY_PLAN = f"{DELIVERY_WORK}/plan.json"
DELIVERY_PROMOTED = f"{DELIVERY_WORK}/promoted.json"


def work_path(path: str) -> str:
    """Where the pipeline builds the delivery file ``path`` before promoting it."""
    return f"{DELIVERY_WORK}/{path}".rstrip("/")
