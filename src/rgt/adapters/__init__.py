"""Adapters: every guarantee of the plain-loop API (``rgt.run``) for code written for a framework.

- ``rgt.adapters.lightning``: PyTorch Lightning — ``RgtCheckpoint`` (a callback) and
  ``ResumableSampler``; ``pip install 'remote-gpu-trainer[lightning]'``.
- ``rgt.adapters.hf``: Hugging Face ``transformers.Trainer`` — ``RgtTrainerCallback``;
  ``pip install 'remote-gpu-trainer[hf]'``.

Each imports its framework when it is imported itself; without the framework, the import is a
clear error naming the extra to install (docs/own-code.md has both, with complete examples).
"""

from __future__ import annotations

from rgt.base.errors import RgtError
from rgt.train.plain_loop import report_rgt_errors_without_traceback


def missing_framework(framework: str, extra: str, missing: ImportError) -> RgtError:
    """The error for an adapter imported without its framework; a script that lets it escape
    prints the message and the fix, not a traceback."""
    report_rgt_errors_without_traceback()
    return RgtError(f"rgt.adapters.{extra} needs {framework}, which is not installed ({missing})",
                    f"pip install 'remote-gpu-trainer[{extra}]'")
