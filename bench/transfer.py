"""Benchmark: rgt ``pull()`` of one large file vs OpenSSH ``scp``, over a loopback sshd.

    python bench/transfer.py [--mib 512] [--pairs 5] [--json OUT]

Starts its own sshd (tests/sshd.py), writes a random file of ``--mib`` MiB on the server's
"disk" (hashing it as it is written, as a checkpoint's store does for its marker), then runs in
rotated order, per round:
  verified  ``pull(host, root, [FILE], dst, expected={FILE: sha256})``: what ``rgt pull`` and the
        mirror do with a manifest's or a marker's hash: connect, remote stat, one ``cat`` stream
        (each byte read once on the host), sha256 here as the bytes arrive, fsync, verify,
        rename (in-process);
  ours  ``pull(host, root, [FILE], dst)`` with no hash known in advance: the same, while the
        remote also hashes the file (a second read there);
  raw   the same connection and exec stream written to a file, nothing verified or fsync'd: the
        transport alone, to tell its speed from the cost of verifying (in-process);
  scp   ``scp -q -F ssh_config alias:FILE dst``: a whole OpenSSH process, no fsync.
The destination is removed and ``os.sync()`` run, untimed, before every run. Round 0 is a
warm-up and not counted. Throughput ratios are paired within a round (scp's time over the
variant's); ``verified_vs_scp`` is the median of verified/scp, goal >= 1.0; ours/scp was held to
>= 0.8 (perf-anchors section 3).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from rgt.base.hashing import sha256_file  # noqa: E402
from rgt.remote.ssh import RemoteHost, resolve_host  # noqa: E402
from rgt.remote.transfer import pull  # noqa: E402
from sshd import ALIAS, LoopbackSshd, start_sshd  # noqa: E402

GOAL = 0.8
VERIFIED_GOAL = 1.0
NAME = "source.bin"


def write_random(path: Path, mib: int) -> str:
    """``mib`` MiB of random bytes at ``path`` (left in the page cache, as scp's source is too);
    their sha256, computed as they are written."""
    digest = hashlib.sha256()
    with open(path, "wb") as handle:
        for _ in range(mib):
            chunk = os.urandom(1 << 20)
            digest.update(chunk)
            handle.write(chunk)
    return digest.hexdigest()


def time_ours(server: LoopbackSshd, dst: Path, expected: str | None = None) -> float:
    spec = resolve_host(ALIAS, server.ssh_config)
    started = time.perf_counter()
    with RemoteHost(spec) as host:
        pull(host, str(server.disk), [NAME], dst,
             expected={NAME: expected} if expected else None)
    return time.perf_counter() - started


def time_raw(server: LoopbackSshd, dst: Path) -> float:
    dst.mkdir(parents=True, exist_ok=True)
    spec = resolve_host(ALIAS, server.ssh_config)
    started = time.perf_counter()
    with RemoteHost(spec) as host, open(dst / NAME, "wb") as out:
        host.stream(["cat", str(server.disk / NAME)], sink=out.write)
    return time.perf_counter() - started


def time_scp(server: LoopbackSshd, dst: Path) -> float:
    dst.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    subprocess.run(["scp", "-q", "-F", str(server.ssh_config), f"{ALIAS}:{server.disk / NAME}",
                    str(dst / NAME)], check=True)
    return time.perf_counter() - started


def measure(server: LoopbackSshd, scratch: Path, pairs: int, source: str
            ) -> dict[str, list[float]]:
    """Seconds per counted run of each variant, rotated order, round 0 dropped."""
    variants = {"verified": functools.partial(time_ours, expected=source), "ours": time_ours,
                "raw": time_raw, "scp": time_scp}
    names = list(variants)
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for round_index in range(pairs + 1):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            dst = scratch / name
            shutil.rmtree(dst, ignore_errors=True)
            os.sync()
            elapsed = variants[name](server, dst)
            if round_index:
                seconds[name].append(elapsed)
    return seconds


def spread(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def summarise(seconds: dict[str, list[float]], size: int) -> dict:
    mbps = {name: [size / 1e6 / s for s in runs] for name, runs in seconds.items()}
    ratios = {name: [scp / ours for ours, scp in zip(seconds[name], seconds["scp"], strict=True)]
              for name in ("verified", "ours", "raw")}
    return {"bytes": size, "seconds": seconds,
            "mb_per_s": {name: spread(values) for name, values in mbps.items()},
            "verified_vs_scp": statistics.median(ratios["verified"]),
            "ratio_verified_over_scp": spread(ratios["verified"]),
            "ratio_ours_over_scp": spread(ratios["ours"]),
            "ratio_raw_over_scp": spread(ratios["raw"]), "goal": GOAL,
            "verified_goal": VERIFIED_GOAL,
            "meets_goal": statistics.median(ratios["ours"]) >= GOAL,
            "meets_verified_goal": statistics.median(ratios["verified"]) >= VERIFIED_GOAL}


def print_table(summary: dict, pairs: int) -> None:
    print(f"pull of {summary['bytes'] / 2**20:.0f} MiB over loopback sshd, {pairs} counted rounds "
          "(min / median / max)")
    for name, (low, mid, high) in summary["mb_per_s"].items():
        print(f"  {name:<5} MB/s        {low:7.1f} / {mid:7.1f} / {high:7.1f}")
    low, mid, high = summary["ratio_raw_over_scp"]
    print(f"  raw/scp  throughput {low:7.2f} / {mid:7.2f} / {high:7.2f}")
    low, mid, high = summary["ratio_ours_over_scp"]
    verdict = "meets" if summary["meets_goal"] else "MISSES"
    print(f"  ours/scp throughput {low:7.2f} / {mid:7.2f} / {high:7.2f}   "
          f"goal >= {GOAL} ({verdict})")
    low, mid, high = summary["ratio_verified_over_scp"]
    verdict = "meets" if summary["meets_verified_goal"] else "MISSES"
    print(f"  verified/scp        {low:7.2f} / {mid:7.2f} / {high:7.2f}   "
          f"goal >= {VERIFIED_GOAL} ({verdict}); verified_vs_scp {summary['verified_vs_scp']:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=512, help="size of the file pulled")
    parser.add_argument("--pairs", type=int, default=5, help="counted rounds after 1 warm-up")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-transfer-") as scratch:
        server = start_sshd(Path(scratch) / "sshd")
        try:
            source = write_random(server.disk / NAME, args.mib)
            seconds = measure(server, Path(scratch), args.pairs, source)
            assert sha256_file(server.disk / NAME) == source
            for name in seconds:
                assert sha256_file(Path(scratch) / name / NAME) == source, name
        finally:
            server.stop()
    summary = summarise(seconds, args.mib * 2**20)
    print_table(summary, args.pairs)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
