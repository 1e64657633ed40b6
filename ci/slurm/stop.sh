#!/usr/bin/env bash
# Stop the Slurm started by ci/slurm/start.sh: the PIDs in $RGT_SLURM_STATE/pids, newest first,
# SIGTERM then SIGKILL after 15 s. Never by process name. Idempotent.
set -uo pipefail
STATE=${RGT_SLURM_STATE:?set RGT_SLURM_STATE to the directory given to start.sh}
[ -s "$STATE/pids" ] || { echo "slurm: nothing to stop"; exit 0; }
tac "$STATE/pids" | while read -r name pid; do
  kill "$pid" 2> /dev/null || continue
  for _ in $(seq 60); do kill -0 "$pid" 2> /dev/null || break; sleep 0.25; done
  kill -0 "$pid" 2> /dev/null && { echo "$name ($pid) did not stop: SIGKILL"; kill -9 "$pid"; }
  echo "stopped $name ($pid)"
done
: > "$STATE/pids"
