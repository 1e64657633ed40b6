"""The terminal view of ``rgt watch``: a rich table of the rows, refreshed live."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from rgt.base.clock import duration

COLOURS = {"running": "cyan", "stalled": "yellow", "finished": "green", "preempted": "magenta",
           "failed": "red", "dead": "red", "unreachable": "bold red", "no_runs": "dim"}
COLUMNS = ("run id", "host", "state", "step", "loss / result", "steps/s", "ETA", "heartbeat", "GPU",
           "spent", "projected", "mirror", "cause")


def render(rows: list[dict], controller: Text | None = None) -> Group:
    """The runs table, then one line per host (uptime money, watchdog, alarm), then the local
    detached controller's line when there is one (``rgt.controller.show``)."""
    if not rows and controller is not None:
        return Group(controller)  # no hosts registered yet: an empty runs table says nothing
    table = Table(title="rgt watch", expand=False)
    for column in COLUMNS:
        table.add_column(column, no_wrap=column in ("run id", "state"))
    for row in rows:
        if row["run_id"] is not None:
            table.add_row(*run_cells(row))
    lines = [host_line(row) for row in _first_per_host(rows)]
    lines += [mirror_line(row) for row in rows if row.get("mirror_formula")][:1]
    lines += [Text(f"mirror of {row['run_id']} is behind: {row['mirror_behind']}",
                   style="yellow") for row in rows if row.get("mirror_behind")]
    return Group(table, *lines, *([controller] if controller is not None else []))


def run_cells(row: dict) -> list[str]:
    """The table cells of one run."""
    state = row["state"]
    step = f"{row['step']}/{row['total']}" if row.get("step") is not None else "-"
    return [
        row["run_id"], row["host"], f"[{COLOURS.get(state, 'white')}]{state}[/]", step,
        row.get("result") or _number(row.get("loss"), "{:.4f}"),
        _number(row.get("steps_per_s"), "{:.2f}"),
        duration(row.get("eta_s")), duration(row.get("heartbeat_age_s")) + " ago"
        if row.get("heartbeat_age_s") is not None else "-", gpu(row),
        capped(row.get("cost_so_far"), row.get("max_spend_per_run"), row.get("currency")),
        money(row.get("cost_projected"), row.get("currency")),
        mirror_cell(row), row.get("cause") or "",
    ]


def mirror_cell(row: dict) -> str:
    """``step 400, 3m05s old`` plus the steps a host loss would cost now; ``none`` without."""
    if row.get("mirror_step") is None:
        return "[yellow]none[/]" if row.get("state") in ("running", "stalled") else "-"
    cell = f"step {row['mirror_step']}, {duration(row.get('mirror_age_s'))} old"
    if row.get("at_risk_steps"):
        cell += f" (-{row['at_risk_steps']} steps)"
    if row.get("mirror_behind"):
        cell += " [yellow]behind[/]"
    return cell


def mirror_line(row: dict) -> Text:
    """How the mirror interval is chosen and what it bounds (one line; every run shares the
    formula's form)."""
    every = row.get("mirror_checkpoint_every_s")
    if every is None:
        bound = ("the checkpoint cadence is not planned with it: a host lost without warning "
                 "costs at most one interval plus one checkpoint interval")
    else:
        bound = (f"checkpoints at least every {every:.0f} s, so a host lost without warning "
                 f"costs at most {row['mirror_loss_bound_s']:.0f} s of training")
    return Text(f"mirror: {row['mirror_formula']}; {bound} (docs/mirror.md)", style="dim")


def host_line(row: dict) -> Text:
    """One host's summary: reachability, uptime cost, watchdog age, alarm."""
    if row["state"] == "unreachable":
        return Text(f"{row['host']}: UNREACHABLE ({row.get('error')}); its runs' states are "
                    "unknown", style="bold red")
    parts = [f"{row['host']}: up {duration(row.get('host_uptime_s'))}"]
    if row.get("host_cost_so_far") is not None:
        parts.append("spent " + capped(row["host_cost_so_far"], row.get("host_max_spend"),
                                       row.get("currency"), markup=False))
    age = row.get("watchdog_age_s")
    parts.append("no watchdog" if age is None else f"watchdog {duration(age)} ago")
    if row["state"] == "no_runs":
        parts.append("no runs")
    text = Text(", ".join(parts))
    if row.get("alarm"):
        text.append(f"  ALARM: {row['alarm']}", style="bold red")
    if row.get("auto_stopped"):
        text.append(f"  auto-stopped with {row['auto_stopped']}", style="bold yellow")
    return text


def money(amount: float | None, currency: str | None) -> str:
    return "-" if amount is None else f"{amount:.2f} {currency or ''}".strip()


def capped(amount: float | None, cap: float | None, currency: str | None,
           markup: bool = True) -> str:
    """``1.20 USD``, or ``1.20 of 2.00 USD cap`` where a spending cap applies (in a table
    cell, red once past it)."""
    if amount is None or cap is None:
        return money(amount, currency)
    text = f"{amount:.2f} of {money(cap, currency)} cap"
    if amount < cap:
        return text
    return f"[bold red]{text} (past it)[/]" if markup else f"{text} (past it)"


def gpu(row: dict) -> str:
    """``97% 40.0G`` per GPU of the host, ``-`` without nvidia-smi."""
    utils, memory = row.get("gpu_util"), row.get("gpu_memory_mib") or []
    if not utils:
        return "-"
    return " ".join(f"{'?' if u is None else u}%"
                    + ("" if i >= len(memory) or memory[i] is None else f" {memory[i] / 1024:.1f}G")
                    for i, u in enumerate(utils))


def _number(value, pattern: str) -> str:
    if value is None:
        return "-"
    return pattern.format(value) if isinstance(value, (int, float)) else str(value)


def _first_per_host(rows: list[dict]) -> list[dict]:
    seen: dict[str, dict] = {}
    for row in rows:
        seen.setdefault(row["host"], row)
    return list(seen.values())
