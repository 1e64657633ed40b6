"""Talking to the hosts: one short SSH command per host per refresh, all hosts in parallel.

Connections stay open between refreshes of the live view. A host that does not answer (or
answers something that is not a complete snapshot) becomes one ``unreachable`` row: its runs'
states are unknown, never guessed, and the other hosts are shown as usual.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.files import read_json
from rgt.hosts import HostEntry
from rgt.remote.ssh import RemoteHost, resolve_host
from rgt.watch.collect import Snapshot, SnapshotError, parse_snapshot, snapshot_script
from rgt.watch.mirrors import add_mirror_columns
from rgt.watch.rows import Previous, host_rows, result_text, unreachable_row

CONNECT_TIMEOUT_S = 10
COMMAND_TIMEOUT_S = 30


class HostPoller:
    """Keeps one connection per host and turns each refresh into rows."""

    def __init__(self, entries: list[HostEntry], ssh_config: str | None, project: Path,
                 mirrors: Path, runs: str = "runs"):
        """``mirrors``: the local directory of the runs' mirrored checkpoints; ``runs``: the
        project's sealed runs (where a pulled run's metrics are)."""
        self.runs = runs
        self.entries = entries
        self.project = Path(project)
        # Resolved up front: a typo in an alias is the user's to fix, not an unreachable host.
        self.hosts = {entry.alias: RemoteHost(resolve_host(entry.alias,
                                                           entry.ssh_config_for(ssh_config)),
                                              connect_timeout=CONNECT_TIMEOUT_S, retries=0)
                      for entry in entries}
        self.previous: Previous = {}
        self.mirrors = Path(mirrors)

    def refresh(self) -> list[dict]:
        """Every host's rows, in the order the hosts were given."""
        with ThreadPoolExecutor(max_workers=min(8, len(self.entries)) or 1) as pool:
            results = list(pool.map(self._poll, self.entries))
        rows = []
        for entry, result in zip(self.entries, results, strict=True):
            if isinstance(result, Snapshot):
                rows.extend(host_rows(entry, result, self.previous))
            else:
                rows.append(unreachable_row(entry.alias, result))
        return add_local_results(add_mirror_columns(rows, self.mirrors),
                                 self.project / self.runs)

    def _poll(self, entry: HostEntry) -> Snapshot | str:
        """The host's snapshot, or why there is none."""
        try:
            script = snapshot_script(entry.root())
            result = self.hosts[entry.alias].run(["bash", "-c", script],
                                                 timeout=COMMAND_TIMEOUT_S)
            return parse_snapshot(result.stdout)
        except (RgtError, SnapshotError) as error:
            return str(error).splitlines()[0]

    def close(self) -> None:
        """Close every connection."""
        for host in self.hosts.values():
            host.close()


def add_local_results(rows: list[dict], runs: Path) -> list[dict]:
    """A finished run whose metrics the host does not hold (the built-in trainer's are
    evaluated here, after the pull) shows the sealed ones of ``runs/<id>/results.json``."""
    for row in rows:
        if row.get("state") == "finished" and not row.get("result") and row.get("run_id"):
            row["result"] = result_text(read_json(Path(runs) / row["run_id"] / "results.json"))
    return rows
