"""The files ``rgt init`` writes in a project of the user's own — a top-level ``Snakefile`` that
brings in rgt's workflow, ``config/config.yaml`` with the script's ``job:``, the claims file and
the ``.gitignore`` entries — and ``place``, which never replaces a file that is there."""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

from rgt.base.files import write_text

WROTE, UNCHANGED, LEFT = "wrote", "unchanged", "left alone"

SNAKEFILE = '''\
"""This project's workflow: rgt's RUN -> VERIFY -> DELIVER for the training job of
config/config.yaml (written by `rgt init`; yours to edit).

    snakemake --profile local      # train, verify and deliver on this machine
    snakemake --profile ssh ...    # the training on a rented host (rgt's README, "Training on
                                   # a rented GPU")
"""

import rgt


# rgt's rules (smoke, train, verify, deliver, evidence) from the installed package: the same
# workflow as rgt's own repository, at the version pip installed.
include: rgt.workflow()


# What a bare `snakemake` builds: rgt's whole delivery (the default target of an included
# workflow does not carry over, so this project names it).
rule default:
    input:
        rules.all.input,
    default_target: True


# Rules of your own go here, or in rules/*.smk (include: "rules/mine.smk").
'''

CLAIMS = '''\
# Your words for the delivered numbers; the numbers themselves always come from the results
# (evidence/EVIDENCE.json lists every claim's id after a run).
#   claims.<claim id>.statement  a sentence; {{value:.3f}}, {{n}}, {{variant}}... are filled in
#   claims.<claim id>.aliases    how your documents name the number (`rgt reconcile` finds them)
#   tolerances.<metric>          how far a reproduction may land from the committed evidence
tolerances:
{tolerances}
claims: {{}}
'''

# What the pipeline writes that is not the user's to commit (runs go to DVC: `dvc add runs`).
GITIGNORE_HEADER = "# rgt: what the pipeline writes and keeps per machine (rgt init)"
GITIGNORE = ("/runs/", "/checkpoints/", "/smoke/", "/logs/", "/.rgt/", "/.snakemake/",
             "/export/", "/quarantine/", "/verify/*", "!/verify/report.json", "/dvc_plots/",
             "/evidence/report.md", "/evidence/report.html", "/config/hosts.yaml",
             "__pycache__/")

CONFIG_HEADER = '''\
# {project}: WHAT to compute (the Snakemake profiles say HOW and WHERE). Written by
# `rgt init --script {script}` from what {script} says; yours to edit. Validated when the
# workflow starts: an unknown key or a wrong value stops everything with the key and the fix.
'''
CHECKPOINT = {"keep": 2, "mtbf_hours": 6.0, "heartbeat_seconds": 5}


def place(path: Path, text: str) -> str:
    """Write ``text`` to ``path`` unless a file is there: ``wrote``, ``unchanged`` (the same
    text) or ``left alone`` (the user's, never replaced)."""
    if path.exists():
        return UNCHANGED if path.is_file() and path.read_text() == text else LEFT
    write_text(path, text)
    return WROTE


def add_gitignore(path: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """Append the entries the file lacks (never removing or reordering a line); the ones
    added."""
    lines = path.read_text().splitlines() if path.is_file() else []
    missing = [entry for entry in (*GITIGNORE, *extra) if entry not in lines]
    if missing:
        kept = "\n".join(lines) + "\n\n" if lines else ""
        write_text(path, kept + "\n".join([GITIGNORE_HEADER, *missing]) + "\n")
    return missing


def claims_text(metrics: dict) -> str:
    """The claims file: a tolerance per metric, no statements yet."""
    return CLAIMS.format(tolerances="\n".join(f"  {name}: 1.0e-6" for name in metrics))


def config_text(project: str, script: str, job: dict, experiment: dict) -> str:
    """``config/config.yaml``: the job, the checkpoint settings and one experiment, commented."""
    name, spec = next(iter(experiment.items()))
    return "\n".join([
        CONFIG_HEADER.format(project=project, script=script).rstrip(),
        "", "defaults:", "  job:", *_job_lines(job),
        "  # Checkpoints kept; the mean time between failures the checkpoint cadence plans for",
        "  # (every sqrt(2 x MTBF x save cost)); how often the heartbeat `rgt watch` reads beats.",
        f"  checkpoint: {_flow(CHECKPOINT)}", "",
        "# An experiment: a baseline and variants that each change one thing, over seeds;",
        "# `rgt verify` says whether a difference is an effect, noise, or needs more seeds.",
        "experiments:", f"  {name}:", *_indented({k: v for k, v in spec.items()
                                                   if k != "variants"}, 4),
        "    variants:", *_indented(spec["variants"], 6), ""])


def _job_lines(job: dict) -> list[str]:
    lines = ["    # Run from the project root: {params.NAME}, {seed} and {out_dir} (a folder of",
             "    # each run's own, for the script's own files) are filled in per run.",
             "    command: >-",
             *textwrap.wrap(job["command"], 88, initial_indent=" " * 6,
                            subsequent_indent=" " * 6, break_on_hyphens=False,
                            break_long_words=False),
             "    # The code that decides the result: hashed into each run's id, sent to a host.",
             f"    sources: {_flow(job['sources'])}"]
    if "data" in job:
        lines += ["    # The data it reads: hashed into each run's id, sent once to a host.",
                  f"    data: {_flow(job['data'])}"]
    lines += ["    # The options' defaults; a variant overrides single keys.",
              *(["    params:", *_indented(job["params"], 6)] if job["params"] else
                ["    params: {}"]),
              "    # What run.finish() reports, which way is better, and on which split (test",
              "    # unless named; a number on another split is disclosed as such).",
              "    metrics:", *_indented(job["metrics"], 6)]
    return lines


def _flow(value) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10**6, sort_keys=False).strip()


def _indented(mapping: dict, indent: int) -> list[str]:
    """``key: value`` lines, each value in flow style."""
    return [f"{' ' * indent}{_flow({key: value})[1:-1]}" for key, value in mapping.items()]
