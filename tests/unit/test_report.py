"""``rgt report``: every delivered number with its runs, disclosures and status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_helpers import deliver
from rgt.cli import main

PLAIN = "digits/plain/accuracy/test"
DROPOUT = "digits/dropout/accuracy/test"
COMPARISON = "digits/dropout-vs-plain/accuracy/test"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    deliver(tmp_path)
    return tmp_path


def statuses(project: Path) -> dict[str, str]:
    assert main(["report"]) == 0
    rows = (project / "evidence/report.md").read_text().splitlines()
    return {cells[1].strip(): cells[6].strip() for cells in
            (row.split("|") for row in rows if row.startswith("| digits/"))}


def seal_remotely(project: Path, run_id: str) -> None:
    path = project / "runs" / run_id / "run.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "host_audit": {"host": "gpu"}}))


def test_local_evaluated_runs_are_delivered(project):
    assert set(statuses(project).values()) == {"delivered"}


def test_a_remote_run_waits_for_pull_verification(project):
    seal_remotely(project, "plain-0")
    status = statuses(project)
    assert status[PLAIN] == "evaluated" and status[COMPARISON] == "evaluated"
    assert status[DROPOUT] == "delivered"
    (project / "export/plain-0").mkdir(parents=True)
    (project / "export/plain-0/PULL_VERIFIED.json").write_text(json.dumps(
        {"schema": "rgt/pull-verified/v1", "run_id": "plain-0", "manifest_sha256": "x"}))
    assert statuses(project)[PLAIN] == "delivered"


def test_a_pull_record_for_another_run_vouches_for_nothing(project):
    seal_remotely(project, "plain-0")
    (project / "export/plain-0").mkdir(parents=True)
    (project / "export/plain-0/PULL_VERIFIED.json").write_text(json.dumps(
        {"schema": "rgt/pull-verified/v1", "run_id": "plain-1"}))
    assert statuses(project)[PLAIN] == "evaluated"


def test_missing_results_or_runs_lower_the_status(project):
    (project / "runs/dropout-1/results.json").unlink()
    (project / "runs/plain-0/run.json").unlink()
    status = statuses(project)
    assert status[DROPOUT] == "trained" and status[PLAIN] == "planned"
    assert status[COMPARISON] == "planned"


def test_markdown_and_html_carry_value_runs_and_disclosures(project):
    assert main(["report"]) == 0
    markdown = (project / "evidence/report.md").read_text()
    page = (project / "evidence/report.html").read_text()
    evidence = json.loads((project / "evidence/EVIDENCE.json").read_text())
    dropout = {c["id"]: c for c in evidence["claims"]}[DROPOUT]
    shown = f"{dropout['value']:.4g}"  # a few significant digits, not 17
    assert f"| {shown} |" in markdown and f"<td>{shown}</td>" in page
    for text in (markdown, page):
        assert repr(dropout["value"]) not in text
        assert "dropout-0, dropout-1, dropout-2" in text
        assert "verdict: underpowered" in text
    assert page.startswith("<!DOCTYPE html>") and page.count("<tr") == 1 + len(evidence["claims"])


def test_evidence_of_another_schema_is_refused(project, capsys):
    (project / "evidence/EVIDENCE.json").write_text('{"schema": "other"}')
    assert main(["report"]) == 1
    assert "expected 'rgt/evidence/v1'" in capsys.readouterr().err
