"""The real-document corpus (tests/data/reconcile_real): READMEs and LaTeX papers quoted from
public ML repositories, each with an EVIDENCE.json of its own numbers and drifts planted by
``bench/reconcile_plant.py``. The figures are held as a regression: the dev part as the rules
were developed on it; the held-out part is scored once, after the last rule change (its README
has the history).
``python bench/reconcile_corpus.py`` prints the same figures."""

from __future__ import annotations

import importlib.util
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from reconcile_helpers import REAL, changed_lines, real_projects, score_real
from rgt.evidence.reconcile import reconcile

PLANT = Path(__file__).resolve().parents[2] / "bench" / "reconcile_plant.py"
README = PLANT.parents[1] / "README.md"


def planter():
    spec = importlib.util.spec_from_file_location("reconcile_plant", PLANT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dev_part_scores_as_its_rules_were_left():
    score = score_real("dev")
    assert (score["found"], score["found_exact"], score["planted"]) == (3099, 3097, 3523)
    assert (score["known_found"], score["known"]) == (115, 178)
    assert _kinds(score) == {"drifted": {"drift": 83, "unmapped": 52},
                             "clean": {"drift": 87, "unmapped": 26}}


def test_the_held_out_part_scores_no_worse_than_when_it_was_scored():
    score = score_real("heldout")  # scored once, after the last rule change (its README)
    assert score["found"] >= 11 and score["planted"] == 29
    assert (score["known_found"], score["known"]) == (0, 0)  # its sources get none wrong
    assert _kinds(score) == {"drifted": {"drift": 12}, "clean": {"drift": 12}}  # as scored


def test_the_readme_quotes_the_held_out_part_as_it_scores():
    rows = [line for line in README.read_text(encoding="utf-8").splitlines()
            if "**real documents, held-out**" in line or "held-out drifted / clean" in line]
    found, planted = map(int, re.search(r"\*\*(\d+) of (\d+)\*\*", rows[0]).groups())
    drifted, clean = map(int, re.search(r"\*\*(\d+)\*\* / \*\*(\d+)\*\*", rows[1]).groups())
    score = score_real("heldout")
    assert (found, planted) == (score["found"], score["planted"])
    assert (drifted, clean) == (len(score["false_reports_drifted"]),
                                len(score["false_reports_clean"]))


def _kinds(score: dict) -> dict[str, dict[str, int]]:
    """How many false reports of each kind (drift, unmapped) each copy got."""
    return {copy: dict(Counter(item[0] for item in score[f"false_reports_{copy}"]))
            for copy in ("drifted", "clean")}


def test_the_planting_script_finds_a_number_glued_to_pm():
    plant = planter()
    assert plant.replace_token(r"$6.3\pm0.6$", "0.6", 1, "0.8") == r"$6.3\pm0.8$"
    assert plant.replace_token(r"$10.6$ and $0.6$", "0.6", 1, "0.9") == r"$10.6$ and $0.9$"


def test_the_planting_script_finds_a_number_in_markdown_emphasis():
    plant = planter()
    assert plant.replace_token("5.48% without; __4.17%__ with", "4.17", 1, "4.19") == \
        "5.48% without; __4.19%__ with"
    assert plant.replace_token("epoch_4.17 and 4.17", "4.17", 1, "4.19") == "epoch_4.17 and 4.19"


def test_the_planting_script_changes_a_number_in_scientific_notation_by_its_mantissa():
    plant = planter()
    for seed in range(20):
        planted = plant.mutated("1.05e-5", "value", random.Random(seed))
        assert planted.endswith("e-5") and planted != "1.05e-5"
        assert abs(float(planted) - 1.05e-5) <= 4.01e-7


def test_the_planting_script_keeps_a_number_s_thousands_separators():
    plant = planter()
    for seed in range(20):
        planted = plant.mutated("1,455.27", "value", random.Random(seed))
        assert re.fullmatch(r"1,45\d\.\d\d", planted) and planted != "1,455.27"


def test_the_corpus_is_real_documents_of_several_projects_in_both_parts():
    for part in ("dev", "heldout"):
        projects = real_projects(part)
        assert len(projects) >= 3
        for project in projects:
            document = next(p for p in sorted((project / "clean").rglob("*")) if p.is_file())
            first = document.read_text().splitlines()[0]
            assert "Quoted from github.com/" in first and "commit" in first
            claims = json.loads((project / "EVIDENCE.json").read_text())["claims"]
            assert claims and all(claim["aliases"] for claim in claims)


@pytest.mark.parametrize("project", real_projects("dev") + real_projects("heldout"),
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_each_drifted_copy_is_what_the_planting_script_writes(project):
    assert planter().current(project)
    key = yaml.safe_load((project / "expected.yaml").read_text())
    changed = changed_lines(project / "clean", project / "drifted")
    assert changed == {(item["file"], item["line"]) for item in key["drifts"]}


def test_every_comparison_s_value_is_its_difference_in_the_metric_s_direction():
    """A comparison's ``value`` is positive = better: its ``difference`` (candidate −
    baseline) for a higher-is-better metric, the difference turned round for a lower one."""
    for evidence in REAL.glob("*/*/EVIDENCE.json"):
        for claim in json.loads(evidence.read_text())["claims"]:
            if claim.get("difference") is not None and claim.get("value") is not None:
                sign = 1 if claim.get("direction", "higher") == "higher" else -1
                assert claim["value"] == pytest.approx(sign * claim["difference"]), (
                    evidence.parent.name, claim["id"])


def test_every_comparison_is_written_as_rgt_writes_one():
    """A claim about two runs (``a-vs-b``) names its candidate and baseline, as the evidence
    ``rgt verify`` writes does (a relative change with ``relative``), rather than passing for
    a level of a metric of its own (``f1_relative_improvement``)."""
    for evidence in REAL.glob("*/*/EVIDENCE.json"):
        for claim in json.loads(evidence.read_text())["claims"]:
            if "-vs-" in claim["variant"]:
                assert claim.get("candidate") and claim.get("baseline"), (
                    evidence.parent.name, claim["id"])


def test_every_annotated_site_is_on_its_line():
    for sites in REAL.glob("*/*/sites.yaml"):
        for site in yaml.safe_load(sites.read_text())["sites"]:
            line = (sites.parent / "clean" / site["file"]).read_text().splitlines()[
                site["line"] - 1]
            assert site["text"] in line, (sites, site)


MET = 12  # evidences each document is read against: the pairings grow as the corpus, not n²


def test_other_projects_evidences_read_against_the_corpus_documents_raise_nothing():
    """Documents of kinds a project's rules never met, and aliases they never saw (one of
    punctuation raised once): each evidence read against a slice of the corpus's documents
    (every k-th, a different slice for each, so that every document meets about twelve
    evidences) gives a report, never a traceback."""
    documents = sorted(path for path in REAL.glob("*/*/clean/*") if path.is_file())
    evidences = sorted(REAL.glob("*/*/EVIDENCE.json"))
    stride = max(1, len(evidences) // MET)
    for index, evidence in enumerate(evidences):
        report = reconcile(json.loads(evidence.read_text())["claims"],
                           documents[index % stride::stride], {}, "E")
        assert set(report) == {"ok", "drift", "unmapped", "matched", "files"}
