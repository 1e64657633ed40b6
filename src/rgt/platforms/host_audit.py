"""Phase-0 host audit, the pure part: parse captured command output, judge the disk budget.

``rgt up HOST`` runs ``df -PB1``, ``df -iP``, ``cat`` of the cgroup limits, ``nvidia-smi`` and
the interpreter probe over SSH; everything here takes that text and returns facts, so it is tested
on real captured output without a host. A launch that cannot fit is refused with the numbers.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass

from rgt.base.errors import RgtError

NVIDIA_SMI_QUERY = ("nvidia-smi --query-gpu=name,memory.total,memory.used,utilization.gpu "
                    "--format=csv,noheader,nounits")
# Printed by the exact interpreter that will run the job: not "some python on the host".
PROBE_SCRIPT = (
    "import json, platform, sys\n"
    "out = {'executable': sys.executable, 'python': platform.python_version(),\n"
    "       'torch': None, 'cuda_available': False, 'device_count': 0, 'error': None}\n"
    "try:\n"
    "    import torch\n"
    "    out.update(torch=torch.__version__, cuda_available=torch.cuda.is_available(),\n"
    "               device_count=torch.cuda.device_count())\n"
    "except Exception as error:\n"
    "    out['error'] = f'{type(error).__name__}: {error}'\n"
    "print(json.dumps(out))\n"
)
# cgroup v1 spells "no limit" as LONG_MAX rounded down to a page; no host has an exbibyte of RAM.
UNLIMITED_THRESHOLD = 2**60
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
_NUMBER = r"(?:[\d.]+[KMGTPE]?|-)"
_DF_LINE = re.compile(rf"^(?P<fs>.+?)\s+(?P<total>{_NUMBER})\s+(?P<used>{_NUMBER})\s+"
                      rf"(?P<free>{_NUMBER})\s+(?P<percent>\d+%|-)\s+(?P<mount>/.*)$")


class AuditError(RgtError):
    """Captured host output could not be understood; nothing was launched."""


@dataclass(frozen=True)
class Filesystem:
    """One line of ``df -P`` (bytes) or ``df -iP`` (inodes): totals are None where df says '-'."""

    source: str
    mount: str
    total: int | None
    used: int | None
    free: int | None
    exact: bool  # False for df -h, whose sizes are rounded


@dataclass(frozen=True)
class Gpu:
    """One GPU as nvidia-smi reports it (None where it says [N/A] or [Not Supported])."""

    index: int
    name: str
    memory_total_mib: int | None
    memory_used_mib: int | None
    utilization_percent: int | None


@dataclass(frozen=True)
class PythonProbe:
    """What the job's interpreter reports about itself."""

    executable: str
    python: str
    torch: str | None
    cuda_available: bool
    device_count: int
    error: str | None


def parse_df(text: str) -> list[Filesystem]:
    """Parse ``df -P``/``-PB1``/``-Pk``/``-hP``/``-iP`` output; mount points may hold spaces."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not lines[0].startswith("Filesystem"):
        raise AuditError("df output has no 'Filesystem' header",
                         "capture `df -PB1` and `df -iP` (POSIX format, one line per mount)")
    scale, exact = _df_scale(lines[0])
    return [_df_entry(line, scale, exact) for line in lines[1:]]


def _df_scale(header: str) -> tuple[int, bool]:
    block = re.search(r"(\d+)([KMG]?)-blocks", header)
    if block:
        return int(block.group(1)) * _UNITS[block.group(2)], True
    return 1, "Size" not in header  # "Size" = df -h (rounded); "Inodes" = exact counts


def _df_entry(line: str, scale: int, exact: bool) -> Filesystem:
    match = _DF_LINE.match(line)
    if not match:
        raise AuditError(f"unexpected df line: {line!r}",
                         "capture df with -P so each mount is on one line")
    total, used, free = (_df_number(match[key], scale) for key in ("total", "used", "free"))
    return Filesystem(match["fs"], match["mount"], total, used, free, exact)


def _df_number(field: str, scale: int) -> int | None:
    if field == "-":
        return None
    unit = field[-1] if field[-1] in _UNITS else ""
    return round(float(field.removesuffix(unit) if unit else field) * _UNITS[unit] * scale)


def filesystem_of(path: str, filesystems: list[Filesystem]) -> Filesystem:
    """The filesystem holding ``path``: the longest mount point that is a prefix of it."""
    def holds(mount: str) -> bool:
        return mount == "/" or path == mount or path.startswith(mount.rstrip("/") + "/")

    candidates = [fs for fs in filesystems if holds(fs.mount)]
    if not candidates:
        raise AuditError(f"no filesystem in the df output holds {path}",
                         "capture df for the whole host (no path arguments)")
    return max(candidates, key=lambda fs: len(fs.mount))


def parse_memory_limit(text: str) -> int | None:
    """Bytes from cgroup v2 ``memory.max`` or v1 ``memory.limit_in_bytes``; None = unlimited."""
    value = text.strip()
    if value == "max":
        return None
    limit = _integer(value, "cgroup memory limit")
    return None if limit >= UNLIMITED_THRESHOLD else limit


def parse_cpu_max(text: str) -> float | None:
    """CPUs from cgroup v2 ``cpu.max`` (``"QUOTA PERIOD"`` or ``"max PERIOD"``); None = no cap."""
    fields = text.split()
    if len(fields) != 2:
        raise AuditError(f"cpu.max = {text.strip()!r}: expected 'QUOTA PERIOD'",
                         "capture /sys/fs/cgroup/cpu.max as it is")
    if fields[0] == "max":
        return None
    return _integer(fields[0], "cpu.max quota") / _integer(fields[1], "cpu.max period")


def parse_cpu_quota_v1(quota_text: str, period_text: str) -> float | None:
    """CPUs from cgroup v1 ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us``; -1 = no cap."""
    quota = _integer(quota_text.strip(), "cpu.cfs_quota_us")
    return None if quota < 0 else quota / _integer(period_text.strip(), "cpu.cfs_period_us")


def _integer(value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise AuditError(f"{what} = {value!r} is not a number",
                         "capture the file with `cat`, unmodified") from None


def parse_nvidia_smi(text: str) -> list[Gpu]:
    """GPUs from ``NVIDIA_SMI_QUERY`` output (one CSV line per GPU, in index order)."""
    rows = [row for row in csv.reader(text.splitlines(), skipinitialspace=True) if row]
    for row in rows:
        if len(row) != 4:
            raise AuditError(f"unexpected nvidia-smi line: {', '.join(row)!r}",
                             f"run exactly: {NVIDIA_SMI_QUERY}")
    return [Gpu(index, row[0].strip(), *(_smi_number(field) for field in row[1:]))
            for index, row in enumerate(rows)]


def _smi_number(field: str) -> int | None:
    field = field.strip()
    if field.startswith("["):  # [N/A], [Not Supported]
        return None
    return round(float(field))


def parse_probe(text: str, failure: str | None = None) -> PythonProbe:
    """The JSON printed by ``PROBE_SCRIPT``; ``failure`` says why the interpreter did not run
    (``rgt.remote.up.interpreter_failure``: missing, not executable, its error)."""
    try:
        data = json.loads(text.strip().splitlines()[-1])
        return PythonProbe(str(data["executable"]), str(data["python"]), data["torch"],
                           bool(data["cuda_available"]), int(data["device_count"]),
                           data.get("error"))
    except (IndexError, ValueError, KeyError, TypeError):
        why = failure or f"it printed {text.strip()[-200:]!r}, not the probe's JSON"
        raise AuditError(f"the job interpreter did not run: {why}",
                         "give the image's Python: `rgt up ALIAS --python PATH` records it in "
                         "config/hosts.yaml (on the host, `command -v python3` or `ls "
                         "/root/miniconda3/bin` shows what exists)") from None


@dataclass(frozen=True)
class BudgetPlan:
    """What a launch will write on the durable disk."""

    checkpoint_bytes: int
    keep: int
    runs: int
    scratch_bytes: int = 0
    files_per_run: int = 0  # inodes one run creates: checkpoints, manifests, logs, samples
    scratch_files: int = 0
    margin: float = 0.10  # fraction of the free space left untouched (logs, caches, pip)

    def __post_init__(self) -> None:
        counts = (self.checkpoint_bytes, self.keep, self.runs, self.scratch_bytes,
                  self.files_per_run, self.scratch_files)
        if min(counts) < 0 or not 0 <= self.margin < 1:
            raise AuditError(f"impossible budget plan {self}",
                             "use counts >= 0 and a margin in [0, 1)")


@dataclass(frozen=True)
class BudgetVerdict:
    """Whether a plan fits, with every number it was judged on."""

    fits: bool
    mount: str
    need_bytes: int
    usable_bytes: int
    free_bytes: int
    need_inodes: int
    usable_inodes: int | None  # None: the filesystem does not count inodes and has no cap
    reasons: tuple[str, ...]

    def summary(self) -> str:
        """One line per judgement, for the audit report."""
        verdict = "fits" if self.fits else "does NOT fit"
        inodes = "unlimited" if self.usable_inodes is None else f"{self.usable_inodes:,}"
        head = (f"plan {verdict} on {self.mount}: {format_bytes(self.need_bytes)} of "
                f"{format_bytes(self.usable_bytes)} usable, {self.need_inodes:,} of {inodes} "
                "inodes")
        return "\n".join((head, *self.reasons))


@dataclass(frozen=True)
class InodeCap:
    """A platform's quota of files that ``df -i`` does not show, on one mount."""

    inodes: int
    mount: str
    platform: str

    def describe(self) -> str:
        return f"{self.platform}'s inode cap of {self.inodes:,} on {self.mount}"


def inode_cap_for(platform: dict | None, root: str, mount: str) -> InodeCap | None:
    """The platform's inode cap when the project ``root`` (on the filesystem mounted at
    ``mount``) lies on the capped mount; None elsewhere (AutoDL's cap is its network FS's, not
    the data disk's nor ``/``'s). One rule for ``rgt up`` and the executor."""
    if not platform or not platform.get("inode_cap"):
        return None
    capped = platform["inode_cap_mount"].rstrip("/") or "/"

    def under(path: str) -> bool:
        return path == capped or path.startswith(capped.rstrip("/") + "/")

    if not (under(mount) or under(root)):
        return None
    return InodeCap(int(platform["inode_cap"]), capped,
                    platform.get("display_name") or platform.get("name", "the platform"))


def disk_budget(plan: BudgetPlan, disk: Filesystem, inodes: Filesystem | None = None,
                inode_cap: InodeCap | None = None) -> BudgetVerdict:
    """Judge ``plan`` against the free bytes and inodes of the filesystem it will write to.

    Needs ``checkpoint_bytes × keep × runs + scratch_bytes`` bytes and
    ``files_per_run × runs + scratch_files`` inodes, within the free space less ``plan.margin``.
    ``inode_cap`` is a platform's quota that ``df -i`` does not show (AutoDL's network FS), as
    ``inode_cap_for`` finds it for this filesystem; the refusal names it.
    """
    if disk.free is None:
        raise AuditError(f"df reports no free bytes for {disk.mount}",
                         "audit a mount with a real size (df -PB1 shows numbers, not '-')")
    need_bytes = plan.checkpoint_bytes * plan.keep * plan.runs + plan.scratch_bytes
    usable_bytes = int(disk.free * (1 - plan.margin))
    need_inodes = plan.files_per_run * plan.runs + plan.scratch_files
    usable_inodes = _usable_inodes(inodes, inode_cap, plan.margin)
    reasons = []
    if need_bytes > usable_bytes:
        reasons.append(_bytes_reason(plan, disk, need_bytes, usable_bytes))
    if usable_inodes is not None and need_inodes > usable_inodes:
        capped = f" ({inode_cap.describe()}, {_cap_use(inodes)})" if inode_cap else ""
        reasons.append(f"inodes: {plan.files_per_run:,} files × {plan.runs} runs + scratch "
                       f"{plan.scratch_files:,} = {need_inodes:,} needed, but only "
                       f"{usable_inodes:,} are usable on {disk.mount}{capped}")
    return BudgetVerdict(not reasons, disk.mount, need_bytes, usable_bytes, disk.free,
                         need_inodes, usable_inodes, tuple(reasons))


def _cap_use(inodes: Filesystem | None) -> str:
    used = inodes.used if inodes is not None and inodes.used is not None else 0
    return f"{used:,} in use"


def _usable_inodes(inodes: Filesystem | None, cap: InodeCap | None, margin: float
                   ) -> int | None:
    candidates = []
    if inodes is not None and inodes.free is not None and inodes.total:
        candidates.append(inodes.free)
    if cap is not None:
        used = inodes.used if inodes is not None and inodes.used is not None else 0
        candidates.append(max(cap.inodes - used, 0))
    return int(min(candidates) * (1 - margin)) if candidates else None


def _bytes_reason(plan: BudgetPlan, disk: Filesystem, need: int, usable: int) -> str:
    approximate = "" if disk.exact else " (df -h rounds: capture df -PB1 for exact bytes)"
    return (f"bytes: checkpoints {format_bytes(plan.checkpoint_bytes)} × keep {plan.keep} × "
            f"{plan.runs} runs + scratch {format_bytes(plan.scratch_bytes)} = "
            f"{format_bytes(need)} needed, but only {format_bytes(usable)} is usable on "
            f"{disk.mount} ({format_bytes(disk.free)} free less a {plan.margin:.0%} margin)"
            f"{approximate}")


def require_fit(verdict: BudgetVerdict) -> None:
    """Refuse a launch that cannot fit: raise ``AuditError`` naming the numbers and the fixes."""
    if not verdict.fits:
        raise AuditError(verdict.summary(),
                         f"free space on {verdict.mount}, lower checkpoint.keep, launch fewer "
                         "runs on this host, or rent a bigger disk")


def format_bytes(count: float) -> str:
    """``1536`` -> ``1.5 KiB`` (binary units, as df -h uses)."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    power = 0
    while abs(count) >= 1024 and power < len(units) - 1:
        count, power = count / 1024, power + 1
    return f"{int(count)} B" if power == 0 else f"{count:.1f} {units[power]}"
