"""rgt figure: rendering, the pixel gate (passes on a good figure, records planted faults), and
byte-identical rebuilds."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conftest import TINY
from rgt.config import load_config
from rgt.deliver import command, registry
from rgt.deliver.figures import (
    bars_from_rows,
    draw_chart,
    inspect_chart,
    new_figure,
    render_figure,
)
from rgt.deliver.pixel_gate import (
    check_errorbars,
    check_glyphs,
    check_not_blank,
    check_zero_baseline,
    run_pixel_gate,
)
from rgt.deliver.registry import figure_spec
from rgt.deliver.source_data import render_csv

TINY_CONFIG = load_config(TINY)
SPEC = figure_spec(TINY_CONFIG, "test_accuracy")


def rows() -> list[dict]:
    """Two variants with three seeds and one with a single seed."""
    values = {"baseline": [0.95, 0.96, 0.97], "dropout": [0.97, 0.975, 0.98], "wide": [0.96]}
    return [
        {
            "exp_id": "digits",
            "variant": variant,
            "seed": seed,
            "run_id": f"{variant}{seed}",
            "metric": "accuracy",
            "split": "test",
            "value": value,
            "n": 270,
            "direction": "higher",
        }
        for variant, seeds in values.items()
        for seed, value in enumerate(seeds)
    ]


def project(root: Path) -> None:
    """A project with source data and a verify report, as the earlier verbs leave it."""
    (root / "figures/test_accuracy").mkdir(parents=True)
    (root / "figures/test_accuracy/source_data.csv").write_text(render_csv(rows()))
    (root / "config").mkdir()
    shutil.copy(TINY, root / "config" / "config.yaml")
    (root / "verify").mkdir()
    (root / "verify/report.json").write_text(
        json.dumps({"schema": "rgt/verify/v1", "comparisons": [], "findings": []})
    )


def run_figure_command(out_dir: str = "figures/test_accuracy") -> int:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(
        [
            "figure",
            "--fig",
            "test_accuracy",
            "--source",
            "figures/test_accuracy/source_data.csv",
            "--verify",
            "verify/report.json",
            "--out-dir",
            out_dir,
        ]
    )
    return args.func(args)


def gate_of(out_dir: str) -> dict:
    return json.loads(Path(out_dir, "provenance.json").read_text())["pixel_gate"]


def test_good_figure_renders_and_passes_every_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    assert run_figure_command() == 0
    gate = gate_of("figures/test_accuracy")
    assert gate["ok"], gate
    assert {item["name"] for item in gate["checks"]} == {
        "not_blank",
        "size",
        "has_data",
        "glyphs",
        "errorbars",
        "y_starts_at_zero",
        "text_inside",
    }
    assert Path("figures/test_accuracy/figure.pdf").read_bytes().startswith(b"%PDF")


def test_rebuild_from_the_same_inputs_is_byte_identical(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    # Different build clocks: only dropped date stamps make the files equal.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    run_figure_command("build_one")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1000000000")
    run_figure_command("build_two")
    for name in ("figure.png", "figure.pdf"):
        assert Path("build_one", name).read_bytes() == Path("build_two", name).read_bytes()


def test_rebuild_in_a_fresh_process_is_byte_identical():
    script = (
        "import sys; from rgt.deliver.figures import render_figure; "
        "from rgt.deliver.registry import figure_spec; import json; "
        "from rgt.config import load_config; "
        f"spec = figure_spec(load_config({str(TINY)!r}), 'test_accuracy'); "
        "r = render_figure(json.loads(sys.stdin.read()), spec); "
        "sys.stdout.buffer.write(r.png)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(rows()).encode(),
        capture_output=True,
        check=True,
    )
    assert done.stdout == render_figure(rows(), SPEC).png


def test_different_values_give_a_different_image():
    changed = [{**row, "value": row["value"] - 0.3} for row in rows()]
    assert render_figure(changed, SPEC).png != render_figure(rows(), SPEC).png


def test_blank_image_fails_the_gate_without_raising(tmp_path):
    from matplotlib.image import imsave

    facts = render_figure(rows(), SPEC).facts
    imsave(tmp_path / "blank.png", np.ones((600, 960, 3)))
    gate = run_pixel_gate(tmp_path / "blank.png", facts)
    failed = {item["name"] for item in gate["checks"] if not item["ok"]}
    assert gate["ok"] is False and failed == {"not_blank"}


def test_wrong_pixel_size_fails_the_gate(tmp_path):
    from matplotlib.image import imsave

    facts = render_figure(rows(), SPEC).facts
    imsave(tmp_path / "small.png", np.random.default_rng(0).random((60, 96, 3)))
    failed = {
        item["name"]
        for item in run_pixel_gate(tmp_path / "small.png", facts)["checks"]
        if not item["ok"]
    }
    assert failed == {"size"}


def test_blank_pixels_and_one_colour_are_not_data():
    assert not check_not_blank(np.zeros((10, 10, 4)))["ok"]
    assert check_not_blank(np.eye(10)[..., None].repeat(3, axis=2))["ok"]


def test_a_bar_chart_whose_y_axis_does_not_start_at_zero_fails():
    bars = bars_from_rows(rows())
    figure = new_figure()
    axes = figure.add_subplot()
    axes.bar(range(len(bars)), [bar.mean for bar in bars])
    axes.set_ylim(0.9, 1.0)
    facts = inspect_chart(figure, axes, bars, SPEC)
    assert facts["bars_drawn"] is True
    result = check_zero_baseline(facts["nonnegative"], facts["ylim_bottom"], facts["bars_drawn"])
    assert result["ok"] is False and "0.9" in result["detail"]


def test_points_and_intervals_may_zoom_so_a_small_gap_is_visible():
    bars = bars_from_rows(rows())
    figure = new_figure()
    axes = draw_chart(figure, bars, SPEC)
    facts = inspect_chart(figure, axes, bars, SPEC)
    assert facts["bars_drawn"] is False and facts["ylim_bottom"] > 90  # percent, zoomed
    assert check_zero_baseline(True, facts["ylim_bottom"], False)["ok"]


def test_the_difference_panel_shows_verify_interval_and_verdict():
    difference = {"candidate": "dropout", "baseline": "baseline", "diff": 0.015,
                  "ci_low": -0.004, "ci_high": 0.034, "verdict": "underpowered",
                  "test": "Welch t", "metric": "accuracy", "split": "test",
                  "direction": "higher"}
    rendered = render_figure(rows(), SPEC, [difference])
    assert rendered.png != render_figure(rows(), SPEC).png
    figure = new_figure()
    draw_chart(figure, bars_from_rows(rows()), SPEC, [difference])
    title = figure._suptitle.get_text()
    assert ("dropout − baseline = +1.50 pp test accuracy (better: higher is better)\n"
            "95% CI [-0.40 pp, +3.40 pp] (Welch t): underpowered") in title
    assert len(figure.axes) == 2 and rendered.facts["clipped_text"] == []


def test_negative_metric_needs_no_zero_floor():
    assert check_zero_baseline(False, -3.0)["ok"]


def test_error_bars_are_found_on_every_multi_seed_bar_only():
    bars = bars_from_rows(rows())
    figure = new_figure()
    facts = inspect_chart(figure, draw_chart(figure, bars, SPEC), bars, SPEC)
    assert facts["errorbars_expected"] == ["digits/baseline", "digits/dropout"]
    assert facts["errorbars_drawn"] == ["digits/baseline", "digits/dropout"]


def test_a_chart_without_error_bars_fails():
    bars = bars_from_rows(rows())
    figure = new_figure()
    axes = figure.add_subplot()
    axes.bar(range(len(bars)), [bar.mean for bar in bars])
    facts = inspect_chart(figure, axes, bars, SPEC)
    result = check_errorbars(facts["errorbars_expected"], facts["errorbars_drawn"])
    assert result["ok"] is False and "digits/baseline" in result["detail"]


def test_missing_glyph_is_caught_while_rendering():
    facts = render_figure(rows(), replace(SPEC, title="accuracy \u4e2d\u6587")).facts
    result = check_glyphs(facts["render_messages"])
    assert result["ok"] is False and "20013" in result["detail"]
    assert check_glyphs(render_figure(rows(), SPEC).facts["render_messages"])["ok"]


def test_clipped_title_is_caught():
    facts = render_figure(rows(), replace(SPEC, title="very long title " * 12)).facts
    assert facts["clipped_text"] == ["very long title " * 12]


def test_failed_gate_is_recorded_and_reported_not_raised(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    planted = replace(SPEC, title="\u4e2d accuracy")
    monkeypatch.setattr(registry, "figure_spec", lambda config, fig_id: planted)
    assert run_figure_command() == 0
    gate = gate_of("figures/test_accuracy")
    assert gate["ok"] is False
    assert [item["name"] for item in gate["checks"] if not item["ok"]] == ["glyphs"]
    assert "pixel gate FAILED" in capsys.readouterr().err
    assert Path("figures/test_accuracy/figure.png").is_file()


def test_source_of_another_metric_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project(tmp_path)
    other = [{**row, "metric": "loss"} for row in rows()]
    Path("figures/test_accuracy/source_data.csv").write_text(render_csv(other))
    with pytest.raises(command.DeliveryError, match="loss"):
        run_figure_command()


def test_registering_the_verbs_imports_no_plotting_library():
    script = (
        "import sys, argparse; from rgt.deliver import command; "
        "from rgt.evidence import command as evidence; "
        "p = argparse.ArgumentParser(); s = p.add_subparsers(); command.register(s); "
        "evidence.register(s); "
        "print(sorted(m for m in ('matplotlib', 'numpy', 'torch') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
