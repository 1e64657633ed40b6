"""Benchmark: training throughput with checkpoint mirroring on vs off, over a loopback sshd.

    python bench/mirror.py [--rounds 3] [--every 2] [--epochs 3] [--json OUT]

Starts its own sshd (tests/sshd.py) and places a project on the server's "disk": the tiny
config widened (``channels: 96``, a ~3 MB checkpoint every 10 steps, about every 1-2 s). Each
round trains the one run from scratch twice as a plain local process, ``python -m rgt train``,
in rotated order:
  off  the training alone;
  on   the same training while a ``MirrorLoop`` (every ``--every`` s, ``mtbf_hours: 6``) in
       this process mirrors ``checkpoints/<run-id>/`` through ``rgt-loop`` to a local directory.
Throughput is the run's ``total_steps`` over the training process's wall seconds (start-up
included). The slowdown is paired within a round, ``1 - on/off``; the goal is <= 3 %. Each
mirror's ``MIRROR.json`` gives the bytes sent against the checkpoint's size. The CPU seconds
mirroring took are counted too, which other load on the machine hardly disturbs: the host's
half from the sshd listener's reaped sessions (``cutime + cstime``: surveys, ``cat``, hashing,
sshd), the controller's half from this process; as a share of the machine's CPUs during the
run (what a training that keeps every CPU busy would lose), and of one host core at the policy
interval (``rgt.mirror.policy``). Round 0 is a warm-up and not counted.
On loopback the host, the controller and ssh share the same CPUs, so the slowdown is an upper
bound of a real setup, where the controller's half (ssh client, local sha256, fsync) runs on
another machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from rgt.mirror.loop import MirrorLoop, MirrorSettings  # noqa: E402
from rgt.mirror.policy import mirror_interval  # noqa: E402
from rgt.mirror.record import MirrorRecord, read_mirror  # noqa: E402
from rgt.mirror.sync import MirrorTarget  # noqa: E402
from rgt.remote.ssh import RemoteHost, resolve_host  # noqa: E402
from sshd import ALIAS, LoopbackSshd, start_sshd  # noqa: E402

GOAL_PCT = 3.0
MTBF_HOURS = 6.0
TRAIN_TIMEOUT_S = 900
VARIANTS = ("off", "on")


def bench_config(epochs: int) -> dict:
    """The tiny config, one run, widened so a checkpoint is a few MB and comes every ~1-2 s."""
    config = yaml.safe_load((ROOT / "tests" / "data" / "tiny.yaml").read_text())
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    config["defaults"]["model"]["channels"] = 96
    config["defaults"]["train"].update(epochs=epochs, batch_size=32, threads=2)
    config["defaults"]["checkpoint"].update(every_steps=10, heartbeat_seconds=0.5)
    return config


def make_project(disk: Path, epochs: int) -> tuple[Path, str]:
    """A project on the host's disk holding the bench config; its one run id."""
    project = disk / "project"
    (project / "config").mkdir(parents=True)
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(bench_config(epochs)))
    plan = subprocess.run([sys.executable, "-m", "rgt", "plan", "--json"], cwd=project,
                          capture_output=True, text=True, check=True, timeout=120)
    return project, json.loads(plan.stdout)[0]["run_id"]


def new_loop(server: LoopbackSshd, every: float, mirrored: list[MirrorRecord],
             target: MirrorTarget) -> MirrorLoop:
    """A mirror loop on ``rgt-loop`` that keeps each new record it writes in ``mirrored``."""
    spec = resolve_host(ALIAS, server.ssh_config)

    def report(line: str) -> None:
        record = read_mirror(target.local_dir) if line.startswith("rgt: mirrored ") else None
        if record is not None:
            mirrored.append(record)
        else:
            print(f"    {line}", flush=True)

    return MirrorLoop(lambda: RemoteHost(spec), sys.executable,
                      MirrorSettings(every_seconds=every, mtbf_hours=MTBF_HOURS), report)


def train_once(server: LoopbackSshd, project: Path, run_id: str, local: Path,
               every: float | None) -> dict:
    """Train the run from scratch, mirroring every ``every`` s (None: no mirror); figures."""
    for path in (project / "runs", project / "checkpoints", local):
        shutil.rmtree(path, ignore_errors=True)
    target = MirrorTarget(run_id, str(project / "checkpoints" / run_id), local / run_id)
    mirrored: list[MirrorRecord] = []
    loop = new_loop(server, every, mirrored, target) if every else None
    load = os.getloadavg()[0]
    before = _children_cpu(), _self_cpu(), _host_cpu(server)
    try:
        seconds = timed_training(project, run_id, local.parent / "train.out",
                                 partial(loop.watch, target) if loop else None)
    finally:
        if loop is not None:
            loop.stop()
            _await_sessions_reaped(server)
    steps = json.loads((Path(target.remote_dir) / "status.json").read_text())["total_steps"]
    return {"seconds": seconds, "steps": steps, "steps_per_s": steps / seconds,
            "train_cpu_s": _children_cpu() - before[0],
            "controller_cpu_s": _self_cpu() - before[1],
            "host_mirror_cpu_s": _host_cpu(server) - before[2], "load_1min": load,
            "mirrors": [_mirror_figures(record) for record in mirrored]}


def timed_training(project: Path, run_id: str, log: Path,
                   on_start: Callable[[], None] | None) -> float:
    """Wall seconds of one ``rgt train`` process; ``on_start()`` runs once it is started."""
    with open(log, "wb") as out:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "rgt", "train", "--config",
                                    "config/config.yaml", "--run-id", run_id], cwd=project,
                                   stdout=out, stderr=subprocess.STDOUT)
        try:
            if on_start is not None:
                on_start()
            code = process.wait(timeout=TRAIN_TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"rgt train exited {code}:\n{log.read_text()[-2000:]}")
    return seconds


def _children_cpu() -> float:
    """CPU seconds of this process's reaped children: the training process (and ``rgt plan``)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _self_cpu() -> float:
    """CPU seconds of this process: the controller's half of mirroring (paramiko, sha256)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _host_cpu(server: LoopbackSshd) -> float:
    """CPU seconds of the sshd sessions that ended: the host's half of mirroring (the
    listener reaps each connection, which reaped the surveys, ``cat`` and hashing it ran)."""
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


def _await_sessions_reaped(server: LoopbackSshd, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while server.session_pids() and time.monotonic() < deadline:
        time.sleep(0.05)


def _mirror_figures(record: MirrorRecord) -> dict:
    return {"step": record.step, "bytes": record.bytes, "bytes_sent": record.bytes_sent,
            "transfer_seconds": record.transfer_seconds}


def measure(server: LoopbackSshd, scratch: Path, rounds: int, every: float,
            epochs: int) -> list[dict]:
    """Per counted round, the figures of each variant (rotated order, round 0 dropped)."""
    project, run_id = make_project(server.disk, epochs)
    counted = []
    for round_index in range(rounds + 1):
        shift = round_index % len(VARIANTS)
        figures = {}
        for name in VARIANTS[shift:] + VARIANTS[:shift]:
            figures[name] = train_once(server, project, run_id, scratch / "mirror",
                                       every if name == "on" else None)
            print(f"  round {round_index}{' (warm-up)' if not round_index else ''} {name:<3} "
                  f"{figures[name]['steps_per_s']:6.2f} steps/s "
                  f"({figures[name]['seconds']:.1f} s, {len(figures[name]['mirrors'])} mirrors)",
                  flush=True)
        if round_index:
            counted.append(figures)
    return counted


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summarise(rounds: list[dict], every: float) -> dict:
    """Throughput, paired slowdown, what each mirror sent and the CPU mirroring took."""
    on = [r["on"] for r in rounds]
    slowdown = [100.0 * (1.0 - r["on"]["steps_per_s"] / r["off"]["steps_per_s"]) for r in rounds]
    mirrors = [m for figures in on for m in figures["mirrors"]]
    summary = {
        "mirror_every_s": every, "steps": rounds[0]["off"]["steps"], "rounds": rounds,
        "steps_per_s": {name: spread([r[name]["steps_per_s"] for r in rounds])
                        for name in VARIANTS},
        "slowdown_pct": spread(slowdown), "goal_pct": GOAL_PCT,
        "meets_goal": statistics.median(slowdown) <= GOAL_PCT,
        "mirrors_per_run": spread([len(figures["mirrors"]) for figures in on]),
        "host_cpu_pct_of_machine": spread([_share(f, f["host_mirror_cpu_s"]) for f in on]),
        "all_mirror_cpu_pct_of_machine": spread(
            [_share(f, f["host_mirror_cpu_s"] + f["controller_cpu_s"]) for f in on]),
        "host_cpu_s_per_mirror": spread([f["host_mirror_cpu_s"] / max(1, len(f["mirrors"]))
                                         for f in on]),
        "load_1min": spread([r[name]["load_1min"] for r in rounds for name in VARIANTS]),
    }
    summary["cpu_share_meets_goal"] = (
        summary["all_mirror_cpu_pct_of_machine"]["median"] <= GOAL_PCT)
    return {**summary, **_per_mirror(mirrors, summary["host_cpu_s_per_mirror"]["median"])}


def _share(figures: dict, cpu_seconds: float) -> float:
    """``cpu_seconds`` as % of what the machine's CPUs could do during the run: the slowdown of
    a training that keeps every CPU busy, whatever else the machine ran meanwhile."""
    return 100.0 * cpu_seconds / (figures["seconds"] * (os.cpu_count() or 1))


def _per_mirror(mirrors: list[dict], host_cpu_s: float) -> dict:
    """Bytes sent against checkpoint bytes, and the host's CPU share at the policy interval."""
    if not mirrors:
        return {}
    size = statistics.median([m["bytes"] for m in mirrors])
    link = statistics.median([m["bytes_sent"] / m["transfer_seconds"] for m in mirrors
                              if m["transfer_seconds"] > 0])
    policy = mirror_interval(int(size), MTBF_HOURS, link)
    ratios = [m["bytes_sent"] / m["bytes"] for m in mirrors]
    return {"checkpoint_bytes": spread([m["bytes"] for m in mirrors]),
            "bytes_sent_over_checkpoint": {"mean": statistics.fmean(ratios), **spread(ratios)},
            "link_bytes_per_s": link, "policy_interval_s": policy.seconds,
            "host_cpu_pct_of_one_core_at_policy": 100.0 * host_cpu_s / policy.seconds}


def _line(label: str, s: dict, fmt: str, tail: str = "") -> None:
    print(f"  {label:<40} {s['min']:{fmt}} / {s['median']:{fmt}} / {s['max']:{fmt}}{tail}")


def print_report(summary: dict, counted: int) -> None:
    print(f"\nrgt train of {summary['steps']} steps on the loopback host, mirror every "
          f"{summary['mirror_every_s']:g} s, {counted} counted rounds (min / median / max)")
    for name in VARIANTS:
        _line(f"{name} steps/s", summary["steps_per_s"][name], "7.2f")
    verdict = "meets" if summary["meets_goal"] else "MISSES"
    _line("slowdown on vs off, paired, %", summary["slowdown_pct"], "7.1f",
          f"   goal <= {GOAL_PCT:g} % ({verdict})")
    _line("mirrors per run", summary["mirrors_per_run"], "7.0f")
    _line("mirror CPU, host side, % of machine", summary["host_cpu_pct_of_machine"], "7.1f")
    _line("  + controller side, % of machine", summary["all_mirror_cpu_pct_of_machine"], "7.1f",
          f"   (= CPU-bound slowdown; goal <= {GOAL_PCT:g} % "
          f"{'meets' if summary['cpu_share_meets_goal'] else 'MISSES'})")
    _line("host CPU s per mirror (idle polls incl.)", summary["host_cpu_s_per_mirror"], "7.3f")
    if "checkpoint_bytes" in summary:
        _line("checkpoint bytes", summary["checkpoint_bytes"], "9,.0f")
        r = summary["bytes_sent_over_checkpoint"]
        print(f"  bytes sent / checkpoint bytes per mirror: mean {r['mean']:.3f} "
              f"(min {r['min']:.3f}, max {r['max']:.3f})")
        print(f"  at the policy interval for this checkpoint and link "
              f"({summary['link_bytes_per_s'] / 1e6:.0f} MB/s, MTBF {MTBF_HOURS:g} h): every "
              f"{summary['policy_interval_s']:.0f} s, host CPU "
              f"{summary['host_cpu_pct_of_one_core_at_policy']:.2f} % of one core")
    _line("1-min load average at round start", summary["load_1min"], "7.1f",
          f"   on {os.cpu_count()} CPUs")
    print("note: on loopback the host, the controller and ssh share the same CPUs, so this "
          "slowdown is an upper bound of a real setup with the controller on another machine.")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="counted rounds after 1 warm-up")
    parser.add_argument("--every", type=float, default=2.0, help="mirror interval, seconds")
    parser.add_argument("--epochs", type=int, default=3, help="epochs of the run (40 steps each)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.rounds < 1 or args.every <= 0 or args.epochs < 1:
        parser.error("--rounds and --epochs must be >= 1 and --every > 0")
    return args


def main() -> int:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="rgt-bench-mirror-") as scratch:
        server = start_sshd(Path(scratch) / "sshd")
        try:
            rounds = measure(server, Path(scratch), args.rounds, args.every, args.epochs)
        finally:
            server.release()
    summary = summarise(rounds, args.every)
    print_report(summary, len(rounds))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
