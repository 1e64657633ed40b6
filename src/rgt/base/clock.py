"""UTC time as rgt writes and reads it: ISO 8601 stamps ending in ``Z``, and short durations."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now(seconds: float | None = None) -> str:
    """A UTC time (now, or ``seconds`` since the epoch) as ISO 8601 with a Z, to the second."""
    moment = datetime.now(timezone.utc) if seconds is None else datetime.fromtimestamp(
        seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now_ms() -> str:
    """Now, to the millisecond, with a Z (mirror records and leases order events closer)."""
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return now.replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """An ISO 8601 UTC time as written by rgt (``...Z`` or ``+00:00``); ValueError otherwise."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def parse_utc(text: object) -> float | None:
    """Seconds since the epoch of an ``rgt`` UTC stamp (``2025-01-02T03:04:05Z``), else None."""
    if not isinstance(text, str):
        return None
    try:
        moment = parse_time(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def duration(seconds: float | None) -> str:
    """``42s``, ``7m05s``, ``3h02m``, ``2d04h``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    if whole < 86400:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    return f"{whole // 86400}d{whole % 86400 // 3600:02d}h"
