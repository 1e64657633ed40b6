"""The ``rgt verify`` verb: arguments, exit codes, written reports, cheap import."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest
from test_verify_support import write_variant

from rgt.verify import command

DROPOUT = {"model": {"dropout": 0.3}}


def run_verb(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="rgt")
    command.register(parser.add_subparsers())
    args = parser.parse_args(["verify", *argv])
    return args.func(args)


def make_runs(tmp_path):
    runs = tmp_path / "runs"
    write_variant(runs, "baseline", [0.80, 0.81, 0.79])
    write_variant(runs, "dropout", [0.90], overrides=DROPOUT)
    return runs


def test_verify_writes_json_markdown_and_plots_and_exits_0_with_findings(tmp_path):
    runs = make_runs(tmp_path)
    out = tmp_path / "out"
    code = run_verb(["--runs", str(runs), "--json", str(out / "r.json"), "--md",
                     str(out / "md" / "r.md"), "--min-effect", "accuracy=0.05"])
    assert code == 0
    report = json.loads((out / "r.json").read_text())
    assert {f["check"] for f in report["findings"]} >= {"single-seed", "underpowered"}
    markdown = (out / "md" / "r.md").read_text()
    assert "| exp | dropout vs baseline | accuracy (test) | 3/1 |" in markdown
    assert "– at 0.05; " in markdown  # power column: the CLI's min effect for accuracy
    assert "## Findings" in markdown and "single-seed" in markdown
    plot = out / "md" / "plots" / "exp-dropout-vs-baseline-accuracy.png"
    assert "(plots/exp-dropout-vs-baseline-accuracy.png)" in markdown
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_full_cli_defaults_and_missing_runs(tmp_path, monkeypatch, capsys):
    from rgt.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["verify"]) == 1
    assert "no runs directory" in capsys.readouterr().err
    make_runs(tmp_path)
    assert main(["verify"]) == 0
    printed = capsys.readouterr().out
    assert "exp: dropout − baseline = +10.00 pp test accuracy (better: higher is better)" \
        in printed and "UNDERPOWERED" in printed
    assert (tmp_path / "verify" / "report.json").is_file()
    assert (tmp_path / "verify" / "report.md").is_file()


@pytest.mark.parametrize("argv", [["--min-effect", "0.01"], ["--min-effect", "accuracy=-1"],
                                  ["--min-effect", "accuracy=nan"], ["--pairing", "both"],
                                  ["--multiplicity", "bonferroni"]])
def test_bad_arguments_are_rejected(argv):
    with pytest.raises(SystemExit) as error:
        run_verb(argv)
    assert error.value.code == 2


def test_importing_the_verb_loads_nothing_heavy():
    probe = ("import sys, rgt.verify.command; "
             "print(sorted(m for m in ('numpy', 'scipy', 'pyarrow', 'matplotlib', 'yaml') "
             "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, env={"PYTHONPATH": str(command.__file__).rsplit(
                                "/rgt/", 1)[0]})
    assert result.stdout.strip() == "[]"
