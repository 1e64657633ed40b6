"""``rgt reconcile`` end to end: evidence delivered through the real verbs, documents in
Markdown, LaTeX and CSV, the text and JSON reports, and every bad input named, never a
traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_helpers import deliver
from reconcile_helpers import CLAIMS, CORPUS, EVIDENCE
from rgt.cli import main

# plain: test accuracy 0.9565 (2 seeds), test loss 0.21; dropout: 0.970744856… ± 0.0025 (3
# seeds), loss 0.15; dropout vs plain: +0.014244856…, 95% CI ± 0.01 around it
MARKDOWN = """\
# Results

With dropout the test accuracy is 97.07% over three seeds.
With dropout the test accuracy is 0.9707 ± 0.0025, and its test loss 0.150.
The plain model reaches a test accuracy of 0.9512.
A test accuracy of 0.93 was once reported for some model.
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
DROPOUT, PLAIN = "digits/dropout/accuracy/test", "digits/plain/accuracy/test"


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
        ("README.md", 5, PLAIN, "0.9512"),
        ("paper/main.tex", 3, DROPOUT, "96.10%"),
        ("paper/table.csv", 3, DROPOUT, "0.9600"),
    }
    expected = {d["claim"]: d["expected"] for d in report["drift"]}
    assert expected[PLAIN] == pytest.approx(0.9565, abs=1e-12)


def test_the_json_report_keeps_its_shape(documents, capsys):
    _, report = run_json(capsys)
    assert set(report) == {"ok", "drift", "unmapped", "matched", "files"}
    assert {tuple(sorted(item)) for item in report["drift"] + report["matched"]} == {
        ("claim", "expected", "file", "found", "line")}
    assert {tuple(sorted(item)) for item in report["unmapped"]} == {("file", "line", "text")}


def test_rounding_percent_and_spread_variants_match(documents, capsys):
    _, report = run_json(capsys)
    matched = {(m["file"], m["line"], m["claim"], m["found"]) for m in report["matched"]}
    assert {("README.md", 3, DROPOUT, "97.07%"), ("README.md", 4, DROPOUT, "0.9707"),
            ("README.md", 4, DROPOUT, "± 0.0025"), ("README.md", 12, DROPOUT, "97.07"),
            ("README.md", 13, PLAIN, "95.65"), ("paper/main.tex", 2, DROPOUT, "0.9707"),
            ("paper/main.tex", 2, PLAIN, "95.65%"), ("paper/table.csv", 2, PLAIN, "0.9565"),
            ("README.md", 7, "digits/dropout-vs-plain/accuracy/test", "+0.0142"),
            ("README.md", 4, "digits/dropout/loss/test", "0.150")} <= matched


def test_a_number_bound_to_no_single_claim_is_unmapped_not_drift(documents, capsys):
    _, report = run_json(capsys)
    assert places(report["unmapped"]) == {("README.md", 6)}
    assert ("README.md", 8) not in places(report["matched"] + report["drift"])


def test_documents_that_agree_exit_zero_with_a_summary(documents, capsys):
    (documents / "ok.md").write_text("With dropout the test accuracy is 97.1%.\n")
    assert main(["reconcile", "--docs", "ok.md"]) == 0
    assert "1 number(s) match, 0 drifted" in capsys.readouterr().err


def test_drift_is_printed_with_file_line_both_values_and_the_fix(documents, capsys):
    assert main(["reconcile", "--docs", "README.md"]) == 1
    out = capsys.readouterr().out
    assert "README.md:5: DRIFT digits/plain/accuracy/test: found 0.9512" in out
    assert "write 0.9565" in out
    assert "README.md:6: unmapped" in out


def test_a_draft_quoting_the_verify_verdict_reports_nothing_false(documents, capsys):
    """CI bounds, the confidence level and the baseline are each checked against the claim
    they belong to, the seed counts (named by no variant in their clause) left alone; the
    diff is +0.0142, its CI ± 0.01 around it."""
    (documents / "draft.md").write_text(
        "Dropout changes test accuracy by +0.0142 (95% CI [+0.0042, +0.0242]) over 3 seeds,\n"
        "relative to the plain baseline (0.9565, 2 seeds); verdict: underpowered.\n"
        "The 95% CI of the test accuracy difference is [+0.0042, +0.0242].\n")
    code, report = run_json(capsys, "--docs", "draft.md")
    assert (code, report["drift"], report["unmapped"]) == (0, [], [])
    found = {(m["claim"], m["found"]) for m in report["matched"]}
    comparison = "digits/dropout-vs-plain/accuracy/test"
    assert {(comparison, "+0.0142"), (comparison, "95%"), (comparison, "+0.0042"),
            (comparison, "+0.0242"), (PLAIN, "0.9565")} <= found
    (documents / "draft.md").write_text(
        "Dropout changes test accuracy by +0.0142 (90% CI [+0.0042, +0.0224]).\n")
    code, report = run_json(capsys, "--docs", "draft.md")
    assert code == 1 and {d["found"] for d in report["drift"]} == {"90%", "+0.0224"}


def test_user_aliases_bind_a_phrase_the_generated_ones_miss(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  digits/dropout/accuracy/test:\n    aliases: [regularised accuracy]\n"
        "    statement: 'Dropout: {value:.1%} over {n} seeds.'\n")
    evidence = deliver(tmp_path, claims="claims.yaml")
    claim = {c["id"]: c for c in evidence["claims"]}[DROPOUT]
    assert claim["statement"] == "Dropout: 97.1% over 3 seeds."
    (tmp_path / "doc.md").write_text("The regularised accuracy is 0.95.\n")
    code, report = run_json(capsys, "--docs", "doc.md", "--claims", "claims.yaml")
    assert code == 1 and report["drift"][0]["claim"] == DROPOUT


def test_the_claims_file_next_to_the_evidence_is_read_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    deliver(tmp_path)
    (tmp_path / "evidence" / "claims.yaml").write_text(
        "names:\n  variants:\n    plain: [the vanilla CNN]\n")
    (tmp_path / "doc.md").write_text("The vanilla CNN reaches 0.9512 test accuracy.\n")
    code, report = run_json(capsys, "--docs", "doc.md")
    assert code == 1 and report["drift"][0]["claim"] == PLAIN


def test_the_corpus_clean_copy_exits_zero_with_an_empty_report(capsys):
    code, report = run_json(capsys, "--evidence", str(EVIDENCE), "--claims", str(CLAIMS),
                            "--docs", str(CORPUS / "clean"))
    assert (code, report["ok"], report["drift"], report["unmapped"]) == (0, True, [], [])
    assert len(report["files"]) == 7


def test_a_claims_file_naming_an_unknown_claim_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims.yaml").write_text("claims:\n  digits/nope/accuracy/test: {}\n")
    with pytest.raises(AssertionError):
        deliver(tmp_path, claims="claims.yaml")
    err = capsys.readouterr().err
    assert "digits/nope/accuracy/test" in err and "fix: use one of" in err


BAD_INPUTS = [
    ("a named document that does not exist", {}, ["--docs", "paper/missing.md"],
     "paper/missing.md: no such file"),
    ("an unreadable document", {"notes.txt": b"accuracy \xff\xfe 0.95\n"}, ["--docs", "notes.txt"],
     "notes.txt: unreadable"),
    ("LaTeX with an unclosed brace", {"paper.tex": b"\\section{Results}\n\\textbf{0.95\n"},
     ["--docs", "paper.tex"], "paper.tex:2: the '{' opened here is never closed"),
    ("a ragged CSV row", {"r.csv": b"variant,acc\nplain,0.95,0.96\n"}, ["--docs", "r.csv"],
     "r.csv:2: 3 cells, the header has 2"),
    ("an alias naming a variant the evidence does not have",
     {"c.yaml": b"names:\n  variants:\n    dropuot: [with dropout]\n", "ok.md": b"x\n"},
     ["--claims", "c.yaml", "--docs", "ok.md"],
     "names/variants/dropuot: no claim has this variant, so its names would match nothing"),
    ("an alias without words", {"c.yaml": b"names:\n  others: ['--']\n", "ok.md": b"x\n"},
     ["--claims", "c.yaml", "--docs", "ok.md"], "names/others: '--' has no words"),
    ("a claim without its metric",
     {"evidence/EVIDENCE.json": b'{"schema": "rgt/evidence/v1", "claims": [{"id": "x/y/z/test",'
                                b' "exp_id": "x", "variant": "y", "split": "test", "value": 1}]}'},
     [], "claim x/y/z/test has no metric"),
    ("a names section of the wrong shape", {"c.yaml": b"names:\n  variants: [dropout]\n"},
     ["--claims", "c.yaml"], "names/variants: ['dropout'] is not of type 'object'"),
]


@pytest.mark.parametrize(("case", "files", "argv", "message"), BAD_INPUTS,
                         ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_is_a_message_with_a_fix_never_a_traceback(
        documents, capsys, case, files, argv, message):
    for name, content in files.items():
        (documents / name).write_bytes(content)
    assert main(["reconcile", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "fix:" in err and "Traceback" not in err, case


def test_the_readme_quotes_the_committed_evidence(monkeypatch, capsys):
    """The README's example results (and its verify line) are checked as a user's would be."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    code, report = run_json(capsys, "--docs", "README.md")
    assert (code, report["drift"], report["unmapped"]) == (0, [], [])
    assert len(report["matched"]) >= 15
