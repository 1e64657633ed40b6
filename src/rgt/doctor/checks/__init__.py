"""The static checks, one module per catalogue family, registered with ``@check``.

A check takes a parsed file (``astutil.Module``) and yields ``(line, message)`` for each place
it fires; the runner (``rgt.doctor.static``) adds the file, the entry's fix and the severity.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rgt.doctor.checks.astutil import Module

FAMILIES = ("data", "distributed", "checkpoint", "resume", "convergence", "optimizer",
            "memory")
ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Check:
    """One static check: its name, the catalogue entry it comes from, and its severity."""

    name: str
    entry: str
    severity: str
    run: Callable[[Module], Iterable[tuple[int, str]]]


_REGISTRY: dict[str, Check] = {}


def check(name: str, entry: str, severity: str = WARNING):
    """Register the decorated function as the check ``name`` for catalogue entry ``entry``."""
    def register(function):
        _REGISTRY[name] = Check(name, entry, severity, function)
        return function
    return register


def all_checks() -> list[Check]:
    """Every registered check, in family order."""
    for family in FAMILIES:
        importlib.import_module(f"rgt.doctor.checks.{family}")
    return list(_REGISTRY.values())
