"""Rows of ``rgt watch``: one per run, from a host's snapshot; pure arithmetic on its facts.

Ages use the host's clock (the snapshot's ``now``), so a laptop with a skewed clock sees true
ages. Throughput is the step rate between two refreshes' heartbeats, or, on the first refresh,
since the attempt started (``status.json`` holds the step and time at which it began training).
Money is hours × the host's ``price_per_hour``: a run's so-far from its attempt's
``started_at``, projected = so-far + ETA; the host's total from its container's uptime.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rgt.base.clock import parse_utc
from rgt.hosts import HostEntry
from rgt.watch.classify import classify
from rgt.watch.collect import Snapshot
from rgt.watch.states import (
    ACTIVE,
    FINISHED,
    RUNNING,
    UNREACHABLE,
    RunFacts,
    heartbeat_age,
    run_state,
)

# (host alias, run id) -> (step, heartbeat time) of the previous refresh
Previous = dict[tuple[str, str], tuple[int, float]]


@dataclass(frozen=True)
class Progress:
    """Step, total, rate (steps/s) and ETA (s) of one run."""

    step: int | None
    total: int | None
    rate: float | None
    eta_s: float | None


def host_rows(entry: HostEntry, snapshot: Snapshot, previous: Previous) -> list[dict]:
    """One row per run on the host (one ``no_runs`` row when it has none); updates ``previous``.
    """
    host = host_facts(entry, snapshot)
    if not snapshot.runs:
        return [{"run_id": None, "host": entry.alias, "state": "no_runs", **host}]
    return [run_row(entry, snapshot, facts, previous, host) for facts in snapshot.runs]


def unreachable_row(alias: str, error: str) -> dict:
    """The one row of a host that did not answer: nothing about its runs is known."""
    return {"run_id": None, "host": alias, "state": UNREACHABLE, "error": error}


def run_row(entry: HostEntry, snapshot: Snapshot, facts: RunFacts, previous: Previous,
            host: dict) -> dict:
    """The row of one run."""
    now = snapshot.now
    state = run_state(facts, now, entry.stall_after_s)
    progress = run_progress(facts, previous.get((entry.alias, facts.run_id)), state)
    remember(previous, entry.alias, facts)
    eta = progress.eta_s if state == RUNNING else None  # a stalled run has no honest ETA
    cause = classify(facts, state, snapshot.oom_kills)
    so_far = cost_so_far(facts, state, now, entry.price_per_hour)
    return {
        "run_id": facts.run_id, "host": entry.alias, "state": state,
        "step": progress.step, "total": progress.total,
        "loss": (facts.heartbeat or {}).get("loss"),
        "heartbeat_age_s": _round(heartbeat_age(facts, now)),
        "steps_per_s": _round(progress.rate, 3), "eta_s": _round(eta),
        "cost_so_far": _round(so_far, 2), "max_spend_per_run": entry.max_spend_per_run,
        "cost_projected": _round(projected(so_far, eta, entry.price_per_hour), 2),
        "currency": entry.currency, "cause": cause.name if cause else None,
        "cause_detail": cause.detail if cause else None, "exit_code": facts.exit_code,
        "launches": facts.launches, "result": result_text(facts.results), **host,
    }


def result_text(results: dict | None) -> str | None:
    """A sealed run's reported metrics in words (``test accuracy 0.9521``); None without."""
    entries = [entry for entry in (results or {}).get("metrics", []) if isinstance(entry, dict)
               and isinstance(entry.get("value"), (int, float))]
    reported = [entry for entry in entries if entry.get("split") == "test"] or entries
    return ", ".join(f"{entry.get('split', '?')} {entry.get('name', '?')} "
                     f"{entry['value']:.4g}" for entry in reported[:3]) or None


def remember(previous: Previous, alias: str, facts: RunFacts) -> None:
    """Keep this refresh's heartbeat (step, time) for the next refresh's rate."""
    beat = facts.heartbeat or {}
    written = parse_utc(beat.get("updated_at"))
    if isinstance(beat.get("step"), int) and written is not None:
        previous[(alias, facts.run_id)] = (beat["step"], written)


def run_progress(facts: RunFacts, before: tuple[int, float] | None,
                 state: str | None = None) -> Progress:
    """Step and total from the heartbeat (else status), the step rate and the ETA; a finished
    run's from its final status (the heartbeat is written every few seconds, so its last one
    may be steps short of the end, or the first of a resumed attempt)."""
    beat, status = facts.heartbeat or {}, facts.status or {}
    if state == FINISHED and status.get("state") == FINISHED and status.get("step") is not None:
        return Progress(status["step"], status.get("total_steps") or status["step"], None, None)
    step = beat.get("step", status.get("step"))
    total = beat.get("total_steps", status.get("total_steps"))
    rate = step_rate(beat, status, before)
    eta = (total - step) / rate if rate and step is not None and total is not None else None
    return Progress(step, total, rate, eta)


def step_rate(beat: dict, status: dict, before: tuple[int, float] | None) -> float | None:
    """Steps per second between two heartbeats, else since the attempt began training."""
    now_step, now_time = beat.get("step"), parse_utc(beat.get("updated_at"))
    if now_step is None or now_time is None:
        return None
    if before and now_time > before[1] and now_step >= before[0]:
        return (now_step - before[0]) / (now_time - before[1])
    began = parse_utc(status.get("updated_at")) if status.get("state") == RUNNING else None
    start_step = status.get("step")
    if began is not None and start_step is not None and now_time > began \
            and now_step > start_step:
        return (now_step - start_step) / (now_time - began)
    return None


def cost_so_far(facts: RunFacts, state: str, now: float, price: float | None) -> float | None:
    """Money spent by the run's current attempt: until now while active, else until its end."""
    status = facts.status or {}
    started = parse_utc(status.get("started_at"))
    if price is None or started is None:
        return None
    ended = now if state in ACTIVE else parse_utc(status.get("updated_at")) or now
    return max(0.0, ended - started) / 3600 * price


def projected(so_far: float | None, eta_s: float | None, price: float | None) -> float | None:
    """So-far plus what the remaining steps will cost at the current rate."""
    if so_far is None or eta_s is None or price is None:
        return None
    return so_far + eta_s / 3600 * price


def host_facts(entry: HostEntry, snapshot: Snapshot) -> dict:
    """Host-wide columns: GPU use, the container's total cost, the watchdog's age and alarm."""
    beat = parse_utc((snapshot.watchdog or {}).get("updated_at"))
    total = (None if entry.price_per_hour is None or snapshot.uptime_s is None
             else snapshot.uptime_s / 3600 * entry.price_per_hour)
    return {
        "gpu_util": [gpu.utilization_percent for gpu in snapshot.gpus or []] or None,
        "gpu_memory_mib": [gpu.memory_used_mib for gpu in snapshot.gpus or []] or None,
        "host_uptime_s": snapshot.uptime_s, "host_cost_so_far": _round(total, 2),
        "host_max_spend": entry.max_spend, "currency": entry.currency,
        "watchdog_age_s": None if beat is None else _round(max(0.0, snapshot.now - beat)),
        "alarm": (snapshot.alarm or {}).get("message"),
        "auto_stopped": (snapshot.stopped or {}).get("command"),
    }


def json_number(value: object) -> object:
    """``value``, with a NaN/Inf float spelled as text ("nan"): strict JSON has no NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)
