"""Platform gotchas read off a host (skill-inventory §6, DP15): the pure part.

``rgt.remote.up.query_host`` runs ``HOST_QUERIES`` over SSH; the functions here turn that raw
text into verdicts — inode headroom (U7), the cgroup memory limit vs the node's RAM (U41),
``/dev/shm`` for DataLoader workers (DP15), the threads cap vs ``cpu.max`` (U40) and the Hugging
Face cache on the system disk (U8) — so they are tested on captured output without a host.
"""

from __future__ import annotations

import math
import re

from rgt.platforms.host_audit import (
    AuditError,
    Filesystem,
    filesystem_of,
    format_bytes,
    parse_cpu_max,
    parse_cpu_quota_v1,
    parse_df,
    parse_memory_limit,
)

OK, INFO, WARNING = "ok", "info", "warning"
MIN_SHM_BYTES = 1 << 30  # below this, a few workers with image batches hit "Bus error"
MIN_FREE_INODES = 0.10
HOST_QUERIES = {
    "shm": "df -PB1 /dev/shm 2>/dev/null",
    "cpu_max": "cat /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us "
               "/sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null",
    "nproc": "nproc",
    "meminfo": "head -n 1 /proc/meminfo",
    "df_system": "df -PB1 /",
    "hf_cache": 'd="${HF_HOME:-$HOME/.cache/huggingface}"; echo "$d"; '
                'while [ ! -e "$d" ]; do d=$(dirname "$d"); done; df -PB1 "$d"',
}


MARKER = "@@rgt-gotcha "


def host_query() -> str:
    """One shell command that answers every ``HOST_QUERIES`` item (one SSH round trip), each
    answer after a ``MARKER name`` line."""
    return "; ".join(f"echo '{MARKER}{name}'; {{ {command}; }}"
                     for name, command in HOST_QUERIES.items())


def split_answers(text: str) -> dict[str, str]:
    """The raw answer of each query from ``host_query()``'s output."""
    answers: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines(keepends=True):
        if line.startswith(MARKER):
            current = answers.setdefault(line[len(MARKER):].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: "".join(lines) for name, lines in answers.items()}


def verdict(check: str, entry: str, severity: str, message: str, fix: str = "") -> dict:
    """One gotcha verdict as the audit record stores it."""
    return {"check": check, "entry": entry, "severity": severity, "message": message, "fix": fix}


def parse_cpu_answer(text: str) -> float | None:
    """CPUs allowed by the cgroup: v2 ``cpu.max`` (one line) or v1 quota + period (two)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) == 2:
        return parse_cpu_quota_v1(lines[0], lines[1])
    if len(lines) == 1:
        return parse_cpu_max(lines[0])
    raise AuditError(f"cpu quota answer {text.strip()!r}: expected cpu.max or quota + period",
                     f"run: {HOST_QUERIES['cpu_max']}")


def parse_meminfo_total(text: str) -> int:
    """Bytes of ``MemTotal:`` in /proc/meminfo (the whole node's RAM)."""
    match = re.search(r"MemTotal:\s+(\d+)\s+kB", text)
    if not match:
        raise AuditError(f"no MemTotal in {text.strip()[:80]!r}", "run: head -n 1 /proc/meminfo")
    return int(match[1]) * 1024


def parse_hf_cache(text: str) -> tuple[str, Filesystem]:
    """The HF cache directory and the filesystem holding it (its nearest existing parent)."""
    path, _, df = text.strip().partition("\n")
    return path.strip(), parse_df(df)[-1]


def inode_headroom(df_inodes: str, root: str) -> dict:
    """U7: inodes run out before bytes on filesystems full of small files."""
    fs = filesystem_of(root, parse_df(df_inodes))
    if not fs.total or fs.free is None:
        return verdict("inode-headroom", "U7", OK, f"{fs.mount} does not count inodes")
    share = fs.free / fs.total
    message = f"{fs.free:,} of {fs.total:,} inodes free ({share:.0%}) on {fs.mount}"
    if share >= MIN_FREE_INODES:
        return verdict("inode-headroom", "U7", OK, message)
    return verdict("inode-headroom", "U7", WARNING, message,
                   "shard small files into tar/WebDataset shards; clear caches (du --inodes)")


def cgroup_memory(memory: str, meminfo: str) -> dict:
    """U41: free/uptime describe the node; the cgroup limit is what kills the job."""
    node = parse_meminfo_total(meminfo)
    limit = parse_memory_limit(memory) if memory.strip() else None
    if limit is None or limit >= node:
        return verdict("cgroup-memory", "U41", OK, f"no cgroup memory limit below the node's "
                                                  f"{format_bytes(node)}")
    return verdict("cgroup-memory", "U41", WARNING,
                   f"cgroup memory limit {format_bytes(limit)} of the node's "
                   f"{format_bytes(node)}: free and top overstate what this job may use",
                   f"budget workers and caches against {format_bytes(limit)}; read oom_kill in "
                   "memory.events after a bare 'Killed'")


def shm_size(shm: str) -> dict:
    """DP15: DataLoader workers pass batches through /dev/shm (64 MiB by default in Docker)."""
    filesystems = parse_df(shm) if shm.strip() else []
    if not filesystems or filesystems[-1].total is None:
        return verdict("shm-size", "DP15", WARNING, "no /dev/shm on this host",
                       "use num_workers=0 or torch.multiprocessing.set_sharing_strategy"
                       "('file_system')")
    total = filesystems[-1].total
    message = f"/dev/shm is {format_bytes(total)}"
    if total >= MIN_SHM_BYTES:
        return verdict("shm-size", "DP15", OK, message)
    return verdict("shm-size", "DP15", WARNING,
                   f"{message}: DataLoader workers will die with 'Bus error'",
                   "start the container with --shm-size=8g (or ask the platform), use "
                   "set_sharing_strategy('file_system'), or fewer workers")


def threads_cap(cpu_max: str, nproc: str) -> dict:
    """U40: torch sizes its thread pool by the visible cores, not the cgroup's CPU quota."""
    cores = int(nproc.strip())
    quota = parse_cpu_answer(cpu_max) if cpu_max.strip() else None
    if quota is None or quota >= cores:
        return verdict("threads-cap", "U40", OK, f"{cores} cores visible, no lower CPU quota")
    threads = max(1, math.floor(quota))
    return verdict("threads-cap", "U40", WARNING,
                   f"CPU quota {quota:g} CPUs but {cores} cores visible: torch starts {cores} "
                   "threads that thrash on the quota",
                   f"export OMP_NUM_THREADS={threads} (or torch.set_num_threads({threads}))")


def hf_cache_disk(hf_cache: str, df_system: str, root: str, df_root: str) -> dict:
    """U8: the Hugging Face cache on the (small) system disk while the data disk is elsewhere."""
    path, cache_fs = parse_hf_cache(hf_cache)
    system = filesystem_of("/", parse_df(df_system))
    durable = filesystem_of(root, parse_df(df_root))
    message = f"HF cache {path} is on {cache_fs.mount}"
    if cache_fs.mount != system.mount or durable.mount == system.mount:
        return verdict("hf-cache-disk", "U8", OK, message)
    return verdict("hf-cache-disk", "U8", WARNING,
                   f"{message}, the system disk ({format_bytes(system.free or 0)} free), not "
                   f"the durable disk {durable.mount}",
                   f"export HF_HOME={durable.mount.rstrip('/')}/hf-cache before downloading "
                   "models or datasets")


def host_gotchas(answers: dict[str, str], root: str) -> list[dict]:
    """Every gotcha verdict from a host's raw answers; a check whose answer is missing or
    unreadable says so (severity info) instead of failing the audit."""
    checks = (
        ("inode-headroom", "U7", lambda: inode_headroom(answers["df_inodes"], root)),
        ("cgroup-memory", "U41", lambda: cgroup_memory(answers["memory"], answers["meminfo"])),
        ("shm-size", "DP15", lambda: shm_size(answers["shm"])),
        ("threads-cap", "U40", lambda: threads_cap(answers["cpu_max"], answers["nproc"])),
        ("hf-cache-disk", "U8", lambda: hf_cache_disk(answers["hf_cache"], answers["df_system"],
                                                      root, answers["df"])),
    )
    results = []
    for check, entry, run in checks:
        try:
            results.append(run())
        except (AuditError, KeyError, ValueError, IndexError, ZeroDivisionError) as error:
            results.append(verdict(check, entry, INFO, f"could not be read: {error}"))
    return results
