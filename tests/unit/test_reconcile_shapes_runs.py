"""Shapes of results the real corpus's twenty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a shared task's system paper whose
runs are its submissions, its table rows named only by their number under a ``Run`` header and
its caption counting them (``over five runs``); its distances to other teams in prose (``12.7\\%
behind the approach ranked~1``, ``17.91\\% points lower than the approach ranked one and 2.52\\%
better than the last ranked approach``); another work's number given to ``they``. The snippets
follow those shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.names import alias_key
from rgt.evidence.reconcile.vocabulary import Vocabulary


def _runs(n_seeds: int = 1) -> list[dict]:
    return [alias_claim("task1", f"run{k}", "f1", value, [f"Run {k}", str(k), "F1", "Task 1"],
                        n=n_seeds)
            for k, value in ((1, 61.2), (2, 63.5), (3, 60.9))]


RUN_TABLE = ("\\begin{table}\n\\begin{tabular}{cc}\n\\toprule\nRun & F1 \\\\\n\\midrule\n"
             "1 & 61.2 \\\\\n2 & {second} \\\\\n3 & 60.9 \\\\\n\\bottomrule\n\\end{{tabular}}\n"
             "\\caption{{Task 1 F1 on the test set over {count} runs.}}\n\\end{{table}}\n")


def _table(second: str, count: str = "three") -> str:
    return RUN_TABLE.replace("{second}", second).replace("{count}", count).replace(
        "{{", "{").replace("}}", "}")


def test_rows_under_a_run_header_named_by_the_evidence_are_its_runs(tmp_path):
    # before, ``Run 2`` read as one run of several (a seed's point): the table went unchecked
    clean = run(tmp_path, _runs(), _table("63.5"), "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {("run1", 6, "61.2"), ("run2", 7, "63.5"), ("run3", 8, "60.9")} <= found(
        clean, "matched")
    assert found(run(tmp_path, _runs(), _table("63.8"), "paper.tex")) == {("run2", 7, "63.8")}


def test_a_count_of_the_runs_the_evidence_numbers_is_no_seed_count(tmp_path):
    # before: ``over three runs`` was each run's seed count, a drift against its 5 seeds
    report = run(tmp_path, _runs(n_seeds=5), _table("63.5"), "paper.tex")
    assert report["drift"] == [] and report["unmapped"] == []
    seeds = run(tmp_path, _runs(n_seeds=5), _table("63.5").replace(
        "over three runs", "over 4 seeds"), "paper.tex")
    assert {item["part"] for item in seeds["drift"]} == {"seeds"}


def test_an_alias_written_in_latex_with_a_tie_names_what_it_typesets():
    assert alias_key("the approach ranked~1") == "the approach ranked 1"
    assert alias_key("~230 at 10M steps") == "~230 at 10m steps"  # Markdown's ``about``


TEAMS = [alias_claim("task1", "run2-vs-top", "f1", -12.7, ["Run 2", "the approach ranked~1"],
                     candidate="run2", baseline="top", difference=-12.7),
         alias_claim("task1", "run2-vs-last", "f1", 32.8, ["Run 2", "the last ranked approach"],
                     candidate="run2", baseline="last", difference=32.8)]
DISTANCES = ("Run 2 placed fourth, {top}\\% points lower than the approach ranked~1 and "
             "{last}\\% better than the last ranked approach.\n")


def test_each_distance_to_another_team_is_checked_against_its_own_team(tmp_path):
    # before, both numbers were unmapped between the two comparisons, or taken for names
    clean = run(tmp_path, TEAMS, DISTANCES.format(top="12.7", last="32.8"), "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("run2-vs-top", 1, "12.7%"), ("run2-vs-last", 1, "32.8%")}
    drifted = run(tmp_path, TEAMS, DISTANCES.format(top="12.9", last="32.8"), "paper.tex")
    assert found(drifted) == {("run2-vs-top", 1, "12.9%")}


def test_behind_says_the_difference_went_the_worse_way(tmp_path):
    wrong = run(tmp_path, TEAMS[:1], "Run 2 is 12.7\\% ahead of the approach ranked~1.\n",
                "paper.tex")
    assert [item["fix"] for item in wrong["drift"]] == ['"behind" for "ahead"']
    right = run(tmp_path, TEAMS[:1], "Run 2 is 12.7\\% behind the approach ranked~1.\n",
                "paper.tex")
    assert right["drift"] == [] and found(right, "matched") == {("run2-vs-top", 1, "12.7%")}


def test_a_number_alias_is_not_found_inside_a_longer_number():
    vocabulary = Vocabulary()
    vocabulary.add("2", "variant", "run2")
    vocabulary.add("v1", "variant", "v1")
    text = "placed 2nd: 2.52% better, run 2 in v1.5 and v1"
    assert [text[hit.start:hit.end] for hit in vocabulary.find(text)] == ["2", "v1"]
    assert [hit.start for hit in vocabulary.find(text)] == [text.index("run 2") + 4,
                                                            len(text) - 2]


def test_a_number_another_work_is_said_to_reach_is_theirs(tmp_path):
    claims = [alias_claim("flickr", "ours", "accuracy", 50.9, ["Flickr30k", "ours"])]
    text = ("The approach in [3] inspired ours. On Flickr30k they show a large gain, reaching "
            "50.4% accuracy.\n")
    report = run(tmp_path, claims, text)
    assert report["drift"] == [] and report["unmapped"] == []


GRU = [alias_claim("timit", "ligru", "per", 14.2, ["Li-GRU model", "best result", "PER"],
                   direction="lower")]


def test_references_cited_after_our_model_s_name_leave_its_number_ours(tmp_path):
    # before, ``[2,3]`` was the number's confidence interval and a citation: nothing checked
    text = ("The best result *PER=${per}$\\%* is obtained with the [Li-GRU model](https://x.org)"
            " [2,3].\n")
    clean = run(tmp_path, GRU, text.replace("{per}", "14.2"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("ligru", 1, "14.2%")}
    assert found(run(tmp_path, GRU, text.replace("{per}", "14.4"))) == {("ligru", 1, "14.4%")}


def test_a_number_credited_to_a_citation_before_it_stays_another_s(tmp_path):
    for text in ("Our Li-GRU model reaches a PER of 14.2%. By comparison, [7] achieved 14.9% "
                 "PER.\n", "The Li-GRU model [7] reports a PER of 14.9%.\n"):
        report = run(tmp_path, GRU, text)
        assert report["drift"] == [] and report["unmapped"] == []


def test_an_interval_that_does_not_hold_its_value_qualifies_nothing(tmp_path):
    claims = [alias_claim("cifar10", "ours", "accuracy", 93.1, ["ours"],
                          variance={"type": "ci95", "value": [92.7, 93.5]})]
    held = run(tmp_path, claims, "ours reaches 93.1% accuracy [92.7, 93.9].\n")
    assert {item["part"] for item in held["drift"]} == {"high"}  # a CI: its bound checked
    cited = run(tmp_path, claims, "ours reaches 93.1% accuracy [2, 3].\n")
    assert cited["drift"] == [] and found(cited, "matched") == {("ours", 1, "93.1%")}


def test_experiments_done_for_n_times_count_the_runs(tmp_path):
    claims = [alias_claim("ogbl_ddi", "seal", "hits_at_20", 30.56, ["SEAL", "ogbl-ddi"], n=10)]
    text = ("### ogbl-ddi\n\nFor the above datasets, append \"--runs 10\" to do experiments "
            "for {n} times and get the average results.\n")
    assert run(tmp_path, claims, text.format(n=10))["drift"] == []
    drifted = run(tmp_path, claims, text.format(n=11))
    assert [(item["part"], item["found"]) for item in drifted["drift"]] == [
        ("seeds", "do experiments for 11 times")]
    assert run(tmp_path, claims, "### ogbl-ddi\n\nSEAL does 3 times better.\n")["drift"] == []
