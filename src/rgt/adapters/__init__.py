"""Adapters: every guarantee of the plain-loop API (``rgt.run``) for code written for a framework.

- ``rgt.adapters.lightning``: PyTorch Lightning — ``RgtCheckpoint`` (a callback) and
  ``ResumableSampler``; ``pip install 'remote-gpu-trainer[lightning]'``.
- ``rgt.adapters.hf``: Hugging Face ``transformers.Trainer`` — ``RgtTrainerCallback``;
  ``pip install 'remote-gpu-trainer[hf]'``.

Each imports its framework when it is imported itself; without the framework, the import is a
clear error naming the extra to install (docs/own-code.md has both, with complete examples).
"""

from __future__ import annotations

from rgt.base.errors import CheckpointError, RgtError
from rgt.train.plain_loop import PlainRun, report_rgt_errors_without_traceback


def missing_framework(framework: str, extra: str, missing: ImportError) -> RgtError:
    """The error for an adapter imported without its framework; a script that lets it escape
    prints the message and the fix, not a traceback."""
    report_rgt_errors_without_traceback()
    return RgtError(f"rgt.adapters.{extra} needs {framework}, which is not installed ({missing})",
                    f"pip install 'remote-gpu-trainer[{extra}]'")


def refuse_an_unresumed_launch(run: PlainRun, resumed: bool, fix: str) -> None:
    """``CheckpointError`` when training starts without having asked for the newest checkpoint
    while the run has some: it would write a second history into the same directory."""
    complete = run.store.complete()
    if resumed or not complete:
        return
    raise CheckpointError(
        f"{run.checkpoint_dir} holds checkpoints up to step {complete[0].step}, but this launch "
        f"did not resume from them: it would write a second history into the same directory",
        fix)
