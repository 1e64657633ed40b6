#!/usr/bin/env bash
# Start a single-node Slurm with accounting for the tests: munged (own socket), MariaDB on
# 127.0.0.1:13306, slurmdbd, slurmctld, slurmd (cluster "ci", account "ciacct", partition "debug").
#   RGT_SLURM_STATE=/some/dir bash ci/slurm/start.sh     # PIDs in $RGT_SLURM_STATE/pids
# Idempotent: when every recorded PID is alive and sinfo answers, it does nothing.
# slurm.conf must sit at /etc/slurm/slurm.conf: the Slurm job-step plugin strips SLURM_CONF.
set -euo pipefail
STATE=${RGT_SLURM_STATE:?set RGT_SLURM_STATE to a directory for Slurm state and PIDs}
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
# munged and mariadbd run as their own users: they must traverse the state dir (mktemp -d is 0700).
chmod 0755 "$STATE"
HERE=$(cd "$(dirname "$0")" && pwd)

wait_for() { # wait_for SECONDS CMD...
  local t=$1; shift
  for _ in $(seq $((t * 4))); do "$@" > /dev/null 2>&1 && return 0; sleep 0.25; done
  echo "timeout waiting for: $*" >&2; return 1
}
all_alive() {
  [ -s "$STATE/pids" ] || return 1
  while read -r _ pid; do kill -0 "$pid" 2> /dev/null || return 1; done < "$STATE/pids"
}
if all_alive && sinfo -h > /dev/null 2>&1; then
  echo "slurm: already running ($STATE/pids)"; exit 0
fi
# A half-started earlier attempt: stop what it left (by PID), then start clean.
[ -s "$STATE/pids" ] && RGT_SLURM_STATE="$STATE" bash "$HERE/stop.sh"
rm -rf "$STATE"/{munge,mysql,slurm}
mkdir -p "$STATE"/{munge,mysql,slurm/state,slurm/spool,slurm/log} /etc/slurm
: > "$STATE/pids"
M=$STATE/munge D=$STATE/mysql L=$STATE/slurm

# ---------- munged (as user munge, on its own socket) ----------
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge:munge "$M"; chmod 0755 "$M"
setpriv --reuid=munge --regid=munge --clear-groups \
  munged -F --socket="$M/munge.socket.2" --pid-file="$M/munged.pid" \
  --log-file="$M/munged.log" --seed-file="$M/munged.seed" > "$M/munged.out" 2>&1 &
echo "munged $!" >> "$STATE/pids"
wait_for 10 bash -c "munge -n -S '$M/munge.socket.2' | unmunge -S '$M/munge.socket.2'"

# ---------- MariaDB (slurmdbd's store: sacct needs it) ----------
chown mysql:mysql "$D"
mariadb-install-db --user=mysql --datadir="$D/data" --auth-root-authentication-method=socket \
  --skip-test-db > "$D/install.log" 2>&1
mariadbd --no-defaults --user=mysql --datadir="$D/data" --socket="$D/mysqld.sock" \
  --port=13306 --bind-address=127.0.0.1 --pid-file="$D/mysqld.pid" \
  --log-error="$D/err.log" --innodb-buffer-pool-size=64M > "$D/out.log" 2>&1 &
echo "mariadbd $!" >> "$STATE/pids"
wait_for 30 mariadb-admin --socket="$D/mysqld.sock" ping
mariadb --socket="$D/mysqld.sock" -e "CREATE DATABASE slurm_acct_db;
  CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"

# ---------- Slurm ----------
CPUS=$(nproc)
sed -e "s|@M@|$M|g" -e "s|@L@|$L|g" "$HERE/slurmdbd.conf.in" > /etc/slurm/slurmdbd.conf
chmod 600 /etc/slurm/slurmdbd.conf
sed -e "s|@M@|$M|g" -e "s|@L@|$L|g" -e "s|@CPUS@|$CPUS|g" "$HERE/slurm.conf.in" \
  > /etc/slurm/slurm.conf
slurmdbd -D > "$L/log/slurmdbd.out" 2>&1 &
echo "slurmdbd $!" >> "$STATE/pids"
wait_for 30 sacctmgr -n show cluster
sacctmgr -i add cluster ci > /dev/null
sacctmgr -i add account ciacct Cluster=ci > /dev/null
sacctmgr -i add user root Account=ciacct DefaultAccount=ciacct > /dev/null
slurmctld -D > "$L/log/slurmctld.out" 2>&1 &
echo "slurmctld $!" >> "$STATE/pids"
wait_for 30 scontrol ping
slurmd -D -N localhost > "$L/log/slurmd.out" 2>&1 &
echo "slurmd $!" >> "$STATE/pids"
wait_for 30 bash -c "sinfo -h -o %T | grep -qx idle"
echo "slurm: up ($STATE/pids)"
