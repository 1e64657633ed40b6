"""Exceptions for failures a user can act on.

Each error carries the fix. Raising one has no side effects; the CLI catches ``RgtError``,
prints ``error: <message>`` and ``fix: <fix>`` and exits with ``exit_code`` — no traceback for a
user's mistake.
"""


class RgtError(Exception):
    """Base class: a failure with a message and an actionable fix."""

    exit_code = 1
    printed_json = False  # a --json verb already printed this failure inside its document

    def __init__(self, message: str, fix: str = ""):
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message}\n  fix: {self.fix}" if self.fix else self.message


class ConfigError(RgtError):
    """The configuration is invalid; nothing has run yet."""

    exit_code = 2


class DataError(RgtError):
    """A dataset or split could not be built or does not match its pinned hash."""


class CheckpointError(RgtError):
    """No usable checkpoint, or a checkpoint that does not belong to this run."""


class TrainingDiverged(RgtError):
    """The loss became NaN or infinite: training stops before the bad step touches the weights."""


class RunStateError(RgtError):
    """A run directory is missing files or belongs to another run."""
