"""The user's claims file: words and tolerances merged into EVIDENCE.json; mistakes named."""

from __future__ import annotations

import pytest

from evidence_helpers import deliver
from rgt.cli import main

DROPOUT = "digits/dropout/accuracy/test"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def claims_file(project, text: str) -> str:
    (project / "claims.yaml").write_text(text)
    return "claims.yaml"


def test_statement_aliases_and_tolerance_come_from_the_file(project):
    name = claims_file(project, "tolerances: {accuracy: 0.001, loss: 0.5}\nclaims:\n"
                       f"  {DROPOUT}:\n    aliases: [dropout accuracy]\n"
                       "    statement: '{variant}: {value:.2%} (n = {n})'\n")
    claims = {c["id"]: c for c in deliver(project, claims=name)["claims"]}
    assert claims[DROPOUT]["statement"] == "dropout: 97.07% (n = 3)"
    assert claims[DROPOUT]["aliases"] == ["dropout accuracy"]
    assert claims[DROPOUT]["tolerance"] == 0.001
    assert claims["digits/plain/loss/test"]["tolerance"] == 0.5
    assert "test accuracy" in claims["digits/plain/accuracy/test"]["aliases"]


@pytest.mark.parametrize(("text", "message"), [
    ("claims:\n  x: {aliases: accuracy}\n", "claims/x/aliases: 'accuracy' is not of type 'array'"),
    ("tolerances: {accuracy: -1}\n", "tolerances/accuracy: -1 is less than the minimum of 0"),
    ("colour: red\n", "Additional properties are not allowed ('colour' was unexpected)"),
    ("claims: [", "not valid YAML"),
    (f"claims:\n  {DROPOUT}:\n    statement: 'mean {{mean}}'\n", "cannot be filled"),
])
def test_a_bad_claims_file_names_the_field_and_the_fix(project, capsys, text, message):
    name = claims_file(project, text)
    with pytest.raises(AssertionError):
        deliver(project, claims=name)
    err = capsys.readouterr().err
    assert message in err and "fix:" in err
    assert not (project / "evidence/EVIDENCE.json").exists()


def test_a_missing_claims_file_is_a_user_error(project, capsys):
    with pytest.raises(AssertionError):
        deliver(project, claims="nope.yaml")
    assert "nope.yaml: no such claims file" in capsys.readouterr().err


def test_evidence_without_claims_cannot_be_reconciled(project, capsys):
    (project / "evidence").mkdir()
    (project / "evidence/EVIDENCE.json").write_text('{"schema": "rgt/evidence/v1", "claims": []}')
    assert main(["reconcile"]) == 1
    assert "evidence/EVIDENCE.json: no claims" in capsys.readouterr().err
