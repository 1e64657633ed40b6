"""The delivery is built in .rgt/delivery/ and put in place whole; its plan stamp re-delivers
only when the built delivery is another plan's."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rgt.base.files import write_json
from rgt.deliver.staging import forget_promotion_if_disturbed, promote, stamp_plan
from rgt.plan.paths import DELIVERY_PLAN, DELIVERY_PROMOTED, work_path

SETTINGS = {"pairing": "unpaired"}


def results(*run_ids: str, runs: str = "runs") -> list[str]:
    return [f"{runs}/{run_id}/results.json" for run_id in run_ids]


def build(root: Path, run_ids: list[str], settings: dict = SETTINGS) -> None:
    """A built delivery (aggregate + audit) of ``run_ids``."""
    inputs = [{"path": path, "sha256": "0"} for path in results(*run_ids)]
    write_json(root / work_path("evidence/results.json"), {"inputs": inputs, "skipped": []})
    write_json(root / work_path("verify/report.json"), {"settings": settings})


def stamp_time(root: Path) -> float:
    return (root / DELIVERY_PLAN).stat().st_mtime


def test_the_stamp_is_new_only_while_the_built_delivery_is_another_plans(tmp_path):
    assert stamp_plan(results("a", "b"), SETTINGS, tmp_path) is True  # nothing built yet
    assert stamp_time(tmp_path) > 0
    build(tmp_path, ["b", "a"])
    assert stamp_plan(results("a", "b"), SETTINGS, tmp_path) is False
    assert stamp_time(tmp_path) == 0
    assert stamp_plan(results("a", "b", "c"), SETTINGS, tmp_path) is True  # a new seed
    assert stamp_plan(results("a", "b"), {"pairing": "paired"}, tmp_path) is True  # new verify
    assert stamp_plan(results("a", "b", runs="retrain/runs"), SETTINGS, tmp_path) is True
    # A dry run of another plan leaves nothing that would re-deliver this one.
    assert stamp_plan(results("a", "b"), SETTINGS, tmp_path) is False
    assert stamp_time(tmp_path) == 0
    record = json.loads((tmp_path / DELIVERY_PLAN).read_text())
    assert record["results"] == results("a", "b") and record["verify"] == SETTINGS


def test_promote_puts_every_built_file_in_place_and_leaves_identical_ones_alone(tmp_path):
    for name, text in (("evidence/EVIDENCE.json", "new"), ("figures/f/a.csv", "same"),
                       ("verify/plots/p.png", "plot"), ("verify/plots/.snakemake_timestamp", "")):
        (tmp_path / work_path(name)).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / work_path(name)).write_text(text)
    (tmp_path / "figures/f").mkdir(parents=True)
    (tmp_path / "figures/f/a.csv").write_text("same")
    os.utime(tmp_path / "figures/f/a.csv", (1, 1))
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence/EVIDENCE.json").write_text("old")
    (tmp_path / "verify/plots").mkdir(parents=True)
    (tmp_path / "verify/plots/old-comparison.png").write_text("of another plan")
    manifest = promote(["evidence/EVIDENCE.json", "figures/f/a.csv", "verify/plots"], tmp_path)
    assert sorted(manifest["files"]) == ["evidence/EVIDENCE.json", "figures/f/a.csv",
                                         "verify/plots/p.png"]
    assert (tmp_path / "evidence/EVIDENCE.json").read_text() == "new"
    assert (tmp_path / "verify/plots/p.png").read_text() == "plot"
    assert not (tmp_path / "verify/plots/.snakemake_timestamp").exists()
    assert not (tmp_path / "verify/plots/old-comparison.png").exists()  # a generated directory
    assert (tmp_path / "figures/f/a.csv").stat().st_mtime == 1  # identical: untouched


def test_a_disturbed_delivery_is_put_back_by_the_next_run(tmp_path):
    (tmp_path / work_path("evidence")).mkdir(parents=True)
    (tmp_path / work_path("evidence/EVIDENCE.json")).write_text("built")
    write_json(tmp_path / DELIVERY_PROMOTED, promote(["evidence/EVIDENCE.json"], tmp_path))
    assert forget_promotion_if_disturbed(tmp_path) is False
    (tmp_path / "evidence/EVIDENCE.json").write_text("typed by hand")
    assert forget_promotion_if_disturbed(tmp_path) is True
    assert not (tmp_path / DELIVERY_PROMOTED).exists()


def test_a_delivery_made_on_another_platform_is_never_put_in_place_silently(tmp_path):
    from rgt.deliver.staging import platform_change

    def evidence(root, fingerprint, value):
        path = root / "evidence" / "EVIDENCE.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"made_on": [{"fingerprint": fingerprint}],
                                    "claims": [{"id": "e/v/accuracy/test", "value": value}]}))

    evidence(tmp_path, "aaaa", 0.95)
    evidence(tmp_path / ".rgt" / "delivery", "aaaa", 0.95)
    assert platform_change(tmp_path) is None
    evidence(tmp_path / ".rgt" / "delivery", "bbbb", 0.9501)
    said = platform_change(tmp_path)
    assert said.startswith("evidence/EVIDENCE.json was made on platform(s) aaaa; this delivery "
                           "on bbbb, and 1 of its numbers differ: they are this machine's")
