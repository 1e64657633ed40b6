"""How documents write their tables and headings, read as a reader sees them: a delimiter row
of one hyphen a cell, cells of numbers their names set, config links naming a table's runs,
headings that are about training or that state a result, LaTeX boxes, names inside names.
The snippets follow shapes of the real corpus's development part
(tests/data/reconcile_real/dev), with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim as claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.latex import plain
from rgt.evidence.reconcile.markdown import markdown_blocks
from rgt.evidence.reconcile.names import project_vocabulary

SCRIPTS = [claim("cifar10", name, "accuracy", value, [f"{name}.py", "Mean accuracy"])
           for name, value in (("fast94", 94.01), ("fast96", 96.00))]
ONE_HYPHEN = """\
| Script | Mean accuracy | Time | PFLOPs |
| - | - | - | - |
| [fast94.py](./fast94.py) | 94.01% | 2.59s | 0.29 |
| [fast96.py](fast96.py) | 96.00% | 27.3s | 3.1 |
"""


def test_a_delimiter_row_of_one_hyphen_a_cell_makes_a_table():
    (table,) = [block for block in markdown_blocks(ONE_HYPHEN) if isinstance(block, Table)]
    assert table.header == ["Script", "Mean accuracy", "Time", "PFLOPs"]
    assert [row[0].text for row in table.rows] == ["fast94.py", "fast96.py"]


def test_a_table_of_one_hyphen_delimiters_is_checked_cell_by_cell(tmp_path):
    clean = run(tmp_path, SCRIPTS, ONE_HYPHEN)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("fast94", 3, "94.01%"), ("fast96", 4, "96.00%")}
    drifted = run(tmp_path, SCRIPTS, ONE_HYPHEN.replace("96.00%", "96.03%"))
    assert found(drifted) == {("fast96", 4, "96.03%")}


def test_a_lone_hyphen_under_a_line_with_a_bar_is_no_table():
    assert not [block for block in markdown_blocks("a | b\n-\n") if isinstance(block, Table)]


FORECAST = [claim(f"etth1_h{horizon}", "scinet", metric, value,
                  ["SCINet", f"scinet_h{horizon}.yml", metric, metric.upper()],
                  split=split, id=f"etth1_h{horizon}/scinet/{metric}/{split}", unit=None)
            for horizon, split, metric, value in (
                (24, "val", "mae", 0.4109), (24, "val", "mse", 0.3924),
                (24, "test", "mae", 0.3590), (24, "test", "mse", 0.3213),
                (48, "val", "mae", 0.4837), (48, "val", "mse", 0.5216))]
ASSIGNED = """\
# SCINet

| lookback | horizon | val | test | config |
| :-----: | :-----: | :-----: | :-----: | :-----: |
| 48 | 24 | mae=0.4109 <br> mse=0.3924 | mae=0.3590 <br> mse=0.3213 | [link](scinet_h24.yml) |
| 96 | 48 | mae=0.4837 <br> mse=0.5216 | - | [link](scinet_h48.yml) |
"""


def test_numbers_their_names_set_in_one_cell_are_each_checked_under_their_name(tmp_path):
    clean = run(tmp_path, FORECAST, ASSIGNED)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} == {
        (item["id"], f"{item['value']:.4f}") for item in FORECAST}
    drifted = run(tmp_path, FORECAST, ASSIGNED.replace("mse=0.5216", "mse=0.5218"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("etth1_h48/scinet/mse/val", "0.5218")]


def test_a_cell_setting_one_setting_still_names_its_row(tmp_path):
    claims = [claim("yelp", f"layer{n}", "recall", value, [f"layer={n}", "Recall"], unit=None)
              for n, value in ((1, 0.05604), (2, 0.05988))]
    text = "| | Recall |\n| --- | --- |\n| **layer=1** | 0.05604 |\n| **layer=2** | 0.05989 |\n"
    assert found(run(tmp_path, claims, text)) == {("layer2", 4, "0.05989")}


def test_a_checkpoints_download_link_is_read_as_its_text_not_its_file_name():
    (table,) = [block for block in markdown_blocks(
        "| Model | Error | |\n|---|---|---|\n"
        "| WRN | 3.6 | [Download](https://x.org/cifar10_wrn_top1_3.52.pth) |\n")
        if isinstance(block, Table)]
    assert [cell.text for cell in table.rows[0]] == ["WRN", "3.6", "Download"]


CLASSIFIERS = [claim("cifar10", name.lower(), "accuracy", value, [name, "CIFAR10", "Acc."])
               for name, value in (("ResNet50", 93.62), ("DPN92", 95.16))]
TRAIN_HEADING = """\
# Train CIFAR10 with PyTorch

## Accuracy
| Model             | Acc.        |
| ----------------- | ----------- |
| [ResNet50](https://arxiv.org/abs/1512.03385)          | 93.62%      |
| [DPN92](https://arxiv.org/abs/1707.01629)             | 95.16%      |
"""


def test_a_heading_about_training_names_no_training_split(tmp_path):
    clean = run(tmp_path, CLASSIFIERS, TRAIN_HEADING)
    assert found(clean, "matched") == {("resnet50", 6, "93.62%"), ("dpn92", 7, "95.16%")}
    drifted = run(tmp_path, CLASSIFIERS, TRAIN_HEADING.replace("95.16%", "95.14%"))
    assert found(drifted) == {("dpn92", 7, "95.14%")}


def test_a_heading_naming_the_training_sets_numbers_still_names_the_split(tmp_path):
    text = TRAIN_HEADING.replace("# Train CIFAR10 with PyTorch", "# Training set accuracy")
    assert found(run(tmp_path, CLASSIFIERS, text), "matched") == set()
    assert found(run(tmp_path, CLASSIFIERS, text.replace("95.16%", "95.14%"))) == set()


LANGUAGE_MODELS = [
    claim("enwik8", "txl_12", "bpc", 1.06, ["12-layer Transformer-XL", "enwik8", "bpc"],
          unit=None, direction="lower"),
    claim("wt103", "txl_base", "ppl", 24.03, ["Transformer-XL", "wikitext-103", "PPL"],
          unit=None, direction="lower")]
RESULT_HEADINGS = """\
#### Replicate the "bpc = 1.06" result on `enwik8` with a 12-layer Transformer-XL

- Make sure the machine has **4 GPUs**.

#### Replicate the "PPL = 24.03" result on `wikitext-103` with Transformer-XL

- Run `bash run_wt103_base.sh train --work_dir PATH_TO_WORK_DIR`
"""


def test_a_heading_setting_a_metric_to_a_number_is_checked(tmp_path):
    clean = run(tmp_path, LANGUAGE_MODELS, RESULT_HEADINGS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("txl_12", 1, "1.06"), ("txl_base", 5, "24.03")}
    drifted = run(tmp_path, LANGUAGE_MODELS, RESULT_HEADINGS.replace("= 24.03", "= 24.08"))
    assert found(drifted) == {("txl_base", 5, "24.08")}


def test_a_file_name_in_inline_code_is_not_read_as_a_name_in_prose(tmp_path):
    claims = [claim("pong", "dqn_atari", "return", 20.25, ["dqn_atari.py"], unit=None)]
    text = ("Note that we save computational time by reducing timesteps from 50M to 10M, "
            "but our `dqn_atari.py` scores the same or higher in 10M steps.\n")
    report = run(tmp_path, claims, text)
    assert report["drift"] == [] and report["unmapped"] == []


def test_a_longer_name_starting_inside_a_shorter_match_wins():
    claims = [claim("mnist", "cheb", "accuracy", 99.14, ["GC32-P4-GC64-P4-FC512", "MNIST"]),
              claim("mnist_gc32", "knn", "accuracy", 97.40, ["GC32", "MNIST"])]
    hits = project_vocabulary(claims, {}, "E").find("MNIST GC32-P4-GC64-P4-FC512")
    assert [(hit.start, hit.end) for hit in hits] == [(0, 5), (6, 27)]


def test_a_boxs_placement_and_width_are_no_numbers():
    assert "0.42" not in plain(r"\begin{minipage}[b]{0.42\linewidth} \centering")
    assert plain(r"\begin{subfigure}{0.5\textwidth}Accuracy 91.2") == "Accuracy 91.2"


PARTS = [claim(exp, "ssg", "class_miou", value, [alias, "PointNet2_SSG (Pytorch)",
                                                  "Class avg IoU"], unit=None)
         for exp, alias, value in (("s3dis", "PointNet++", 53.5),
                                   ("shapenet", "Part Segmentation (ShapeNet)", 81.8))]
NEAREST = """\
# Pytorch Implementation of PointNet and PointNet++

## Part Segmentation (ShapeNet)
| Model | Class avg IoU |
|--|--|
| PointNet2_SSG (Pytorch) | 81.8 |
"""


def test_the_nearest_headings_alias_decides_a_cells_experiment(tmp_path):
    clean = run(tmp_path, PARTS, NEAREST)
    assert clean["drift"] == []
    assert {item["claim"] for item in clean["matched"]} == {"shapenet/ssg/class_miou/test"}
