"""Shapes of results the real corpus's sixteenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a reStructuredText benchmark page
whose results are ``.. csv-table::`` directives (a ``:header:`` option of quoted names, a row
per indented line of quoted, comma-separated values); ASR scoring tables whose ``Err`` column
sits beside ``S.Err`` (the sentence error rate, another quantity); a seed count written as
``by running 10 times``; a benchmark table whose ``Remarks`` column holds hyper-parameters and
names datasets (``1e-4 for Citeseer``), and cells holding the paper's number beside the
reproduction's (``0.834 (paper: 0.830)``). The snippets follow those shapes, with numbers of
their own."""

from __future__ import annotations

import json

from reconcile_helpers import REAL, alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

KNN = [alias_claim("imagenette", name.lower(), "knn_top1", value,
                   [name, "Imagenette", "kNN Top 1"], unit="")
       for name, value in (("BYOL", 0.881), ("DINO", 0.893))]
CSV_PAGE = """Benchmarks
==========

.. csv-table:: Imagenette benchmark results
  :header: "Model", "Backbone", "Epochs", "kNN Top 1", "Runtime"
  :widths: 20, 20, 20, 20, 20

  "BYOL", "Res18", "800", "0.881", "214.8 Min"
  "DINO", "Res18", "800", "0.893", "312.3 Min"
  "MAE", "ViT-S", "800", "0.611", "248.2 Min"
"""


def test_a_csv_table_directive_is_read_as_a_table_under_its_header_option(tmp_path):
    # before, its lines were a directive's body, prose: every number a stray one
    clean = run(tmp_path, KNN, CSV_PAGE, "benchmarks.rst")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("byol", 8, "0.881"), ("dino", 9, "0.893")}
    drifted = run(tmp_path, KNN, CSV_PAGE.replace('"0.893"', '"0.897"'), "benchmarks.rst")
    assert {(item["claim"], item["line"], item["found"]) for item in drifted["drift"]} == {
        ("imagenette/dino/knn_top1/test", 9, "0.897")}


WER = [alias_claim("librispeech", "conformer", "wer", 6.1, ["Err", "WER", "dev_clean"],
                   direction="lower")]
SCORING = """### WER

|dataset|Snt|Wrd|Corr|Sub|Del|Ins|Err|S.Err|
|---|---|---|---|---|---|---|---|---|
|decode_asr/dev_clean|2703|54402|94.6|5.0|0.3|0.8|6.1|55.4|
"""


def test_a_column_whose_name_is_a_capital_glued_to_the_claims_metric_is_another_quantity(
        tmp_path):
    # ``S.Err`` is the sentence error rate: its 55.4 no drift of the word error rate's 6.1
    report = run(tmp_path, WER, SCORING)
    assert report["drift"] == [] and report["unmapped"] == []
    assert found(report, "matched") == {("conformer", 5, "6.1")}


GCN = [alias_claim("cora", "gcn", "accuracy", 80.7, ["GCN", "Cora", "accuracy"], n=10,
                   variance={"type": "std", "value": 1.0})]


def test_a_seed_count_written_as_a_number_of_times_run_is_checked(tmp_path):
    text = ("# Results\n\nWe report the average accuracy by running {n} times.\n\n"
            "| Model | Cora |\n|---|---|\n| GCN | 80.7 (1.0) |\n")
    clean = run(tmp_path, GCN, text.format(n=10))
    assert clean["drift"] == [] and ("gcn", 3, "running 10 times") in found(clean, "matched")
    drifted = run(tmp_path, GCN, text.format(n=12))
    assert {(item["line"], item["found"]) for item in drifted["drift"]} == {
        (3, "running 12 times")}


def test_a_number_of_times_faster_is_no_seed_count(tmp_path):
    text = ("# Results\n\nTraining with it ran 3 times faster.\n\n"
            "| Model | Cora |\n|---|---|\n| GCN | 80.7 (1.0) |\n")
    report = run(tmp_path, GCN, text)
    assert report["drift"] == [] and all(item["line"] != 3 for item in report["matched"])


CITATION = [alias_claim(data.lower(), "gprgnn", "accuracy", value, ["GPRGNN", data, "Accuracy"],
                        unit="") for data, value in (("Cora", 0.852), ("Citeseer", 0.718))]
REMARKS = """| Model | Cora | Citeseer | Remarks |
| --- | --- | --- | --- |
| GPRGNN | 0.852 | 0.718 | hidden_size=64, weight_decay=0.0005, 1e-4 for Citeseer |
"""


def test_a_remarks_cell_does_not_name_its_row(tmp_path):
    # its settings made the row another configuration, its ``Citeseer`` the row's only dataset
    clean = run(tmp_path, CITATION, REMARKS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("gprgnn", 3, "0.852"), ("gprgnn", 3, "0.718")}
    drifted = run(tmp_path, CITATION, REMARKS.replace("0.852", "0.856"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("cora/gprgnn/accuracy/test", "0.856")}


def test_a_remarks_cell_saying_what_the_marks_mean_is_not_blanked_out(tmp_path):
    # the latent-diffusion zoo's table, its evidence: ``*`` guided, ``**`` unguided, the
    # bracket another script's score; read without its legend, the row's ``(7.76)`` was taken
    # for unguided's FID, a false drift
    project = REAL / "dev" / "ldmzoo"
    claims = json.loads((project / "EVIDENCE.json").read_text())["claims"]
    report = run(tmp_path, claims, (project / "clean" / "README.md").read_text())
    assert report["drift"] == [] and report["matched"]


SSGC = [alias_claim(data.lower(), "ssgc", "accuracy", value, ["SSGC", data, "Accuracy"],
                    unit="") for data, value in (("Cora", 0.835), ("Citeseer", 0.733))]
PAPER = """# SSGC: Simple Spectral Graph Convolution

| Dataset | Accuracy |
| --- | --- |
| Cora | 0.835 (paper: 0.830) |
| Citeseer | 0.733 (paper: 0.736) |
"""


def test_a_cell_holding_the_papers_number_beside_its_own_is_read_as_its_own(tmp_path):
    # before, ``paper`` made the column a column of names: no number of it was read
    clean = run(tmp_path, SSGC, PAPER)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("ssgc", 5, "0.835"), ("ssgc", 6, "0.733")}
    drifted = run(tmp_path, SSGC, PAPER.replace("0.733", "0.736"))  # the paper's number
    assert {(item["claim"], item["line"], item["found"]) for item in drifted["drift"]} == {
        ("citeseer/ssgc/accuracy/test", 6, "0.736")}
