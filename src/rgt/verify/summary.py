"""One line per comparison — the answer where people look: the end of `rgt verify`, of
`snakemake`/`make run`, and the top of the Markdown report. Reads the report's JSON form, so a
finished pipeline can print it without auditing again."""

from __future__ import annotations

import json
from pathlib import Path

from rgt.verify.metric_kinds import format_difference


def verdict_line(comparison: dict) -> str:
    """``exp: cand vs base, metric (split): diff [95% CI] (test, n, p) -> VERDICT — reason``."""
    c, metric = comparison, comparison["metric"]
    head = f"{c['exp_id']}: {c['candidate']} vs {c['baseline']}, {metric} ({c['split']})"
    if c.get("diff") is None:
        estimate = "no estimate"
    elif c.get("ci_low") is None:
        estimate = f"{format_difference(metric, c['diff'])}, no interval"
    else:
        estimate = (f"{format_difference(metric, c['diff'])}, 95% CI "
                    f"[{format_difference(metric, c['ci_low'])}, "
                    f"{format_difference(metric, c['ci_high'])}]")
    test = f"{c.get('test', 'none')}, n = {c['n_baseline']}/{c['n_candidate']}"
    return f"{head}: {estimate} ({test}) -> {c['verdict'].upper()}: {c.get('reason', '')}"


def report_lines(report_path: str | Path) -> list[str]:
    """Every comparison's line from a written ``report.json`` (empty when it is unreadable)."""
    try:
        report = json.loads(Path(report_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [verdict_line(c) for c in report.get("comparisons") or []]
