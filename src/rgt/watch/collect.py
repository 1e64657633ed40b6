"""One snapshot of a host per refresh: a shell script that prints every fact, and its parser.

The script is the only thing ``rgt watch`` runs on a host (one short SSH command per refresh),
and the watchdog runs the same script locally, so both see the same facts. It prints
``key value`` lines; file contents (JSON, log tails, nvidia-smi output) are base64 so that no
log line can break the format, and ``-`` means "no such file". A reply that does not end with
``end`` was cut off and is refused as a whole: facts are never half-read.

    rgt-snapshot 1
    now <host epoch seconds>        host clock: ages are computed against it, not the laptop's
    uptime <seconds|->              ps -o etimes= -p 1 (the container's age: the host's meter)
    oom_kill <n|->                  the cgroup's oom_kill counter (v2 memory.events, v1 oom_control)
    gpu <b64|->                     NVIDIA_SMI_QUERY output, - without nvidia-smi
    watchdog <b64|->                <root>/watchdog/heartbeat.json
    alarm <b64|->                   <root>/watchdog/ALARM
    stopped <b64|->                 <root>/watchdog/STOPPED
    run <run id>                    then, for that run:
    job <pid|-> <alive 0|1> <exit|-> <launches> <launched_at|->
    sealed <0|1>
    status <b64|->   heartbeat <b64|->   train_log <b64|->   job_log <b64|->
    results <b64|->                 the sealed run's runs/<id>/results.json (its metrics)
    end
"""

from __future__ import annotations

import base64
import binascii
import json
import shlex
from dataclasses import dataclass, field

from rgt.platforms.host_audit import NVIDIA_SMI_QUERY, AuditError, Gpu, parse_nvidia_smi
from rgt.watch.states import RunFacts

HEADER = "rgt-snapshot 1"
LOG_TAIL_BYTES = 8192

_SCRIPT = r"""r=__ROOT__
b64() { if [ -f "$1" ]; then tail -c __TAIL__ "$1" | base64 | tr -d '\n'; echo; else echo -; fi; }
echo 'rgt-snapshot 1'
echo "now $(date +%s)"
u=$(ps -o etimes= -p 1 2>/dev/null | tr -d ' '); echo "uptime ${u:--}"
o=$(cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null |
    awk '$1 == "oom_kill" {print $2; exit}'); echo "oom_kill ${o:--}"
if command -v nvidia-smi >/dev/null 2>&1; then
  printf 'gpu '; __SMI__ 2>/dev/null | base64 | tr -d '\n'; echo
else echo 'gpu -'; fi
printf 'watchdog '; b64 "$r/watchdog/heartbeat.json"
printf 'alarm '; b64 "$r/watchdog/ALARM"
printf 'stopped '; b64 "$r/watchdog/STOPPED"
for d in "$r"/jobs/*/ "$r"/checkpoints/*/; do [ -d "$d" ] && basename "$d"; done | sort -u |
while IFS= read -r id; do
  j="$r/jobs/$id"; c="$r/checkpoints/$id"
  pid=$(cat "$j/pid" 2>/dev/null || echo -); code=$(cat "$j/exit_code" 2>/dev/null || echo -)
  n=$(cat "$j/launches" 2>/dev/null || echo 0); at=$(stat -c %Y "$j/pid" 2>/dev/null || echo -)
  alive=0
  # A job is its process group (setsid/tmux): alive while a member carries the run id, as in
  # rgt.remote.jobs.probe_script. A run with no job record: the pid its status.json names.
  if [ "$pid" != - ]; then members=$(pgrep -g "$pid" 2>/dev/null)
  else members=$(sed -n 's/^ *"pid": \([0-9][0-9]*\).*/\1/p' "$c/status.json" 2>/dev/null); fi
  for p in $members; do grep -qa -- "$id" "/proc/$p/cmdline" 2>/dev/null && alive=1; done
  echo "run $id"
  echo "job $pid $alive ${code:--} $n $at"
  if [ -f "$r/runs/$id/run.json" ]; then echo 'sealed 1'; else echo 'sealed 0'; fi
  printf 'status '; b64 "$c/status.json"
  printf 'heartbeat '; b64 "$c/heartbeat.json"
  printf 'train_log '; b64 "$c/train.log"
  printf 'job_log '; b64 "$j/job.log"
  printf 'results '; b64 "$r/runs/$id/results.json"
done
echo end
"""


class SnapshotError(ValueError):
    """A snapshot reply that is not complete or not in the expected format."""


@dataclass(frozen=True)
class Snapshot:
    """Every fact one refresh learned about a host."""

    now: int
    uptime_s: int | None = None
    oom_kills: int | None = None
    gpus: list[Gpu] | None = None  # None: no nvidia-smi on the host
    watchdog: dict | None = None
    alarm: dict | None = None
    stopped: dict | None = None
    runs: list[RunFacts] = field(default_factory=list)


def snapshot_script(root: str) -> str:
    """Shell text printing the snapshot of the project at ``root`` on the host."""
    return (_SCRIPT.replace("__ROOT__", shlex.quote(root))
            .replace("__TAIL__", str(LOG_TAIL_BYTES)).replace("__SMI__", NVIDIA_SMI_QUERY))


def parse_snapshot(text: str) -> Snapshot:
    """Parse the script's reply; raises ``SnapshotError`` on a cut-off or foreign reply."""
    lines = text.strip("\n").split("\n")
    if not lines or lines[0] != HEADER or lines[-1] != "end":
        raise SnapshotError("not a complete rgt snapshot (cut off, or a shell printed extra "
                            f"text): starts {lines[0][:60]!r}")
    host: dict[str, str] = {}
    runs: list[dict[str, str]] = []
    for line in lines[1:-1]:
        key, _, value = line.partition(" ")
        if key == "run":
            runs.append({"run": value})
        else:
            (runs[-1] if runs else host)[key] = value
    return Snapshot(now=_required_int(host, "now"), uptime_s=_int(host.get("uptime")),
                    oom_kills=_int(host.get("oom_kill")), gpus=_gpus(host.get("gpu", "-")),
                    watchdog=_json(host.get("watchdog")), alarm=_json(host.get("alarm")),
                    stopped=_json(host.get("stopped")), runs=[_run(run) for run in runs])


def _run(fields: dict[str, str]) -> RunFacts:
    job = fields.get("job", "- 0 - 0 -").split()
    if len(job) != 5:
        raise SnapshotError(f"run {fields['run']}: malformed job line {' '.join(job)!r}")
    pid, alive, code, launches, launched_at = job
    return RunFacts(
        run_id=fields["run"], pid=_int(pid), alive=alive == "1", exit_code=_int(code),
        launches=_int(launches) or 0, launched_at=_int(launched_at),
        sealed=fields.get("sealed") == "1", status=_json(fields.get("status")),
        heartbeat=_json(fields.get("heartbeat")), train_log=_text(fields.get("train_log")),
        job_log=_text(fields.get("job_log")), results=_json(fields.get("results")))


def _text(value: str | None) -> str:
    """A base64 field as text ('' for a missing file)."""
    if value in (None, "-", ""):
        return ""
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        raise SnapshotError(f"a base64 field does not decode: {value[:40]!r}") from None


def _json(value: str | None) -> dict | None:
    """A base64 JSON file; None when missing or torn (a writer mid-way is not a fact)."""
    text = _text(value)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _gpus(value: str) -> list[Gpu] | None:
    if value == "-":
        return None
    try:
        return parse_nvidia_smi(_text(value))
    except AuditError:
        return []  # nvidia-smi exists but printed no usable rows (a driver error): no GPU facts


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "-") else None
    except ValueError:
        return None


def _required_int(fields: dict[str, str], key: str) -> int:
    number = _int(fields.get(key))
    if number is None:
        raise SnapshotError(f"snapshot has no usable {key!r} line")
    return number
