"""Remote training progress in the controller's output: every ``REPORT_EVERY_S`` seconds, one
line per training job running on a host (step, loss, rate, ETA), read from the heartbeat and
status files its trainer keeps on the host (one short SSH command per host)."""

from __future__ import annotations

import json
import shlex
import time

from rgt.base.clock import duration, parse_utc
from rgt.watch.rows import step_rate

REPORT_EVERY_S = 30.0


def progress_script(root: str, run_ids: list[str]) -> str:
    """Shell text printing ``<run-id>\\t<heartbeat.json>\\t<status.json>`` per job, each JSON
    on one line (``null`` when absent)."""
    ids = " ".join(shlex.quote(run_id) for run_id in run_ids)
    return (f"for id in {ids}; do c={shlex.quote(root)}/checkpoints/$id; printf '%s\\t' \"$id\"; "
            "for f in heartbeat status; do (cat \"$c/$f.json\" 2>/dev/null || echo null) | "
            "tr -d '\\n\\t'; printf '\\t'; done; echo; done\n")


def parse_progress(text: str) -> dict[str, tuple[dict, dict]]:
    """``{run_id: (heartbeat, status)}``; unreadable records are empty."""
    found = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3:
            found[parts[0]] = (_json(parts[1]), _json(parts[2]))
    return found


def _json(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def progress_line(run_id: str, alias: str, beat: dict, status: dict,
                  before: tuple[int, float] | None) -> str | None:
    """``rgt: <run> on <host>: step 120/240 (50%), loss 0.123, 2.1 steps/s, ETA 57s``."""
    step, total = beat.get("step"), beat.get("total_steps")
    if step is None:
        return None
    parts = [f"step {step}/{total} ({100 * step / total:.0f}%)" if total else f"step {step}"]
    if isinstance(beat.get("loss"), (int, float)):
        parts.append(f"loss {beat['loss']:.4g}")
    rate = step_rate(beat, status, before)
    if rate:
        parts.append(f"{rate:.3g} steps/s")
        if total:
            parts.append(f"ETA {duration(max(0.0, (total - step) / rate))}")
    return f"rgt: {run_id} on {alias}: {', '.join(parts)}"


class ProgressReporter:
    """Reports each host's running training jobs at most every ``every`` seconds."""

    def __init__(self, report, every: float = REPORT_EVERY_S):
        self.report, self.every = report, every
        self.last_report: dict[str, float] = {}
        self.before: dict[str, tuple[int, float]] = {}

    def due(self, alias: str) -> bool:
        return time.monotonic() - self.last_report.get(alias, -self.every) >= self.every

    def show(self, alias: str, reply: str) -> None:
        """One line per job of a host's ``progress_script`` reply."""
        self.last_report[alias] = time.monotonic()
        for run_id, (beat, status) in sorted(parse_progress(reply).items()):
            line = progress_line(run_id, alias, beat, status, self.before.get(run_id))
            if line:
                self.report(line)
            written = parse_utc(beat.get("updated_at"))
            if beat.get("step") is not None and written is not None:
                self.before[run_id] = (beat["step"], written)
