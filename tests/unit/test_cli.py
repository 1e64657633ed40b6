"""The ``rgt`` command lists its verbs; ``python -m rgt`` is the same command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rgt.cli import main

VERBS = ("plan", "smoke", "train", "evaluate", "verify", "aggregate", "source-data", "figure",
         "evidence", "status")


def test_help_lists_every_verb(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for verb in VERBS:
        assert verb in out


def test_python_dash_m_rgt_is_the_cli():
    result = subprocess.run([sys.executable, "-m", "rgt", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0 and "status" in result.stdout


def test_help_imports_nothing_heavy():
    # `rgt --help` is what a newcomer types first: it must stay instant (see README timings).
    code = ("import sys; from rgt.cli import build_parser; build_parser(); print(sorted(m for m "
            "in ('torch', 'numpy', 'pydantic', 'yaml', 'paramiko', 'matplotlib', 'scipy') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "[]"
