"""The mirror columns of ``rgt watch``: where each run's newest complete checkpoint lives off
the host, how old it is, the interval in force (and why), what a host loss would cost, and why
the mirror is not keeping its interval when it is not."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from rgt.base.clock import parse_time
from rgt.mirror.record import MirrorRecord, read_mirror, work_at_risk

ACTIVE = ("running", "stalled")
# A check may start a tick late and take a few seconds: only past this is nobody mirroring.
UNCHECKED_SLACK_S = 10.0


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
            mirror_checkpoint_every_s=record.checkpoint_every_seconds if record else None,
            mirror_loss_bound_s=record.loss_bound_seconds if record else None,
            mirror_by=record.mirrored_by if record else None,
            mirror_behind=behind(record, row.get("state")) if record else None,
            at_risk_steps=risk.steps if risk else None,
            at_risk_hours=round(risk.hours, 3) if risk else None)
    return rows


def behind(record: MirrorRecord, state: str | None, now: datetime | None = None) -> str | None:
    """Why the mirror of an active run is not keeping its interval (None while it is): the
    reason the mirror recorded, or nobody having checked for well over an interval."""
    if state not in ACTIVE:
        return None
    now = now or datetime.now(timezone.utc)
    try:
        checked = parse_time(record.checked_at or record.mirrored_at)
    except ValueError:
        return record.behind or None
    unchecked = (now - checked).total_seconds()
    if unchecked > 2 * record.interval_seconds + UNCHECKED_SLACK_S:
        return (f"not checked for {unchecked:.0f} s (interval {record.interval_seconds:.0f} s): "
                f"no mirror of this run is running (was the {record.mirrored_by}'s mirror "
                "stopped?)")
    return record.behind or None
