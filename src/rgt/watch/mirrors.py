"""The mirror columns of ``rgt watch``: where each run's newest complete checkpoint lives off
the host, how old it is, the interval in force (and why), and what a host loss would cost."""

from __future__ import annotations

from pathlib import Path

from rgt.mirror.record import read_mirror, work_at_risk


def add_mirror_columns(rows: list[dict], root: Path) -> list[dict]:
    """Each run row gains ``mirror_*`` and ``at_risk_*`` keys (None without a mirror)."""
    for row in rows:
        if row.get("run_id") is None:
            continue
        record = read_mirror(Path(root) / row["run_id"])
        risk = work_at_risk(record, row.get("step")) if record else None
        row.update(
            mirror_step=record.step if record else None,
            mirror_host=record.host if record else None,
            mirror_age_s=round(record.age_seconds(), 1) if record else None,
            mirror_interval_s=round(record.interval_seconds, 1) if record else None,
            mirror_formula=record.interval_formula if record else None,
            at_risk_steps=risk.steps if risk else None,
            at_risk_hours=round(risk.hours, 3) if risk else None)
    return rows
