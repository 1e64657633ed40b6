r"""Shapes of results the real corpus's forty-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a 3D detector's README whose
shell block runs the program and shows what it printed, a `Perf Report:` of per-stage
timings in milliseconds (`Voxelization: 1.35808 ms.`), with the evidence giving each timing's
unit as `ms`, and a table of stages by platform beside a `Precision` column of `FP16` and
`FP16/INT8`; a training-efficiency post whose table gives times glued to their unit,
`260hr`, `130hr (2x)`; a music genre paper whose caption gives its run count as `mean
accuracy and standard deviation over 4 splits`, and whose prose headline, `83 $\pm$
1.1\%`, rounds two rows' accuracies and states the spread of one. The snippets follow those
shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

STAGES = [alias_claim("demo_average", "centerpoint", metric, value,
                      ["CUDA-CenterPoint", "Perf Report", name], unit="ms", direction="lower")
          for metric, name, value in (("voxelization_time", "Voxelization", 1.36),
                                      ("backbone_time", "3D Backbone", 25.53),
                                      ("total_time", "Total", 42.24))]
RUN = ("Run detection process on test data.\n```shell\n$ ./centerpoint ../data/test/ --verbose\n"
       "GPU has cuda devices: 1\n\nPerf Report: \n    Voxelization: 1.36 ms.\n"
       "    3D Backbone: {backbone} ms.\n    Total: 42.24 ms.\n```\n")


@pytest.mark.parametrize("backbone, found", [("25.53", set()), ("25.58", {"25.58"})],
                         ids=["clean", "drifted"])
def test_a_report_the_program_printed_among_its_commands(tmp_path, backbone, found):
    # before, a code block was read only below a line presenting it as output, or when every
    # line of it was logged; commands above the report left it unread
    report = run(tmp_path, STAGES, RUN.format(backbone=backbone))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 3


def test_a_claim_s_own_unit_is_the_unit_its_metric_is_measured_in(tmp_path):
    # before, only a metric's id (`latency_ms`) or an alias (`Runtime (s)`) gave its unit: a
    # number in ms was another unit than the claim's, and left unchecked
    text = "The 3D Backbone of CUDA-CenterPoint takes 25.58 ms in the Perf Report.\n"
    report = run(tmp_path, STAGES, text)
    assert [(item["claim"], item["found"]) for item in report["drift"]] == [
        ("demo_average/centerpoint/backbone_time/test", "25.58")]


def test_a_configuration_block_stays_unread(tmp_path):
    # the bound: settings in a block of code are no program's report
    text = ("```yaml\nmodel: centerpoint\nbackbone: 3D Backbone\nvoxel_size: 0.075\n"
            "max_points: 30000\n```\n")
    report = run(tmp_path, STAGES, text)
    assert report["drift"] == [] and report["matched"] == []


GENRES = [alias_claim("gtzan", variant, "accuracy", value, ["GTZAN", "accuracy"], n=4,
                      variance={"type": "std", "value": spread})
          for variant, value, spread in (("layer2", 82.5, 1.8), ("all_layers", 83.0, 1.1))]


@pytest.mark.parametrize("spread, found", [("1.1", set()), ("1.4", {"± 1.4%"})],
                         ids=["clean", "drifted"])
def test_a_rounded_value_is_the_claim_s_whose_spread_it_states_too(tmp_path, spread, found):
    # before, `83` was the first claim it rounds from (82.5), and its spread, 1.1, was held
    # against that claim's 1.8: a false drift on the clean copy
    text = f"The system classifies the GTZAN data with an accuracy of 83 $\\pm$ {spread}\\%.\n"
    report = run(tmp_path, GENRES, text, "paper.tex")
    assert {item["found"] for item in report["drift"]} == found


PLATFORMS = [alias_claim("nuscenes", platform.lower(), metric, value,
                         [platform, name, "Unit : ms"], unit="ms", direction="lower")
             for platform, metric, name, value in (("A30", "backbone_time", "3D Backbone", 9.8),
                                                   ("Orin", "backbone_time", "3D Backbone", 22.3),
                                                   ("A30", "nms_time", "Decode + NMS", 3.1),
                                                   ("Orin", "nms_time", "Decode + NMS", 4.4))]
LATENCIES = ("| Unit : ms | Precision | A30 | Orin |\n|---|---|---|---|\n"
             "| 3D Backbone | FP16 | {a30} | 22.3 |\n| Decode + NMS | FP16 | 3.1 | 4.4 |\n")


@pytest.mark.parametrize("a30, found", [("9.8", set()), ("9.4", {"9.4"})],
                         ids=["clean", "drifted"])
def test_a_precision_column_of_number_formats_is_a_setting(tmp_path, a30, found):
    # before, the `Precision` column's header (FP16 rows) read as the precision metric, a
    # metric of no claim: no cell was checked
    report = run(tmp_path, PLATFORMS, LATENCIES.format(a30=a30))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 4


PRETRAIN = [alias_claim("gpt3", variant, "pretrain_time", hours, [name, "Pretrain time"],
                        unit="hr", direction="lower")
            for variant, name, hours in (("baseline_300b", "(1) Baseline", 260.0),
                                         ("baseline_150b", "(5) Baseline", 130.0))]
BUDGETS = ("| **Case** | **Pretrain data** | **Pretrain time (on 64 V100)** |\n|---|---|---|\n"
           "| (1) Baseline | 300B | 260hr |\n| (5) Baseline | 150B (2x) | {half}hr (2x) |\n")


@pytest.mark.parametrize("half, found", [("130", set()), ("133", {"133"})],
                         ids=["clean", "drifted"])
def test_a_column_of_hours_glued_to_their_numbers_holds_results(tmp_path, half, found):
    # before, `260hr` was no number (its unit glued on): the column named the rows instead
    report = run(tmp_path, PRETRAIN, BUDGETS.format(half=half))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 2


@pytest.mark.parametrize("splits, found", [("4", set()), ("6", {"6 splits"})],
                         ids=["clean", "drifted"])
def test_a_caption_s_mean_over_splits_counts_the_runs(tmp_path, splits, found):
    # before, only `train-test splits` counted runs: `over 4 splits` was no seed count
    table = ("\\begin{{table}}\n\\begin{{tabular}}{{lc}}\nModel & Accuracy \\\\\n\\hline\n"
             "Dropout & 83.0$\\pm$1.1 \\\\\n\\end{{tabular}}\n\\caption{{Results on GTZAN (mean "
             "accuracy and standard deviation over {splits} splits)}}\n\\end{{table}}\n")
    claims = [alias_claim("gtzan", "dropout", "accuracy", 83.0, ["Dropout", "GTZAN"], n=4,
                          variance={"type": "std", "value": 1.1})]
    report = run(tmp_path, claims, table.format(splits=splits), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert [item["found"] for item in report["drift"] + report["matched"]
            if item["part"] == "seeds"] == [f"{splits} splits"]
