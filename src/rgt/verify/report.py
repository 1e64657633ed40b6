"""Write the audit: ``report.json`` (full precision), ``report.md`` and one plot per comparison."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from rgt.base.files import write_bytes, write_json, write_text
from rgt.verify.audit import Audit
from rgt.verify.compare import VERDICTS, Comparison
from rgt.verify.controls import CHANCE_SLACK, SHUFFLE_ALPHA, SHUFFLES
from rgt.verify.findings import SEVERITY_RANK, Finding
from rgt.verify.leakage import NEAR_CORRELATION
from rgt.verify.plots import plot_filename, render_plot
from rgt.verify.settings import DEFAULT_MIN_EFFECT, MULTIPLICITY_NAMES
from rgt.verify.stats import ALPHA, POWER
from rgt.verify.summary import verdict_line
from rgt.verify.wording import comparison_change, reading

PLOTS_DIR = "plots"
TABLE_HEADER = ("| experiment | comparison | metric (split) | n base/cand "
                "| baseline mean ± std | candidate mean ± std | candidate − baseline | 95% CI "
                "| test | p (adjusted) | power at min effect | verdict | plot |")


def write_report(audit: Audit, json_path: str | Path, md_path: str | Path) -> None:
    """Write the JSON report, the plots under ``<md dir>/plots/`` and the Markdown report."""
    write_json(json_path, audit.to_report())
    md_path = Path(md_path)
    links = {}
    for comparison in audit.comparisons:
        name = plot_filename(comparison)
        write_bytes(md_path.parent / PLOTS_DIR / name, render_plot(comparison))
        links[comparison.claim_id] = f"{PLOTS_DIR}/{name}"
    write_text(md_path, render_markdown(audit, links))


def render_markdown(audit: Audit, plot_links: dict[str, str]) -> str:
    """The readable report: summary, verdicts, comparison table, findings and method notes."""
    lines = ["# rgt verify report", "", _summary_line(audit), "", "## Verdicts", ""]
    lines += [f"- {verdict_line(c.to_dict())}" for c in audit.comparisons] or ["None."]
    lines += ["", "## Comparisons", ""]
    lines += _comparison_table(audit.comparisons, plot_links)
    lines += ["", "## Findings", "", *_findings_section(audit.findings)]
    lines += ["", "## Method", "", *_method_notes(audit)]
    return "\n".join(lines) + "\n"


def _summary_line(audit: Audit) -> str:
    verdicts = Counter(c.verdict for c in audit.comparisons)
    counts = ", ".join(f"{verdict}: {verdicts[verdict]}" for verdict in VERDICTS
                       if verdicts[verdict])
    severities = Counter(f.severity for f in audit.findings)
    found = ", ".join(f"{severities[s]} {s}" for s in SEVERITY_RANK if severities[s])
    return (f"Audited {len(audit.runset.runs)} finished runs "
            f"(skipped run directories: {len(audit.runset.skipped)}). "
            f"{len(audit.comparisons)} comparisons ({counts or 'none'}); "
            f"findings: {found or 'none'}. Findings never block delivery.")


def _comparison_table(comparisons: tuple[Comparison, ...], links: dict[str, str]) -> list[str]:
    if not comparisons:
        return ["No comparisons (no experiment has both a baseline and a candidate)."]
    rows = [TABLE_HEADER, "|" + "---|" * TABLE_HEADER.count(" | ") + "---|"]
    for c in comparisons:
        cells = (c.exp_id, f"{c.candidate} vs {c.baseline}", f"{c.metric} ({c.split})",
                 f"{c.base.n}/{c.cand.n}", _mean_std(c.base.mean, c.base.std),
                 _mean_std(c.cand.mean, c.cand.std), *_change_cells(c), _test_cell(c),
                 _p_cell(c), _power_cell(c),
                 f"**{c.verdict}**", f"[png]({links[c.claim_id]})" if c.claim_id in links else "")
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return rows


def _change_cells(c: Comparison) -> tuple[str, str]:
    """The change (candidate − baseline, with which way it goes) and its 95% interval."""
    value, low, high = comparison_change(c.to_dict())
    if value is None:
        return "–", "–"
    return f"{_number(value, signed=True)} ({reading(value, c.direction)})", _interval(low, high)


def _test_cell(c: Comparison) -> str:
    if c.test is None:
        return "none"
    return f"{c.test.method}, df {c.test.df:.3g}"


def _p_cell(c: Comparison) -> str:
    if c.test is None:
        return "–"
    if c.multiplicity == "none" or c.family <= 1:
        return f"{c.test.p_value:.3g}"
    return f"{c.test.p_value:.3g} ({c.p_adjusted:.3g}, {c.multiplicity}, {c.family} tests)"


def _power_cell(c: Comparison) -> str:
    target = "–" if c.min_effect is None else f"{c.min_effect:.4g}"
    if c.min_effect is not None and c.min_effect_rule != f"{c.min_effect:g}":
        target += f" ({c.min_effect_rule})"
    power = "–" if c.power is None else f"{c.power:.0%}"
    needed = "" if c.seeds_needed is None else f"; {c.seeds_needed} seeds for {POWER:.0%}"
    return f"{power} at {target}{needed}"


def _findings_section(findings: tuple[Finding, ...]) -> list[str]:
    if not findings:
        return ["No findings."]
    lines = []
    for finding in findings:
        claims = ", ".join(f"`{claim}`" for claim in finding.to_dict()["claims"]) or "none"
        lines.append(f"- **{finding.severity}** `{finding.check}` — `{finding.subject}`: "
                     f"{finding.detail}. Claims: {claims}")
    return lines


def _method_notes(audit: Audit) -> list[str]:
    settings = audit.settings
    declared = ", ".join(f"{metric} {rule}" for metric, rule in sorted(
        settings.min_effects.items())) or "none declared"
    paired = ("a paired t over the seeds both variants ran (seeds paired by design), else "
              "Welch's t; " if settings.pairing == "paired"
              else "Welch's t (unequal variances, seeds not paired); ")
    test = ("- The difference is candidate − baseline in the metric's unit, read against its "
            "direction (better/worse); report.json's `diff` flips it for lower-is-better "
            "metrics so that + = better. Test and 95% interval: " + paired +
            "chosen over the bootstrap because they hold their level at 2–10 seeds "
            "(docs/verify-statistics.md).")
    family = (f"- Multiple comparisons: the comparisons of one experiment form a family, "
              f"adjusted by {MULTIPLICITY_NAMES[settings.multiplicity]}; 'effect' needs an "
              f"adjusted p ≤ {ALPHA}. The 95% interval is per comparison.")
    power = (f"- Power: exact two-sided power of the t test (noncentral t) at the metric's min "
             f"effect ({declared}; otherwise {DEFAULT_MIN_EFFECT}); MDE = the effect detected "
             f"with {POWER:.0%} power at these seed counts.")
    verdicts = ("- Verdict, first match wins: suspect-bug (re-derivation mismatch, collapse, "
                "a failed label-shuffled control, a non-finite value or a stale checkpoint, for "
                "this metric, in a run on either side) → confounded (configs differ beyond the "
                "declared variable) → underpowered (no test possible) → effect (adjusted p ≤ "
                f"{ALPHA}) → underpowered (power < {POWER:.0%} at the min effect; the seeds "
                "needed are stated) → noise.")
    leakage = (f"- Leakage: the data and split are rebuilt and checked against the hashes pinned "
               f"in run.json; exact duplicates across splits by sha256 of the input bytes, near "
               f"duplicates by input correlation ≥ {NEAR_CORRELATION}.")
    control = (f"- Collapse and label-shuffled control, per metric kind: top-1 metrics from the "
               f"argmax predictions, loss/perplexity from the probability of the true label. "
               f"Control: {SHUFFLES} label permutations (p ≤ {SHUFFLE_ALPHA} required); a top-1 "
               f"control above 1/C + {CHANCE_SLACK} is disclosed. Probe findings come from the "
               f"smoke records.")
    return ["- Headline split: test. Per variant: mean, std (ddof=1), n over seeds.",
            test, family, power, verdicts, leakage, control,
            "- Plots: seed values as dots, mean ± 95% t interval per variant, and the "
            "difference with its 95% interval against 0."]


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.4g}" if signed else f"{value:.4g}"


def _mean_std(mean: float | None, std: float | None) -> str:
    return _number(mean) if std is None else f"{_number(mean)} ± {_number(std)}"


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"[{low:+.4g}, {high:+.4g}]"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
