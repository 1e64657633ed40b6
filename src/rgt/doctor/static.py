"""Run the static checks over a file or a directory tree of Python files."""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.doctor.catalogue import load_catalogue
from rgt.doctor.checks import ERROR, all_checks
from rgt.doctor.checks.astutil import Module

SKIPPED_DIRS = {".venv", "venv", "__pycache__", "node_modules", "site-packages"}
VERSION = re.compile(r"(\d+)\.(\d+)")


@dataclass(frozen=True)
class Finding:
    """One place a check fired: the JSON record of ``rgt doctor PATH --json``."""

    entry: str
    check: str
    file: str
    line: int
    message: str
    fix: str
    severity: str

    def to_json(self) -> dict:
        """The record as a plain mapping."""
        return asdict(self)


def python_files(path: Path) -> list[Path]:
    """``path`` itself, or every ``*.py`` under it (hidden and virtualenv folders skipped)."""
    if not path.exists():
        raise RgtError(f"rgt doctor: {path} does not exist",
                       "pass a Python file or a directory of training code")
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.py")
                  if not any(part in SKIPPED_DIRS or part.startswith(".")
                             for part in p.relative_to(path).parts[:-1]))


def torch_version(text: str | None = None) -> tuple[int, int] | None:
    """``(major, minor)`` of ``text`` (``2.5.1``, ``2.13.0+cpu``), else of the torch installed
    here (read from its metadata: torch is not imported); None when neither says."""
    if text is None:
        try:
            text = metadata.version("torch")
        except metadata.PackageNotFoundError:
            return None
    match = VERSION.match(text.strip())
    if match is None:
        raise RgtError(f"--torch {text!r} is not a torch version",
                       "give it as MAJOR.MINOR[.PATCH], e.g. --torch 2.5.1")
    return int(match[1]), int(match[2])


def parse(path: Path, torch: tuple[int, int] | None = None) -> Module:
    """Parse one file; a syntax error is the user's to fix, named with its line."""
    try:
        return Module(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), torch)
    except SyntaxError as error:
        raise RgtError(f"{path}:{error.lineno}: cannot parse: {error.msg}",
                       f"fix the syntax error (python -m py_compile {path}), then rerun "
                       "rgt doctor") from None
    except UnicodeDecodeError:
        raise RgtError(f"{path} is not UTF-8 text", "save the file as UTF-8") from None


def check_file(path: Path, torch: tuple[int, int] | None = None) -> list[Finding]:
    """Every finding of every registered check on one file (run with torch ``torch``:
    ``(major, minor)``, None when unknown), in line order."""
    module, catalogue = parse(path, torch), load_catalogue()
    findings = []
    for check in all_checks():
        fix = catalogue.entry(check.entry).fix
        for line, message in check.run(module):
            findings.append(Finding(check.entry, check.name, str(path), line, message, fix,
                                    check.severity))
    return sorted(findings, key=lambda f: (f.line, f.check))


def check_path(path: Path, torch: tuple[int, int] | None = None) -> list[Finding]:
    """Findings for ``path`` (a file or a directory tree) run with torch ``torch``."""
    return [finding for file in python_files(path) for finding in check_file(file, torch)]


def has_errors(findings: list[Finding]) -> bool:
    """Whether any finding is severe enough to fail ``rgt doctor`` (exit 1)."""
    return any(finding.severity == ERROR for finding in findings)
