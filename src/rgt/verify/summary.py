"""One line per comparison — the answer where people look: the end of `rgt verify`, of
`snakemake`/`make run`, and the top of the Markdown report. Reads the report's JSON form, so a
finished pipeline can print it without auditing again."""

from __future__ import annotations

import json
from pathlib import Path

from rgt.verify.wording import difference_text, interval_text


def verdict_line(comparison: dict) -> str:
    """``exp: cand − base = diff metric (worse: lower is better), 95% CI [..] (test, n) ->
    VERDICT: reason``, the difference in the metric's own direction (``rgt.verify.wording``)."""
    c = comparison
    estimate = difference_text(c)
    if c.get("diff") is not None:
        estimate += f", {interval_text(c)}"
    test = f"{c.get('test', 'none')}, n = {c['n_baseline']}/{c['n_candidate']}"
    return (f"{c['exp_id']}: {estimate} ({test}) -> {c['verdict'].upper()}: "
            f"{c.get('reason', '')}")


def report_lines(report_path: str | Path) -> list[str]:
    """Every comparison's line from a written ``report.json`` (empty when it is unreadable)."""
    try:
        report = json.loads(Path(report_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [verdict_line(c) for c in report.get("comparisons") or []]
