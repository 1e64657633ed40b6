"""Every printed or drawn difference says which way it goes, in the metric's own direction and
unit: ``dropout − no_dropout = +0.081 test loss (worse: lower is better)`` — the verdict line,
the report's row, the plot's title and axis (read back from the PNG and the figure object), the
delivered figure's title and the evidence's statement. The example is a small GPT's dropout
ablation (test loss 2.742 ± 0.008 without dropout, 2.823 ± 0.009 with it, 3 seeds each)."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from rgt.deliver.figures import bars_from_rows, draw_chart, new_figure, render_figure
from rgt.deliver.spec import FigureSpec
from rgt.evidence.claims import comparison_claim
from rgt.verify import stats
from rgt.verify.compare import Comparison, classify
from rgt.verify.plots import draw_plot, render_plot
from rgt.verify.report import _comparison_table
from rgt.verify.summary import verdict_line

NO_DROPOUT = (2.734, 2.742, 2.750)
DROPOUT = (2.814, 2.823, 2.832)
WORSE_LOSS = "dropout − no_dropout = +0.081 test loss (worse: lower is better)"
BETTER_LOSS = "dropout − no_dropout = -0.081 test loss (better: lower is better)"


def comparison(metric: str, direction: str, base: tuple, cand: tuple) -> Comparison:
    """A classified comparison of ``cand`` (dropout) against ``base`` (no_dropout)."""
    base_s, cand_s = stats.Summary(base), stats.Summary(cand)
    test = stats.welch_test(cand_s, base_s, -1 if direction == "lower" else 1)
    draft = Comparison("gpt", "no_dropout", "dropout", ("model.dropout",), metric, "test",
                       direction, base_s, cand_s, test,
                       stats.Design(False, stats.pooled_sd(base_s, cand_s)), 0.01, "0.01", 0.9,
                       (), (), p_adjusted=test.p_value)
    verdict, reason = classify(draft)
    return replace(draft, verdict=verdict, reason=reason)


def worse_loss() -> Comparison:
    return comparison("loss", "lower", NO_DROPOUT, DROPOUT)


def better_loss() -> Comparison:
    return comparison("loss", "lower", DROPOUT, NO_DROPOUT)


def test_the_verdict_line_says_a_worse_loss_went_up_and_a_better_one_down():
    worse, better = verdict_line(worse_loss().to_dict()), verdict_line(better_loss().to_dict())
    assert WORSE_LOSS in worse and "-> EFFECT" in worse
    assert "95% CI [+0.06" in worse  # the interval of the change, not of "+ = better"
    assert BETTER_LOSS in better and "95% CI [-0.1" in better


def test_an_accuracy_that_fell_is_a_negative_change_read_as_worse():
    fell = verdict_line(comparison("accuracy", "higher", (0.95, 0.96, 0.97),
                                   (0.90, 0.91, 0.92)).to_dict())
    assert "dropout − no_dropout = -5.00 pp test accuracy (worse: higher is better)" in fell


def test_the_report_row_gives_the_change_and_its_interval_the_same_way():
    header, _, worse, better = _comparison_table((worse_loss(), better_loss()), {})
    assert "| candidate − baseline | 95% CI |" in header and "+ = better" not in header
    assert "| +0.081 (worse: lower is better) | [+0.0" in worse
    assert "| -0.081 (better: lower is better) | [-0.1" in better


def png_title(png: bytes) -> str:
    return Image.open(io.BytesIO(png)).text["Title"]


def test_the_plot_title_and_axis_read_back_say_which_way_the_loss_went():
    for made, words in ((worse_loss(), WORSE_LOSS), (better_loss(), BETTER_LOSS)):
        assert words in png_title(render_plot(made))
        figure = draw_plot(made)
        assert words in figure._suptitle.get_text()
        diff_axes = figure.axes[1]
        assert diff_axes.get_ylabel() == "dropout − no_dropout (loss)\nlower is better"
        drawn = diff_axes.containers[0].lines[0].get_ydata()[0]
        assert (drawn > 0) == (made.cand.mean > made.base.mean)  # the point is cand − base


SPEC = FigureSpec(fig_id="test_loss", metric="loss", split="test", title="Test loss",
                  ylabel="test loss", nonnegative=True)


def rows() -> list[dict]:
    sides = (("no_dropout", NO_DROPOUT), ("dropout", DROPOUT))
    return [{"exp_id": "gpt", "variant": variant, "seed": seed, "value": value}
            for variant, values in sides for seed, value in enumerate(values)]


def test_the_delivered_figure_title_says_the_loss_got_worse():
    difference = worse_loss().to_dict()
    assert WORSE_LOSS in png_title(render_figure(rows(), SPEC, [difference]).png)
    figure = new_figure()
    draw_chart(figure, bars_from_rows(rows()), SPEC, [difference])
    assert figure.axes[1].get_ylabel() == "candidate − baseline (loss)\nlower is better"
    assert figure.axes[1].containers[0].lines[0].get_ydata()[0] > 0


def test_the_evidence_statement_and_fields_say_it_the_same_way():
    context = {"verify_source": "verify/report.json", "findings": []}
    claim = comparison_claim(worse_loss().to_dict(), context)
    assert "dropout − no_dropout on gpt = +0.0810 test loss (worse: lower is better;" \
        in claim["statement"]
    assert claim["value"] < 0 < claim["difference"]  # value keeps + = better
    assert claim["reading"] == "worse: lower is better"
    low, high = claim["difference_ci95"]
    assert 0 < low < claim["difference"] < high
