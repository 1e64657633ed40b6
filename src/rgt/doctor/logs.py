"""``rgt doctor --log``: classify a failed run's log with ``rgt watch``'s classifier and name the
catalogue entries (with their fixes) that match its cause."""

from __future__ import annotations

import re
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.doctor.catalogue import Entry, load_catalogue
from rgt.watch.classify import Cause, classify
from rgt.watch.states import FAILED, FINISHED, RunFacts

FIX_LINE = re.compile(r"^\s*fix: (.+)$", re.MULTILINE)


def read_logs(paths: list[Path]) -> tuple[str, str]:
    """(train.log text, every other log's text): the classifier reads the two differently."""
    train, job = [], []
    for path in paths:
        if not path.is_file():
            raise RgtError(f"rgt doctor --log: {path} is not a file",
                           "pass a run's log, e.g. checkpoints/<run-id>/train.log or the job's "
                           "job.log")
        text = path.read_text(encoding="utf-8", errors="replace")
        (train if path.name == "train.log" else job).append(text)
    return "\n".join(train), "\n".join(job)


def diagnose(paths: list[Path], exit_code: int | None = None,
             oom_kills: int | None = None) -> tuple[Cause, list[Entry], str]:
    """The cause the logs show, the catalogue entries for it and the cause's advice."""
    train_log, job_log = read_logs(paths)
    facts = RunFacts(run_id="log", exit_code=exit_code, train_log=train_log, job_log=job_log)
    state = FINISHED if exit_code == 0 else FAILED
    cause = classify(facts, state, oom_kills) or Cause(
        "healthy", "the run finished and its loss stayed finite")
    catalogue = load_catalogue()
    known = catalogue.log_causes.get(cause.name)
    if known is None:
        return cause, [], "nothing in the log points at a catalogued failure"
    advice = known.advice
    fixes = FIX_LINE.findall(train_log + "\n" + job_log)
    if cause.name == "user_error" and fixes:  # rgt's own refusal carries its exact fix
        advice = f"{advice}\nfix: {fixes[-1].strip()}"
    return cause, [catalogue.entry(ident) for ident in known.entries], advice


def as_json(cause: Cause, entries: list[Entry], advice: str) -> dict:
    """The diagnosis as ``rgt doctor --log --json`` prints it."""
    return {"cause": cause.name, "detail": cause.detail, "advice": advice,
            "entries": [{"entry": e.id, "symptom": e.symptom, "cause": e.cause, "fix": e.fix,
                         "source": e.source} for e in entries]}
