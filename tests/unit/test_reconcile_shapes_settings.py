"""Shapes of results the real corpus's nineteenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a video model zoo whose rows are
told apart by a number under a training setting's header (``Epoch``: ``800``, ``1600``) and by
a note after a cell's links that reads like an ablation (``(w/o repeated aug)``); a one-row
table of pretrained weights whose settings (``epochs``, ``batch size``) stand left of the
accuracies. The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

ZOO = [alias_claim("k400", f"vitb_{epochs}ep{tag}", "top1", value, ["ViT-B", str(epochs), *extra])
       for epochs, tag, value, extra in ((800, "_noaug", 79.4, ["w/o repeated aug"]),
                                         (800, "", 80.6, []), (1600, "", 81.2, []))]
ZOO_TABLE = """| Method | Backbone | Epoch | Fine-tune | Top-1 |
| :---: | :---: | :---: | :---: | :---: |
| MAE | ViT-B | 800 | [log](logs/b800.txt)<br />(w/o repeated aug) | {noaug} |
| MAE | ViT-B | 800 | same as above | 80.6 |
| MAE | ViT-B | 1600 | [log](logs/b1600.txt) | {long} |
"""


def test_a_training_settings_column_names_the_rows_it_tells_apart(tmp_path):
    # before, the epochs were numbers, no name: the 1600-epoch row read as another system's
    clean = run(tmp_path, ZOO, ZOO_TABLE.format(noaug="79.4", long="81.2"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert ("vitb_1600ep", 5, "81.2") in found(clean, "matched")
    drifted = run(tmp_path, ZOO, ZOO_TABLE.format(noaug="79.4", long="81.5"))
    assert found(drifted) == {("vitb_1600ep", 5, "81.5")}


def test_an_ablations_word_inside_an_alias_names_a_run_the_evidence_claims(tmp_path):
    # before, ``w/o`` marked the row an ablation's, whose numbers no claim states
    clean = run(tmp_path, ZOO, ZOO_TABLE.format(noaug="79.4", long="81.2"))
    assert ("vitb_800ep_noaug", 3, "79.4") in found(clean, "matched")
    drifted = run(tmp_path, ZOO, ZOO_TABLE.format(noaug="79.1", long="81.2"))
    assert found(drifted) == {("vitb_800ep_noaug", 3, "79.1")}


def test_an_ablations_word_outside_the_aliases_still_marks_an_ablation(tmp_path):
    claims = [alias_claim("k400", "ours", "top1", 81.0, ["Ours"])]
    text = "| Method | Top-1 |\n|---|---|\n| Ours | 81.0 |\n| Ours w/o masking | 77.3 |\n"
    report = run(tmp_path, claims, text)
    assert report["drift"] == [] and report["unmapped"] == []
    assert found(report, "matched") == {("ours", 3, "81.0")}


WEIGHTS = [alias_claim("imagenet", "resnet50", metric, value, ["ResNet-50", header])
           for metric, header, value in (("top1", "acc1", 72.8), ("top5", "acc5", 90.9))]
WEIGHTS_TABLE = """| epochs | batch size | acc1 | acc5 | download |
|---|---|---|---|---|
| 1000 | 2048 | {top1}% | 90.9% | [ResNet-50](weights/resnet50.pth) |
"""


def test_a_settings_header_left_of_the_numbers_names_no_metric(tmp_path):
    # the settings name the row; ``batch size`` must not read as what the numbers measure
    clean = run(tmp_path, WEIGHTS, WEIGHTS_TABLE.format(top1="72.8"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("resnet50", 3, "72.8%"), ("resnet50", 3, "90.9%")}
    drifted = run(tmp_path, WEIGHTS, WEIGHTS_TABLE.format(top1="72.5"))
    assert found(drifted) == {("resnet50", 3, "72.5%")}
