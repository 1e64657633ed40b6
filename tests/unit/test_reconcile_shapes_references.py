r"""Shapes of results the real corpus's fifty-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: Distiller's model-zoo pages,
whose sentence on the reference model (`Our reference is TorchVision's pretrained Alexnet
model which has a Top1 accuracy of 56.55`) comes before the pruned model's own result; a
knowledge-graph paper's table, whose cited row (`NSCaching \cite{…}`) is the baseline of the
`$\Delta$` row below it. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

PRUNED = [alias_claim("imagenet", "alexnet_pruned", "top1", 56.61,
                      ["Alexnet", "Element-wise pruning", "Top1"])]
REFERENCE = ("## Element-wise pruning\n\n{opening} TorchVision's pretrained model which has a "
             "Top1 accuracy of 56.55. We prune away 88% of the parameters and achieve "
             "Top1={ours}.\n")


@pytest.mark.parametrize("opening, ours, found", [
    ("Our reference is", "56.61", set()), ("As our baseline we used", "56.68", {"56.68"}),
    ("The result is", "56.61", {"56.55"})], ids=["reference", "baseline-and-drift", "ours"])
def test_a_sentence_about_the_reference_model_gives_the_reference_s_numbers(
        tmp_path, opening, ours, found):
    # before, the reference model's 56.55 was held against the pruned model's claim: its
    # sentence names no run, and the heading names ours
    report = run(tmp_path, PRUNED, REFERENCE.format(opening=opening, ours=ours))
    assert {item["found"] for item in report["drift"]} == found


def test_our_baseline_s_results_are_ours(tmp_path):
    # a bound: `Our baseline results … are:` gives the results of a run of ours
    claims = [alias_claim("cifar10", "resnet20_baseline", metric, value,
                          ["ResNet20", "baseline", name])
              for metric, value, name in (("top1", 91.45, "Top1"), ("top5", 99.75, "Top5"))]
    report = run(tmp_path, claims, "Our baseline results for ResNet20 are: Top1=91.45 and "
                                   "Top5=99.71\n")
    assert {item["found"] for item in report["drift"]} == {"99.71"}


DELTA = [alias_claim("wn18", "ours", "mrr", 0.8228, ["Ours", "MRR"], unit=""),
         alias_claim("wn18", "ours-vs-nscaching", "mrr", 0.041,
                     ["Ours", "NSCaching \\cite{zhang2019}", "NSCaching", "$\\Delta$", "MRR"],
                     unit="", candidate="ours", baseline="nscaching", difference=0.041)]
CITED_BASELINE = ("\\begin{{tabular}}{{lc}}\n\\hline\nAlgorithm & MRR \\\\\n\\hline\n"
                  "NSCaching \\cite{{zhang2019}} & 0.7818 \\\\\nOurs & 0.8228 \\\\\n"
                  "$\\Delta$ & +{delta} \\\\\n\\hline\n\\end{{tabular}}\n")


@pytest.mark.parametrize("delta, found", [("0.041", set()), ("0.046", {"+0.046"})],
                         ids=["clean", "drifted"])
def test_a_cited_row_named_only_as_our_comparisons_baseline_is_its_work_s(tmp_path, delta,
                                                                          found):
    # before, the cited system's 0.7818 was held against the difference taken against it:
    # its name with its citation, an alias of that comparison, counted as a name of ours
    report = run(tmp_path, DELTA, CITED_BASELINE.format(delta=delta), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found


SETTINGS = [alias_claim("wn18rr", "transe_uniform", "hits", 49.63, ["TransE", "Uniform", "Hit@10"]),
            alias_claim("wn18rr", "transe_uniform_sans-vs-transe_uniform", "hits", 1.52,
                        ["TransE", "Uniform SANS", "Uniform", "Hit@10"],
                        candidate="transe_uniform_sans", baseline="transe_uniform",
                        difference=1.52),
            alias_claim("wn18rr", "transe_uniform_sans-vs-transe_nscaching", "mrr", 0.025,
                        ["TransE", "Uniform SANS", "NSCaching \\cite{zhang2019}", "NSCaching",
                         "MRR"], unit="", candidate="transe_uniform_sans",
                        baseline="transe_nscaching", difference=0.025)]


def test_a_comparison_s_name_in_a_row_is_no_setting_of_its_candidate(tmp_path):
    # before, the row's `NSCaching`, an alias of a comparison whose candidate's name begins
    # with the row model's, was left out as a setting (like a decoding method) and the
    # cited system's 47.83 held against the difference taken against `Uniform`
    text = ("\\begin{tabular}{ccc}\nScore Function & Algorithm & Hit@10 \\\\\n\\hline\n"
            "TransE & NSCaching \\cite{zhang2019} & 47.83 \\\\\n & Uniform & 49.63 \\\\\n"
            "\\end{tabular}\n")
    report = run(tmp_path, SETTINGS, text, "paper.tex")
    assert not report["drift"]


SCHNET = [alias_claim("oc20", variant, "force_mae", value,
                      ["SchNet", "All", heading, "force MAE"], unit="", direction="lower")
          for variant, value, heading in (
              ("schnet_all", 0.0494, "S2EF models: optimized for EFwT"),
              ("schnet_all_forceonly", 0.0443, "S2EF models: optimized for force only"))]
TWO_ZOOS = ("## S2EF models: optimized for EFwT\n\n| Model | Split | force MAE |\n|---|---|---|\n"
            "| SchNet | All | 0.0494 |\n\n## S2EF models: optimized for force only\n\n"
            "| Model | Split | force MAE |\n|---|---|---|\n| SchNet | All | {cell} |\n")


@pytest.mark.parametrize("cell, found", [("0.0443", set()), ("0.0446", {"0.0446"})],
                         ids=["clean", "drifted"])
def test_a_heading_naming_a_setting_of_the_row_s_run_names_that_run(tmp_path, cell, found):
    # before, the row's `SchNet | All` (the run `schnet_all` spelled out) pinned the plain
    # run, and the force-only model's 0.0443 under its own heading was held against it
    report = run(tmp_path, SCHNET, TWO_ZOOS.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert {(item["line"], item["claim"].split("/")[1]) for item in
            report["matched"] + report["drift"]} == {(5, "schnet_all"),
                                                     (11, "schnet_all_forceonly")}


FUSED = [alias_claim("wn18", f"{model}_uniform_sans-vs-{model}_uniform", "mrr", value,
                     ["uniform SANS", name, "MRR"], unit="", candidate=f"{model}_uniform_sans",
                     baseline=f"{model}_uniform", difference=value)
         for model, name, value in (("transe", "TransE", 0.2143), ("distmult", "DistMult", 0.2864))]


MANY_RUNS = FUSED + [alias_claim("wn18", f"{model}_{run}", "mrr", value, [name, "MRR"], unit="")
                     for model, name in (("transe", "TransE"), ("distmult", "DistMult"))
                     for run, value in (("uniform", 0.6085), ("selfadv", 0.7001))]
FUSED_WITH = ("This is especially significant when uniform SANS is fused with TransE and "
              "DistMult, where an increase of {first} and 0.2864 in MRR is noticed "
              "respectively.\n")


@pytest.mark.parametrize("claims", [FUSED, MANY_RUNS], ids=["one-run-each", "many-runs-each"])
@pytest.mark.parametrize("first, found", [("0.2143", set()), ("0.2148", {"0.2148"})],
                         ids=["clean", "drifted"])
def test_numbers_given_respectively_to_names_listed_together(tmp_path, claims, first, found):
    # before, a third name in the sentence (`uniform SANS`) left the list of two unpaired,
    # and so did names that are aliases of several runs' claims each (`TransE`): the first
    # increase was held against DistMult's
    report = run(tmp_path, claims, FUSED_WITH.format(first=first), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert {(item["found"], item["claim"].split("/")[1]) for item in report["matched"]} >= {
        ("0.2864", "distmult_uniform_sans-vs-distmult_uniform")}
    assert {item["claim"].split("/")[1] for item in report["drift"]} <= {
        "transe_uniform_sans-vs-transe_uniform"}


GEMNET = [alias_claim("oc20_s2ef", "gemnet_oc_all", "energy_mae", 0.1668,
                      ["gemnet_oc_all", "Energy MAE"], unit="", direction="lower"),
          alias_claim("oc20_is2re", "gemnet_oc_is2re", "energy_mae", 0.3997,
                      ["IS2RE", "Energy MAE"], unit="", direction="lower")]
LINKS_COLUMN = ("| Model | Energy MAE | Test metrics |\n| --- | --- | --- |\n"
                "| gemnet_oc_all | {cell} | [S2EF](https://example.org/s2ef.json) \\| "
                "[IS2RE](https://example.org/is2re.json) |\n")


@pytest.mark.parametrize("cell, found", [("0.1668", set()), ("0.1672", {"0.1672"})],
                         ids=["clean", "drifted"])
def test_a_cell_listing_links_apart_by_bars_names_no_row(tmp_path, cell, found):
    # before, the link texts of the row's `Test metrics` cell (`IS2RE`, an alias of another
    # task's claims) joined its name, and the row named no claim at all
    report = run(tmp_path, GEMNET, LINKS_COLUMN.format(cell=cell))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["matched"] + report["drift"]) == 1


SIDES = [alias_claim("fb15k237", "selfadv", "hits", 52.73, ["Self-Adv.", "Self-Adversarial",
                                                            "Hit@10"]),
         alias_claim("fb15k237", "selfadv_sans", "hits", 52.03,
                     ["Self-Adv. SANS (ours)", "Self-Adversarial SANS", "Hit@10"]),
         alias_claim("fb15k237", "selfadv_sans-vs-selfadv", "hits", -0.7,
                     ["$\\Delta$", "Self-Adv. SANS (ours)", "Self-Adversarial SANS",
                      "Self-Adversarial", "Hit@10"], candidate="selfadv_sans",
                     baseline="selfadv", difference=-0.7)]
CAPTIONED = ("\\begin{{table}}\n\\begin{{tabular}}{{lc}}\n\\hline\nAlgorithm & Hit@10 \\\\\n"
             "\\hline\nSelf-Adv. \\cite{{sun2019}} & 52.73 \\\\\nSelf-Adv. SANS (ours) & {cell} "
             "\\\\\n$\\Delta$ & -0.7 \\\\\n\\hline\n\\end{{tabular}}\n\\caption{{Comparison of "
             "the Self-Adversarial technique with our Self-Adversarial SANS.}}\n"
             "\\end{{table}}\n")


@pytest.mark.parametrize("cell, found", [("52.03", set()), ("52.08", {"52.08"})],
                         ids=["clean", "drifted"])
def test_a_caption_naming_a_comparison_s_sides_leaves_our_row_its_level(tmp_path, cell, found):
    # before, the caption's `Self-Adversarial` (a name of the baseline and of the difference)
    # narrowed our row to the difference: its level was held against nothing and not read
    report = run(tmp_path, SIDES, CAPTIONED.format(cell=cell), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert ("fb15k237/selfadv_sans/hits/test" in
            {item["claim"] for item in report["matched"] + report["drift"]})
