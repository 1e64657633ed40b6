"""Phase-0 audit of a rented host: reach it, read its disks, memory, GPUs and interpreter, and
judge whether the planned checkpoints fit — before anything is launched.

Talking (``query_host``) is separate from understanding (``rgt.platforms.host_audit`` parsers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import read_json
from rgt.config import Config
from rgt.plan.paths import smoke_record
from rgt.plan.runplan import RunSpec, plan_runs
from rgt.platforms.gotchas import host_gotchas, host_query, split_answers
from rgt.platforms.host_audit import (
    NVIDIA_SMI_QUERY,
    PROBE_SCRIPT,
    AuditError,
    BudgetPlan,
    disk_budget,
    filesystem_of,
    inode_cap_for,
    parse_df,
    parse_memory_limit,
    parse_nvidia_smi,
    parse_probe,
)
from rgt.remote.ssh import RemoteHost

MEMORY_FILES = "/sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes"


def query_host(host: RemoteHost, root: str, python: str | None) -> dict[str, str]:
    """Raw answers of the host (each a short command; nothing is parsed here). ``python=None``
    skips the interpreter probe (its torch import takes seconds; ``rgt doctor --host``)."""
    started = time.monotonic()
    host.run(["mkdir", "-p", root], timeout=60)
    answers = {"latency_s": f"{time.monotonic() - started:.3f}"}
    answers["df"] = host.run(["df", "-PB1", root], timeout=60).stdout
    answers["df_inodes"] = host.run(["df", "-iP", root], timeout=60).stdout
    answers["memory"] = host.run(f"cat {MEMORY_FILES} 2>/dev/null | head -n 1", check=False,
                                 timeout=60).stdout
    answers["nvidia_smi"] = host.run(f"command -v nvidia-smi >/dev/null && {NVIDIA_SMI_QUERY}",
                                     check=False, timeout=60).stdout
    if python is not None:
        probe = host.run([python, "-c", PROBE_SCRIPT], check=False, timeout=120)
        answers["probe"] = probe.stdout
        if not probe.ok:
            answers["probe_failure"] = interpreter_failure(python, probe.exit_status,
                                                           probe.stderr)
    # The platform gotchas (rgt.platforms.gotchas): one round trip for all of them.
    answers.update(split_answers(host.run(host_query(), check=False, timeout=60).stdout))
    return answers


def interpreter_failure(python: str, exit_code: int, stderr: str) -> str:
    """Why the interpreter did not run, in words: missing, not executable, or its error."""
    tail = stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
    if exit_code == 127:
        return f"{python} does not exist on the host ({tail[0]})"
    if exit_code == 126:
        return f"{python} exists on the host but is not executable ({tail[0]})"
    return f"{python} exited with status {exit_code}: {tail[0]}"


def checkpoint_bytes(facts: dict) -> int:
    """One checkpoint of a variant, from the state its smoke gate measured: the training state
    (weights, buffers and optimizer moments after real optimizer steps), the selected weights
    kept beside it, and a little for the rest (RNG, history, selection)."""
    return int(facts["state_bytes"]) + int(facts["parameter_bytes"]) + (1 << 20)


def checkpoint_plan(facts: list[dict], runs: int, keep: int) -> BudgetPlan:
    """What ``runs`` planned runs will keep on the host's disk, each sized like the largest
    variant measured (a variant not yet through its smoke gate is sized like that one)."""
    if not facts:
        raise AuditError("no variant of the plan has a smoke record to size its checkpoints",
                         "run the smoke gate first (snakemake runs it before any training; "
                         "by hand: rgt smoke --run-id RUN_ID --out smoke/SMOKE_ID.json)")
    return BudgetPlan(checkpoint_bytes=max(checkpoint_bytes(item) for item in facts), keep=keep,
                      runs=runs, scratch_bytes=1 << 30, files_per_run=2 * keep + 12)


def recorded_state_facts(project: Path, plan: list[RunSpec]) -> dict[str, dict | None]:
    """smoke id -> the model state facts its smoke record holds (None: no record yet)."""
    facts: dict[str, dict | None] = {}
    for spec in plan:
        if spec.smoke_id not in facts:
            record = read_json(project / smoke_record(spec.smoke_id)) or {}
            facts[spec.smoke_id] = record.get("state") if record.get("ok") else None
    return facts


def planned_checkpoints(config: Config, project: Path,
                        measure: Callable[[RunSpec], dict] | None = None) -> BudgetPlan:
    """The budget of the config's plan from the smoke gate's records in ``project``; ``measure``
    (``rgt up`` by hand, never the controller) sizes the variants that have none."""
    plan = plan_runs(config)
    facts = recorded_state_facts(project, plan)
    if measure is not None:
        first = {spec.smoke_id: spec for spec in reversed(plan)}
        facts = {key: value or measure(first[key]) for key, value in facts.items()}
    known = [value for value in facts.values() if value]
    return checkpoint_plan(known, len(plan), config.defaults.checkpoint.keep)


def audit(answers: dict[str, str], root: str, plan: BudgetPlan | str,
          platform: dict | None = None) -> dict:
    """The audit record: parsed facts, the budget verdict and the platform gotchas; the
    platform's inode cap counts where its facts say it applies (``inode_cap_for``). ``plan``
    is why the checkpoints could not be sized when it is a string (``rgt up`` before the
    smoke gate ran): the budget then says so and judges nothing."""
    disk = filesystem_of(root, parse_df(answers["df"]))
    inodes = filesystem_of(root, parse_df(answers["df_inodes"]))
    memory = answers["memory"].strip()
    return {
        "schema": "rgt/audit/v1", "root": root, "latency_s": float(answers["latency_s"]),
        "disk": asdict(disk), "inodes": asdict(inodes),
        "memory_limit_bytes": parse_memory_limit(memory) if memory else None,
        "gpus": [asdict(gpu) for gpu in parse_nvidia_smi(answers["nvidia_smi"])],
        "python": asdict(parse_probe(answers["probe"], answers.get("probe_failure"))),
        "budget": budget_record(plan, root, disk, inodes, platform),
        "gotchas": host_gotchas(answers, root),
    }


def budget_record(plan: BudgetPlan | str, root: str, disk, inodes, platform: dict | None
                  ) -> dict:
    """The audit's budget: the verdict on ``plan``, or, unsized, why (``fits`` None)."""
    if isinstance(plan, str):
        return {"fits": None, "mount": disk.mount, "plan": None, "inode_cap": None,
                "summary": f"checkpoints not sized: {plan}\n(the executor sizes them from "
                           "the smoke gate's records before it launches anything)"}
    cap = inode_cap_for(platform, root, disk.mount)
    verdict = disk_budget(plan, disk, inodes, cap)
    return {**asdict(verdict), "plan": asdict(plan), "summary": verdict.summary(),
            "inode_cap": asdict(cap) if cap else None}


def audit_path(project: Path, alias: str) -> Path:
    """Where the latest audit of a host is kept in the project."""
    return project / ".rgt" / "hosts" / alias / "audit.json"


def refuse_unless_fits(record: dict) -> None:
    """Raise ``AuditError`` naming the numbers when the audited plan does not fit."""
    budget = record["budget"]
    if budget["fits"] is False:
        raise AuditError(f"the planned runs do not fit on {budget['mount']}:\n"
                         f"{budget['summary']}",
                         "free space on the host, pick a bigger disk, or plan fewer runs")


def audit_host(host: RemoteHost, root: str, python: str, plan: BudgetPlan | str,
               platform: dict | None = None) -> dict:
    """Query ``host`` and judge the planned checkpoints against its disk with ``platform``'s
    facts (no refusal here)."""
    record = audit(query_host(host, root, python), root, plan, platform)
    return {**record, "host": host.spec.alias, "audited_at": utc_now()}
