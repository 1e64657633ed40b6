"""`rgt doctor PATH`: every static check fires on its triggering snippet (at the marked line)
and stays silent on the corrected one (tests/data/doctor/<check>_{bad,good}.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import rgt
from rgt.cli import main
from rgt.doctor.catalogue import load_catalogue
from rgt.doctor.checks import all_checks
from rgt.doctor.static import check_file, check_path

SNIPPETS = Path(__file__).resolve().parents[1] / "data" / "doctor"
CHECKS = {check.name: check for check in all_checks()}


def snippet(name: str, kind: str) -> Path:
    return SNIPPETS / f"{name.replace('-', '_')}_{kind}.py"


def marked_line(path: Path, name: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if re.search(rf"# doctor: {name}$", line))


def test_every_check_is_registered():
    assert set(CHECKS) == {
        "worker-seeding", "main-guard", "sampler-set-epoch", "torch-load-weights-only",
        "atomic-save", "eval-mode", "double-softmax", "optimizer-before-device",
        "scheduler-order", "accumulation-scaling", "missing-zero-grad", "loss-graph-kept",
        "resume-unconditional", "rng-in-checkpoint", "preemption-signal",
        "own-checkpoint-beside-rgt", "own-resume-beside-rgt", "state-not-in-checkpoint"}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_triggering_snippet_fires_once_at_the_marked_line(name):
    path = snippet(name, "bad")
    findings = check_file(path)
    assert [(f.check, f.line) for f in findings] == [(name, marked_line(path, name))]
    entry = load_catalogue().entry(CHECKS[name].entry)
    assert findings[0].entry == entry.id and findings[0].fix == entry.fix
    assert findings[0].file == str(path) and findings[0].message


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_corrected_snippet_is_clean(name):
    assert check_file(snippet(name, "good")) == []


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_each_check_points_at_a_curated_static_entry(name):
    entry = load_catalogue().entry(CHECKS[name].entry)
    assert entry.curated and "static" in entry.tags


def test_import_aliases_are_resolved(tmp_path):
    code = ("from numpy import random as npr\nfrom torch.utils import data as tud\n"
            "class D:\n    def __getitem__(self, i):\n        return npr.rand()\n"
            "loader = tud.DataLoader(D(), num_workers=2)\n")
    (tmp_path / "alias.py").write_text(code)
    assert {f.check for f in check_path(tmp_path)} == {"worker-seeding", "main-guard"}


def test_a_no_grad_loop_over_parameters_is_not_an_evaluation(tmp_path):
    (tmp_path / "ema.py").write_text(
        "import torch\n\n\n@torch.no_grad()\ndef ema_update(ema, model, decay):\n"
        "    for e, p in zip(ema.parameters(), model.parameters()):\n"
        "        e.mul_(decay).add_(p, alpha=1 - decay)\n")
    assert check_path(tmp_path) == []


def test_rgt_doctor_json_on_a_tree_and_exit_1_on_errors(tmp_path):
    # torch 2.5: torch.load's weights_only default changed in 2.6 (the suite's torch is newer)
    result = rgt(["doctor", str(SNIPPETS), "--json", "--torch", "2.5"], tmp_path, timeout=120)
    assert result.returncode == 1, result.stderr
    # The snippets; the new-user script below them has its own test.
    findings = [f for f in json.loads(result.stdout) if Path(f["file"]).parent == SNIPPETS]
    assert sorted(f["check"] for f in findings) == sorted(CHECKS)
    assert all(set(f) == {"entry", "check", "file", "line", "message", "fix", "severity"}
               for f in findings)
    assert all(f["file"].endswith("_bad.py") for f in findings)


def test_warnings_alone_exit_0_and_the_table_names_entry_place_and_fix(capsys, monkeypatch):
    monkeypatch.chdir(SNIPPETS)
    assert main(["doctor", "eval_mode_bad.py"]) == 0
    out = capsys.readouterr().out
    assert "O5" in out and "eval_mode_bad.py:7" in out and "[eval-mode]" in out
    assert "model.eval()" in out


def test_clean_code_says_so(capsys):
    assert main(["doctor", str(snippet("eval-mode", "good"))]) == 0
    assert "no findings" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "expected"), [
    ("def broken(:\n", "cannot parse"),
    (None, "does not exist"),
])
def test_unreadable_input_is_a_clear_error(tmp_path, capsys, content, expected):
    path = tmp_path / "train.py"
    if content is not None:
        path.write_text(content)
    assert main(["doctor", str(path)]) == 1
    err = capsys.readouterr().err
    assert expected in err and "fix:" in err and "Traceback" not in err


def test_exactly_one_mode_is_required(capsys, tmp_path):
    assert main(["doctor", str(tmp_path), "--log", "x.log"]) == 1
    assert "exactly one of PATH, --log FILE and --host ALIAS" in capsys.readouterr().err
