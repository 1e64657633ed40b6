#!/usr/bin/env bash
# Install a single-node Slurm with accounting (munge, MariaDB, slurmdbd, slurmctld, slurmd).
# Idempotent: does nothing when every binary is already there. Needs root and apt (Debian).
set -euo pipefail
need=(munged mariadbd slurmdbd slurmctld slurmd sinfo sacct)
missing=0
for bin in "${need[@]}"; do
  command -v "$bin" > /dev/null || [ -x "/usr/sbin/$bin" ] || missing=1
done
if [ "$missing" = 0 ]; then
  echo "slurm: already installed"
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  munge slurmctld slurmd slurm-client slurmdbd mariadb-server > /dev/null
mkdir -p /etc/slurm
echo "slurm: installed"
