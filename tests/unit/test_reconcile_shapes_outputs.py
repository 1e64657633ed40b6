"""Shapes of results the real corpus's thirty-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an RL library's docs page whose
evaluation statistics are a fenced JSON block under a paragraph ending `Evaluation results:`,
and an image–text model's HTML tables whose rows name each size in a subscript
(`CN-CLIP<sub>ViT-L/14@336px</sub>`). The snippets follow those shapes, with numbers of their
own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

STATISTICS = [alias_claim("nethack", "appo", metric, value,
                          ["APPO model", "Evaluation results", f"reward/{metric}", metric],
                          unit=None)
              for metric, value in (("reward", 3245.38), ("reward_min", 20.0))]
MODEL_CARD = ("Model card: https://huggingface.co/someone/appo_monk\nEvaluation results:\n"
              "```\n{{\n    \"reward/reward\": {reward},\n    \"reward/reward_min\": 20.0,\n}}\n"
              "```\n")


@pytest.mark.parametrize("reward, found", [("3245.38", set()), ("3245.35", {"3245.35"})],
                         ids=["clean", "drifted"])
def test_a_block_a_paragraph_ends_presenting_as_evaluation_results_is_read(
        tmp_path, reward, found):
    # before, only a paragraph beginning `Results …:` presented output: the block was code
    report = run(tmp_path, STATISTICS, MODEL_CARD.format(reward=reward))
    assert {item["found"] for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2


SIZES = [alias_claim("flickr", size, "recall_at_10", 100.0,
                     [f"CN-CLIP<sub>{name}</sub>", name, *extra, "R@10"])
         for size, name, extra in (("vit-l-14-336", "ViT-L/14@336px", []),
                                   ("vit-h-14", "ViT-H/14", ["CN-CLIP"]))]
SUBSCRIPTS = ("<table>\n<tr><th>Model</th><th>R@10</th></tr>\n"
              "<tr><td>CN-CLIP<sub>ViT-L/14@336px</sub></td><td>{large}</td></tr>\n"
              "<tr><td>CN-CLIP<sub>ViT-H/14</sub></td><td>100.0</td></tr>\n</table>\n")


@pytest.mark.parametrize("large, found", [("100.0", set()),
                                          ("100.2", {("vit-l-14-336", "100.2")})],
                         ids=["clean", "drifted"])
def test_a_subscript_in_an_html_cell_is_a_word_of_its_own(tmp_path, large, found):
    # before, the row read `CN-CLIPViT-L/14@336px`, which no alias named: the drift was held
    # against whichever row's claim was as near, the ViT-H/14 one
    report = run(tmp_path, SIZES, SUBSCRIPTS.format(large=large))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2
