"""``rgt reconcile`` on planted drift in Markdown, LaTeX and CSV documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_helpers import deliver
from rgt.cli import main
from rgt.evidence.numbers import find_numbers, states_value

# plain: test accuracy 0.9565, test loss 0.21; dropout: 0.970744856…, 0.15; diff +0.014244856…
MARKDOWN = """\
# Results

With dropout the test accuracy is 97.07% over three seeds.
With dropout the test accuracy is 0.9707 ± 0.0026, and its test loss 0.150.
The plain model reaches a test accuracy of 0.9512.
A test accuracy of 0.42 was once reported for some model.
The test accuracy difference (dropout vs plain) is +0.0142.
We trained for 2.5 hours on version 3.67.0.

| variant | test accuracy |
|---|---|
| dropout | 97.07 |
| plain | 95.65 |
"""
LATEX = """\
\\section{Results}
The dropout variant reaches \\num{0.9707} test accuracy, and $95.65\\%$ for plain.
dropout: test accuracy $96.10\\%$.
"""
CSV = "variant,test accuracy\nplain,0.9565\ndropout,0.9600\n"


@pytest.fixture
def documents(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    deliver(tmp_path)
    (tmp_path / "paper").mkdir()
    (tmp_path / "README.md").write_text(MARKDOWN)
    (tmp_path / "paper" / "main.tex").write_text(LATEX)
    (tmp_path / "paper" / "table.csv").write_text(CSV)
    return tmp_path


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["reconcile", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def places(items: list[dict]) -> set[tuple[str, int]]:
    return {(item["file"], item["line"]) for item in items}


def test_planted_drift_is_found_and_variants_are_not(documents, capsys):
    code, report = run_json(capsys)
    assert code == 1 and report["ok"] is False
    drift = {(d["file"], d["line"], d["claim"], d["found"]) for d in report["drift"]}
    assert drift == {
        ("README.md", 5, "digits/plain/accuracy/test", "0.9512"),
        ("paper/main.tex", 3, "digits/dropout/accuracy/test", "96.10\\%"),
        ("paper/table.csv", 3, "digits/dropout/accuracy/test", "0.9600"),
    }
    expected = {d["claim"]: d["expected"] for d in report["drift"]}
    assert expected["digits/plain/accuracy/test"] == pytest.approx(0.9565, abs=1e-12)


def test_rounding_and_percent_variants_match(documents, capsys):
    _, report = run_json(capsys)
    matched = {(m["file"], m["line"], m["claim"]) for m in report["matched"]}
    dropout, plain = "digits/dropout/accuracy/test", "digits/plain/accuracy/test"
    assert {("README.md", 3, dropout), ("README.md", 4, dropout), ("README.md", 12, dropout),
            ("README.md", 13, plain), ("paper/main.tex", 2, dropout),
            ("paper/main.tex", 2, plain), ("paper/table.csv", 2, plain)} <= matched
    assert ("README.md", 7, "digits/dropout-vs-plain/accuracy/test") in matched


def test_a_number_of_another_metric_nearby_is_not_confused(documents, capsys):
    _, report = run_json(capsys)
    assert ("README.md", 4, "digits/dropout/loss/test") in {
        (m["file"], m["line"], m["claim"]) for m in report["matched"]}
    assert ("README.md", 4) not in places(report["drift"])


def test_a_number_bound_to_no_single_claim_is_unmapped_not_drift(documents, capsys):
    _, report = run_json(capsys)
    assert places(report["unmapped"]) == {("README.md", 6)}
    assert ("README.md", 8) not in places(report["matched"] + report["drift"])


def test_documents_that_agree_exit_zero_with_a_summary(documents, capsys):
    (documents / "ok.md").write_text("With dropout the test accuracy is 97.1%.\n")
    assert main(["reconcile", "--docs", "ok.md"]) == 0
    assert "1 number(s) match, 0 drifted" in capsys.readouterr().err


def test_drift_is_printed_with_file_line_and_both_values(documents, capsys):
    assert main(["reconcile", "--docs", "README.md"]) == 1
    out = capsys.readouterr().out
    assert "README.md:5: DRIFT digits/plain/accuracy/test: found 0.9512" in out
    assert "README.md:6: unmapped" in out


def test_user_aliases_bind_a_phrase_the_generated_ones_miss(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  digits/dropout/accuracy/test:\n    aliases: [regularised accuracy]\n"
        "    statement: 'Dropout: {value:.1%} over {n} seeds.'\n")
    evidence = deliver(tmp_path, claims="claims.yaml")
    claim = {c["id"]: c for c in evidence["claims"]}["digits/dropout/accuracy/test"]
    assert claim["statement"] == "Dropout: 97.1% over 3 seeds."
    (tmp_path / "doc.md").write_text("The regularised accuracy is 0.95.\n")
    code, report = run_json(capsys, "--docs", "doc.md")
    assert code == 1 and report["drift"][0]["claim"] == "digits/dropout/accuracy/test"


def test_a_claims_file_naming_an_unknown_claim_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text("claims:\n  digits/nope/accuracy/test: {}\n")
    with pytest.raises(AssertionError):
        deliver(tmp_path, claims="claims.yaml")
    err = capsys.readouterr().err
    assert "digits/nope/accuracy/test" in err and "fix: use one of" in err


def test_a_named_document_that_does_not_exist_is_a_user_error(documents, capsys):
    assert main(["reconcile", "--docs", "paper/missing.md"]) == 1
    assert "paper/missing.md: no such file" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "value", "ok"), [
    ("0.934", 0.93412, True), ("93.4%", 0.93412, True), ("93.40", 0.934, True),
    ("93.40", 0.93412, False),
    ("\\num{0.934}", 0.93412, True), ("93.4 ± 0.2", 0.93412, True), ("0.935", 0.93412, False),
    ("93.5\\%", 0.93412, False), ("-0.012", -0.0123, True), ("+0.012", -0.0123, False),
])
def test_number_forms(text, value, ok):
    (number,) = find_numbers(f"see {text} here")
    assert states_value(number, value) is ok
