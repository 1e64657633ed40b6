"""The config's ``job:`` section for a script, from what ``script.read_script`` found: the command
with its options as ``{params.NAME}``, the seed as ``{seed}`` and the script's own output
directory as ``{out_dir}``; the sources and data it names; the metrics ``run.finish`` reports."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rgt.config.model import REPORT_SPLIT
from rgt.project.script import Option, ScriptFacts

SEED_OPTIONS = ("seed",)
OUT_OPTIONS = ("out_dir", "output_dir", "outdir", "save_dir")
# What rgt itself writes in a project: never the script's sources or data.
RGT_PATHS = {"runs", "checkpoints", "smoke", "logs", ".rgt", "export", "quarantine", "evidence",
             "figures", "verify", "config", ".snakemake", ".dvc", ".git", "..", "."}
PLACEHOLDER = {"loss": {"direction": "lower"}}


@dataclass
class Job:
    """The ``job:`` section, where the script writes its own files when run by hand, and what
    the user should know about it."""

    section: dict
    out_default: str | None = None
    notes: list[str] = field(default_factory=list)


def job_for(facts: ScriptFacts, project: Path) -> Job:
    """The job section for ``facts`` (a script of ``project``)."""
    script = facts.path.relative_to(project).as_posix()
    out = next((str(o.default) for o in facts.options
                if o.name in OUT_OPTIONS and isinstance(o.default, str)), None)
    named = _local(facts, project, {script, out})
    section = {"command": _command(script, facts.options),
               "sources": [script, *(name for name in named if _is_source(project / name))],
               "data": [name for name in named if not _is_source(project / name)],
               "params": {o.name: o.default for o in facts.options if _is_param(o)},
               "metrics": _metrics(facts.metrics) or PLACEHOLDER}
    if not section["data"]:
        del section["data"]
    return Job(section, out, _notes(facts, script))


def _is_param(option: Option) -> bool:
    """An option whose value the config sets per run: a literal default; a boolean only where
    it is typed as a value (``--compile=False``), not as an argparse flag."""
    if option.name in SEED_OPTIONS + OUT_OPTIONS:
        return False
    if isinstance(option.default, bool):
        return option.separator == "="
    return isinstance(option.default, int | float | str)


def _command(script: str, options: tuple[Option, ...]) -> str:
    words = ["python", shlex.quote(script)]
    for option in options:
        value = ("{seed}" if option.name in SEED_OPTIONS else
                 "{out_dir}" if option.name in OUT_OPTIONS else
                 f"{{params.{option.name}}}" if _is_param(option) else None)
        if value is not None:
            words.append(f"{option.flag}{option.separator}{value}")
    return " ".join(words)


def _metrics(found: dict[str, dict]) -> dict[str, dict]:
    """``job.metrics`` from what ``run.finish`` reports; the test split is the default."""
    metrics = {}
    for name, spec in found.items():
        split = spec.get("split")
        metrics[name] = {"direction": spec.get("direction", "lower"),
                         **({"split": split} if split and split != REPORT_SPLIT else {})}
    return metrics


def _local(facts: ScriptFacts, project: Path, skipped: set) -> list[str]:
    """The project's own modules the script imports and the paths it names, as top-level
    entries of the project (a package or a data folder as a whole)."""
    found = {candidate.name for name in facts.imports if name not in sys.stdlib_module_names
             for candidate in (project / name, project / f"{name}.py")
             if candidate.suffix == ".py" and candidate.is_file()
             or (candidate / "__init__.py").is_file()}
    for text in facts.names:
        parts = Path(text).parts
        if parts and not Path(text).is_absolute() and (project / parts[0]).exists():
            found.add(parts[0])
    return sorted(found - RGT_PATHS - skipped)


def _is_source(path: Path) -> bool:
    """Code: a Python file, or a folder whose files are all Python (a package)."""
    if path.is_file():
        return path.suffix == ".py"
    files = [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return bool(files) and all(p.suffix == ".py" for p in files)


def _notes(facts: ScriptFacts, script: str) -> list[str]:
    notes = []
    if not any(o.name in SEED_OPTIONS for o in facts.options):
        notes.append(f"{script} takes no --seed option: every seed of an experiment would train "
                     "the same run; add one (the command then passes {seed})")
    if not facts.uses_rgt:
        notes.append(f"{script} does not train through rgt yet: add the glue (README, \"Use "
                     "rgt in your own project\")")
    if not facts.metrics:
        notes.append("no run.finish({...}) found: job.metrics says loss, lower is better, on "
                     "the test split; make it what your run.finish reports")
    elif any("direction" not in spec for spec in facts.metrics.values()):
        notes.append("a metric of run.finish has no literal direction: job.metrics says lower; "
                     "check it")
    return notes
