"""Benchmark: bytes a code change re-sends to a rented host, with the data cache vs without.

    python bench/data_cache.py [--mib 64] [--json OUT]

Starts its own sshd (tests/sshd.py) and a project whose training job declares ``--mib`` MiB of
data, then deploys it twice with ``RemoteRunner.deploy``, editing the job's script in between (a
new code tree, the same data). Baseline, measured in the same run on a fresh root: the same two
deploys with the data pushed inside each code tree, as before the cache (``transfer.push`` of
code and data into ``code/<tree>``). Reported: bytes (code, the cache's with the run config;
data) and seconds of each second deploy, and their ratio (baseline over cache); the cache's
second deploy must send no byte of data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from rgt.config import load_config  # noqa: E402
from rgt.remote.deploy import (  # noqa: E402
    file_digests,
    job_data,
    job_sources,
    project_files,
    tree_hash,
)
from rgt.remote.jobs import RemoteLayout  # noqa: E402
from rgt.remote.runner import RemoteRunner  # noqa: E402
from rgt.remote.ssh import RemoteHost, resolve_host  # noqa: E402
from rgt.remote.transfer import push  # noqa: E402
from sshd import ALIAS, start_sshd  # noqa: E402

CONFIG = {"defaults": {"job": {"command": "python train.py", "sources": ["train.py"],
                               "data": ["data"], "metrics": {"loss": {"direction": "lower"}}},
                       "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "heartbeat_seconds": 5}},
          "experiments": {"e": {"baseline": "a", "seeds": [1], "variants": {"a": {}}}}}


def make_project(root: Path, mib: int) -> Path:
    """A job project: ``train.py``, ``mib`` MiB of data in 4 files, its config."""
    (root / "data").mkdir(parents=True)
    (root / "config").mkdir()
    (root / "train.py").write_text("print(1)\n")
    for index in range(4):
        (root / "data" / f"shard-{index}.bin").write_bytes(os.urandom(mib * 2**20 // 4))
    (root / "config" / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    return root


def with_cache(host: RemoteHost, root: str, project: Path) -> dict:
    """Two deploys through the data cache: the second one's bytes (code, data) and seconds."""
    runner = RemoteRunner(host, RemoteLayout(root), sys.executable)
    config = load_config(project / "config" / "config.yaml")
    runner.deploy(config, project)
    (project / "train.py").write_text("print(2)\n")
    started = time.monotonic()
    runner.deploy(config, project)
    seconds = time.monotonic() - started
    (project / "train.py").write_text("print(1)\n")
    return {"code_bytes": runner.sent["code"].bytes_sent,
            "data_bytes": runner.sent["data"].bytes_sent, "seconds": seconds}


def without_cache(host: RemoteHost, root: str, project: Path) -> dict:
    """The same two deploys with the data inside each code tree (the baseline)."""
    config = load_config(project / "config" / "config.yaml")
    stats = []
    for script in ("print(1)\n", "print(2)\n"):
        (project / "train.py").write_text(script)
        code = {**project_files(), **job_sources(config, project)}
        data = job_data(config, project)
        tree = tree_hash(file_digests({**code, **data}))
        started = time.monotonic()
        sent = push(host, {**code, **data}, f"{root}/code/{tree}")
        stats.append((sent, time.monotonic() - started))
    sent, seconds = stats[-1]
    data_bytes = sum(path.stat().st_size for path in job_data(config, project).values())
    return {"code_bytes": sent.bytes_sent - data_bytes, "data_bytes": data_bytes,
            "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64, help="declared data, in MiB")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-data-cache-") as scratch:
        server = start_sshd(Path(scratch) / "sshd")
        project = make_project(Path(scratch) / "project", args.mib)
        try:
            with RemoteHost(resolve_host(ALIAS, server.ssh_config)) as host:
                cache = with_cache(host, str(server.disk / "cache"), project)
                baseline = without_cache(host, str(server.disk / "baseline"), project)
        finally:
            server.stop()
    bytes_ratio = (baseline["code_bytes"] + baseline["data_bytes"]) / \
        (cache["code_bytes"] + cache["data_bytes"])
    summary = {"mib": args.mib, "second_deploy": {"cache": cache, "baseline": baseline},
               "bytes_baseline_over_cache": bytes_ratio,
               "seconds_baseline_over_cache": baseline["seconds"] / cache["seconds"],
               "goal": "no data byte re-sent", "met": cache["data_bytes"] == 0}
    print(f"second deploy after a code edit, {args.mib} MiB of declared data:")
    for name, row in (("data cache", cache), ("baseline (data in the tree)", baseline)):
        print(f"  {name:28} code {row['code_bytes']:>12,} B  data {row['data_bytes']:>12,} B"
              f"  {row['seconds']:6.2f} s")
    print(f"  bytes baseline/cache {bytes_ratio:.1f}x, seconds baseline/cache "
          f"{summary['seconds_baseline_over_cache']:.1f}x; data re-sent: "
          f"{'none (goal met)' if summary['met'] else 'SOME (goal missed)'}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
