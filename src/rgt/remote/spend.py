"""What a host has cost so far, read off the host (the container's age × its price), and the
refusal to launch on a host already past its spending cap (its watchdog would stop the job at
once: nothing is launched, nothing is lost)."""

from __future__ import annotations

from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.remote.ssh import RemoteHost

UPTIME = "ps -o etimes= -p 1"  # the container's age, as `rgt watch` and the watchdog read it


def host_uptime_s(host: RemoteHost) -> int | None:
    """Seconds since the host's container started (None when ``ps`` cannot say)."""
    result = host.run(UPTIME, check=False, timeout=60)
    text = result.stdout.strip()
    return int(text) if result.ok and text.isdigit() else None


def refuse_past_cap(host: RemoteHost, entry: HostEntry) -> None:
    """Raise ``ConfigError`` when ``entry``'s host has already cost its ``max_spend``."""
    if entry.max_spend is None or entry.price_per_hour is None:
        return
    uptime = host_uptime_s(host)
    if uptime is None:
        return
    spent = uptime / 3600 * entry.price_per_hour
    if spent < entry.max_spend:
        return
    money = f"{entry.currency}".strip()
    raise ConfigError(
        f"host {entry.alias} has already cost {spent:.2f} {money} (up {uptime / 3600:.2f} h at "
        f"{entry.price_per_hour:g} {money}/h), more than its max_spend {entry.max_spend:g} "
        f"{money}: its watchdog would stop a job at once, so none is launched",
        f"raise max_spend for {entry.alias} in config/hosts.yaml (or remove it), or pull what "
        f"it holds and stop it: rgt pull --all --host {entry.alias}; rgt down {entry.alias}")
