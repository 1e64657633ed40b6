"""``rgt pull --all --host H``: every run of a host that is not running and not yet pulled with
its current manifest, ``parallel`` at a time, each over a connection of its own and resumable
(an interrupted run keeps its ``.partial`` attempt; the next call sends only what is missing)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.pull.closeout import existing_state
from rgt.pull.fetch import job_states, survey_host
from rgt.pull.home import pull_bundle
from rgt.remote.ssh import RemoteHost, resolve_host

SURVEY_SCHEMA = "rgt/pull-survey/v1"


def pull_many(entry, root: str, ssh_config: str | None, export: Path, parallel: int,
              weights_only: bool, allow_unsafe: bool) -> dict[str, str | None]:
    """Pull every pullable run of ``entry``'s host; by run id, why it did not end verified
    (None: it did, now or before)."""
    spec = resolve_host(entry.alias, entry.ssh_config_for(ssh_config))
    with RemoteHost(spec) as host:
        runs, running = host_runs(host, entry.python, root)
    key = "weights_only_sha256" if weights_only else "manifest_sha256"
    outcomes: dict[str, str | None] = {}
    todo = []
    for run_id, facts in sorted(runs.items()):
        if run_id in running:
            outcomes[run_id] = "still running: not pulled (pull it once it has ended)"
        elif "error" in facts:
            outcomes[run_id] = f"the host cannot build its manifest: {facts['error']}"
        elif facts.get("files") == 0:
            outcomes[run_id] = None  # an empty directory: nothing to pull
        elif existing_state(export, run_id, facts[key]) == "same":
            outcomes[run_id] = None
        else:
            todo.append(run_id)
    printing = threading.Lock()

    def say(line: str) -> None:
        with printing:
            print(line, flush=True)

    def one(run_id: str) -> str | None:
        try:
            with RemoteHost(spec) as host:
                pulled = pull_bundle(host, entry.python, root, run_id, export, weights_only,
                                     allow_unsafe, say)
        except RgtError as error:
            return f"not pulled: {error.message}"
        return None if pulled.outcome.ok else (
            f"quarantined in {pulled.outcome.path} ({pulled.outcome.reason})")

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        outcomes.update(zip(todo, pool.map(one, todo), strict=True))
    return outcomes


def host_runs(host: RemoteHost, python: str, root: str) -> tuple[dict[str, dict], set[str]]:
    """Every run under ``root`` with its manifest digests (the builder's survey), and the ids
    whose job still runs."""
    reply = survey_host(host, python, root)
    try:
        survey = json.loads(reply)
        if survey.get("schema") != SURVEY_SCHEMA or not isinstance(survey.get("runs"), dict):
            raise ValueError(f"not a {SURVEY_SCHEMA} reply")
    except (ValueError, AttributeError) as error:
        raise RgtError(f"{host.spec.alias}: unreadable survey reply ({error}): {reply[:200]!r}",
                       fix=f"check that python: ({python}) runs plain Python 3 on the host"
                       ) from None
    states = job_states(host, root, sorted(survey["runs"]))
    return survey["runs"], {run_id for run_id, status in states.items()
                            if status.state == "running"}
