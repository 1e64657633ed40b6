"""examples/lit (a Lightning script through rgt's adapter) runs end to end as `make run
EXAMPLE=lit` runs it — Snakemake's local profile in the example's folder — on its own config cut
to one seed and two epochs: smoke gate, training, verify verdict, figure and evidence; then the
example's own dvc.yaml rebuilds the same figure and evidence with `dvc repro`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import test_remote_executor as rx
import yaml
from test_dvc import BIN, ok

from conftest import ROOT, write_config

pytestmark = pytest.mark.integration

LIT = ROOT / "examples" / "lit"


def test_the_lightning_example_trains_verifies_and_delivers(tmp_path):
    project = tmp_path / "lit"
    project.mkdir()
    for name in ("train.py", "dvc.yaml"):
        shutil.copy(LIT / name, project / name)
    config = yaml.safe_load((LIT / "config" / "config.yaml").read_text())
    config["defaults"]["job"]["params"]["epochs"] = 2
    config["experiments"]["lit_inputs"]["seeds"] = [1]
    write_config(project, config)
    code, output = rx.snakemake(project, ["--snakefile", str(ROOT / "Snakefile"),
                                          "--profile", str(ROOT / "profiles" / "local"),
                                          "--cores", "2"])
    assert code == 0, output[-4000:]
    assert "lit_inputs: raw − standardized = " in output and " test accuracy (" in output
    runs = [json.loads(path.read_text()) for path in project.glob("runs/*/results.json")]
    assert sorted(run["variant"] for run in runs) == ["raw", "standardized"]
    assert {(metric["name"], metric["direction"]) for run in runs for metric in run["metrics"]} \
        == {("accuracy", "higher"), ("loss", "lower")}
    figure = project / "figures" / "test_accuracy"
    assert (figure / "figure.png").stat().st_size and (figure / "provenance.json").is_file()
    evidence = json.loads((project / "evidence" / "EVIDENCE.json").read_text())
    assert "lit_inputs" in json.dumps(evidence)
    assert_dvc_repro_rebuilds_the_same_delivery(project)


def assert_dvc_repro_rebuilds_the_same_delivery(project: Path) -> None:
    """`dvc repro` from the delivered aggregate and verify report writes, byte for byte, the
    figure data and the evidence Snakemake delivered; a second `dvc repro` has nothing to do."""
    delivered = {path: (project / path).read_bytes() for path in (
        "figures/test_accuracy/source_data.csv", "evidence/EVIDENCE.json")}
    for path in delivered:
        (project / path).unlink()
    dvc = str(BIN / "dvc")
    ok([dvc, "init", "--no-scm", "-q"], project)
    assert "Running stage 'evidence'" in ok([dvc, "repro"], project)
    assert {path: (project / path).read_bytes() for path in delivered} == delivered
    assert "Running stage" not in ok([dvc, "repro"], project)
