"""Shapes of results the real corpus's fifteenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a thesis written as a Jupyter Book,
MyST Markdown whose pipe tables sit inside ```` ```{table} Caption ```` directives, with cells
of inline math (``$84.2\\pm0.3$``), LaTeX's text commands (``\\texttt{PAF} (ours)``), escaped
bars in row labels (``TCP\\|B``), a span written as an empty header cell beside its head, a
variant named by a macro of the thesis's own (``fair $\\xtilde$``), and a caption about
*training* classifiers that names no split; prose that names a metric sentences before a number
far from its claim (another run's). The snippets follow those shapes, with numbers of their
own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

OURS = ["PAF", r"\texttt{PAF} (ours)", "synthetic data"]
SYNTHETIC = [alias_claim("synthetic", "paf", "tcp_b", 92.63, [*OURS, r"TCP\|B", "TCP"],
                         variance={"type": "std", "value": 2.08}),
             alias_claim("synthetic", "paf", "tcp_g", 96.74, [*OURS, r"TCP\|G", "TCP"],
                         variance={"type": "std", "value": 1.93}),
             alias_claim("synthetic", "paf", "fid_diff", 0.86, [*OURS, "FIDiff", "FID"],
                         direction="lower")]
DIRECTIVE = r"""# Results

```{table} Comparison table for the synthetic data results (see the TCP|G row).
:name: table:results
|                   | Unconstrained models |   |    Fair models    |                            |
|:-----------------:|:--------------------:|:-:|:-----------------:|---------------------------:|
| Metric            | \texttt{LogReg}      |   | \texttt{FairLrn}  |        \texttt{PAF} (ours) |
| TCP\|B $\uparrow$ |   $91.70 \pm 1.92$   |   |  $71.51 \pm 3.72$ | $\bf{92.63} \pm \bf{2.08}$ |
| TCP\|G $\uparrow$ |   $69.84 \pm 5.00$   |   |  $53.17 \pm 6.02$ | $\bf{96.74} \pm \bf{1.93}$ |
```
"""


def test_a_myst_table_directive_is_read_as_a_table_of_math_cells(tmp_path):
    # the directive's body is Markdown, its argument the caption, its option no text; each
    # row's escaped bar names its own metric, the caption's ``TCP|G`` only its row
    clean = run(tmp_path, SYNTHETIC, DIRECTIVE)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("paf", 8, "92.63"), ("paf", 8, "± 2.08"),
                                       ("paf", 9, "96.74"), ("paf", 9, "± 1.93")}
    drifted = run(tmp_path, SYNTHETIC, DIRECTIVE.replace(r"\bf{92.63}", r"\bf{92.68}"))
    assert {(item["claim"], item["line"], item["found"]) for item in drifted["drift"]} == {
        ("synthetic/paf/tcp_b/test", 8, "92.68")}


def test_a_code_directive_stays_code(tmp_path):
    text = "# Results\n\n```{code-block} text\nTCP|B: 91.0\n```\n"
    report = run(tmp_path, SYNTHETIC, text)
    assert report["drift"] == [] and report["matched"] == []


PROSE = r"""# Results

The FID of our `PAF` model is $0.86\%$ on the synthetic data.

## The baseline data

Before any model, only $4\%$ of the green candidates are admitted.
A low FID means the data conforms to equality of opportunity; the TCP for the blue group
has gone down to $61\%$ in the other setting.
"""


def test_a_number_far_from_the_claim_its_metric_was_named_for_sentences_before_is_left(tmp_path):
    # 61% is no careless copy of an FID of 0.86%: another run's number, the metric named only
    # in the sentence before
    clean = run(tmp_path, SYNTHETIC, PROSE)
    assert clean["drift"] == [] and found(clean, "matched") == {("paf", 3, "0.86%")}
    drifted = run(tmp_path, SYNTHETIC, PROSE.replace("$0.86", "$0.89"))
    assert found(drifted) == {("paf", 3, "0.89%")}


def test_a_difference_far_from_its_claim_relatively_is_still_a_drift(tmp_path):
    # a comparison's 0.4 for 0.2 is two units of its last digit: a careless copy
    claim = alias_claim("cifar10", "soft-vs-hard", "accuracy", 0.2, ["soft assignment"],
                        candidate="soft", baseline="hard")
    text = ("# Results\n\nWe swap the hard assignment for a soft assignment.\n"
            "The accuracy increases by $0.4\\%$, showing that it does not matter much.\n")
    assert found(run(tmp_path, [claim], text)) == {("soft-vs-hard", 4, "0.4%")}


NAMES = {"lr": "LR", "svm": "SVM"}
ADULT = [alias_claim("adult", f"{key}_xtilde", metric, value,
                     [name, f"{k + 1}: $\\texttt{{{name}}}$", "fair interpretable $\\xtilde$",
                      "Adult", label])
         for k, (key, name) in enumerate(NAMES.items())
         for metric, value, label in (("accuracy", 84.2 - k / 10, "Accuracy"),
                                      ("eq_opp", 5.6 - k, "Eq. Opp"))]
SPANS = r"""```{table} Results of training multiple classifiers on the Adult dataset.
:name: table:benchmarking
|                   | original $\x$ |             | fair interpretable $\xtilde$ |             |
|-------------------|:-------------:|:-----------:|:----------------------------:|:-----------:|
|                   |    Accuracy   |   Eq. Opp   |           Accuracy           |   Eq. Opp   |
| 1: $\texttt{LR}$  | $85.1\pm0.2$  | $9.2\pm2.3$ |         $84.2\pm0.3$         | $5.6\pm2.5$ |
| 2: $\texttt{SVM}$ | $85.0\pm0.2$  | $8.2\pm2.3$ |         $84.1\pm0.3$         | $4.6\pm2.8$ |
```
"""


def test_an_empty_header_cell_continues_the_span_to_its_left(tmp_path):
    # ``original $\x$`` heads Accuracy and Eq. Opp (the inputs' columns, no claims), ``fair
    # interpretable $\xtilde$`` the two after: the macro's name stands for its symbol; the
    # caption's "training multiple classifiers" names the activity, not the training split
    clean = run(tmp_path, ADULT, SPANS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("lr_xtilde", 6, "84.2"), ("lr_xtilde", 6, "5.6"),
                                       ("svm_xtilde", 7, "84.1"), ("svm_xtilde", 7, "4.6")}
