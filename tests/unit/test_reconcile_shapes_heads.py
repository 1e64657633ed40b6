"""Shapes of results the real corpus's fourteenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an HTML table whose header names
a task over several columns and whose first body row names the sets those columns are measured
on (``Test set | Large valid | CASP14 | CAMEO``), its first cell saying what the names are; a
LaTeX ``tabular`` whose column spec runs over several lines, under a caption of ``bootstrapped
standard errors`` (the plural). And, from the dev part, a script's output in a code block whose
names and numbers stand apart by arrows (``Valid acc -> Test acc``), and a thesis's table rows
named with a font switch in a group (``({\\it location})``); and, found after the fifteenth
part's scoring, a model zoo's ``Params(M)`` column stating claims already in millions. The
snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

SETS = {"big_dev": "Big dev", "set_a": "Set A", "set_b": "Set B"}
VALUES = {"net_s": [30.2, 18.4, 29.1], "net_l": [41.7, 25.3, 40.8]}
CLAIMS = [alias_claim(exp, variant, "precision", VALUES[variant][k],
                      [variant.replace("_", "-").upper(), name, "Contact prediction"])
          for variant in VALUES for k, (exp, name) in enumerate(SETS.items())]
TABLE = """<table>
<thead>
  <tr>
    <th>Task</th>
    <th colspan="3">Contact prediction</th>
  </tr>
</thead>
<tbody>
  <tr>
    <td>Test set</td>
    <td>Big dev</td>
    <td>Set A</td>
    <td>Set B</td>
  </tr>
  <tr>
    <td>NET-S</td>
    <td>30.2</td>
    <td>18.4</td>
    <td>29.1</td>
  </tr>
  <tr>
    <td>NET-L</td>
    <td>41.7</td>
    <td>25.3</td>
    <td>40.8</td>
  </tr>
</tbody>
</table>
"""


def test_a_first_row_of_names_under_a_spanning_header_names_each_columns_set(tmp_path):
    # ``Contact prediction`` spans three columns; the row under it says which set each is
    clean = run(tmp_path, CLAIMS, TABLE)
    assert clean["drift"] == [] and clean["unmapped"] == []
    checked = {(item["claim"].split("/")[0], item["claim"].split("/")[1], item["found"])
               for item in clean["matched"]}
    assert {("big_dev", "net_s", "30.2"), ("set_a", "net_l", "25.3"),
            ("set_b", "net_l", "40.8")} <= checked
    drifted = run(tmp_path, CLAIMS, TABLE.replace("29.1", "29.3").replace("41.7", "41.5"))
    assert found(drifted) == {("net_s", 19, "29.3"), ("net_l", 23, "41.5")}
    assert drifted["unmapped"] == []


def test_the_first_cell_of_that_row_names_no_split(tmp_path):
    # ``Test set`` says the names are sets; ``Big dev`` is still measured on its dev split
    claims = [{**claim, "id": claim["id"].replace("/test", "/val"), "split": "val"}
              if claim["exp_id"] == "big_dev" else claim for claim in CLAIMS]
    clean = run(tmp_path, claims, TABLE)
    assert ("big_dev/net_l/precision/val", "41.7") in {
        (item["claim"], item["found"]) for item in clean["matched"]}
    drifted = run(tmp_path, claims, TABLE.replace("41.7", "41.5"))
    assert found(drifted) == {("net_l", 23, "41.5")}


def test_a_row_naming_claims_the_cell_may_not_state_narrows_nothing():
    # a released checkpoint's cell may state single runs only; its row (``ImageNet
    # accuracy``) also names a mean of four runs, which is no longer among the candidates
    from rgt.evidence.reconcile.aliases import baseline_row
    from rgt.evidence.reconcile.names import project_vocabulary
    from rgt.evidence.reconcile.sites import Level, Site
    from rgt.evidence.reconcile.statistics import Statement

    single = alias_claim("imagenet", "vit_b", "top1", 83.6, ["ViT-Base", "ImageNet", "accuracy"])
    mean = alias_claim("imagenet", "vit_l", "top1", 85.9, ["ViT-Large", "ImageNet", "accuracy"],
                       n=4)
    vocabulary = project_vocabulary([single, mean], {}, "EVIDENCE.json")
    row = Level("row", "ImageNet accuracy", None, True)
    site = Site(Statement(parts=(), start=0, end=4), ((0, 1),), "83.6", (row,), in_table=True)
    pinned = frozenset({single["id"]})
    assert baseline_row(site, pinned, [single], vocabulary) == pinned


def _reduction(exp: str, metric: str, value: float, spread: float, alias: str) -> dict:
    return alias_claim(exp, "ct", metric, value, ["CT", exp.upper(), alias],
                       variance={"type": "std", "value": spread})


REDUCTIONS = [_reduction("circ", "ip", 58.88, 0.37, "IP"), _reduction("circ", "cost", 42.99, 0.85,
                                                                     "Cost"),
              _reduction("moon", "ip", 19.59, 0.73, "IP"), _reduction("moon", "cost", 5.16, 1.0,
                                                                     "Cost")]
SPEC_OVER_LINES = r"""\begin{table}
\caption{Reductions (\%) with bootstrapped standard errors for all datasets.}
\begin{tabular}{
  l
  S[table-format=2.2(1.2)]
  S[table-format=3.2(1.2)]
}
  \toprule
  \textbf{Data} & \textbf{IP $(-\%)$} & \textbf{Cost $(-\%)$} \\\midrule
  Circ & 58.88\pm0.37 $^{*}$ & 42.99\pm0.85 $^{*}$ \\
  Moon & 19.59\pm0.73 $^{*}$ & 5.16\pm1.0 $^{*}$ \\\bottomrule
\end{tabular}
\end{table}
"""


def test_a_column_spec_over_several_lines_opens_the_tabular_body(tmp_path):
    # ``\begin{tabular}{`` then one column type a line: the body starts after the spec's ``}``
    clean = run(tmp_path, REDUCTIONS, SPEC_OVER_LINES, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} >= {
        ("circ/ct/ip/test", "58.88"), ("moon/ct/cost/test", "5.16")}
    drifted = run(tmp_path, REDUCTIONS, SPEC_OVER_LINES.replace("42.99", "42.96"), "paper.tex")
    assert found(drifted) == {("ct", 10, "42.96")}


def test_standard_errors_in_the_plural_say_what_the_spreads_are(tmp_path):
    # the caption's ``standard errors`` (no run count: the evidence's spread as it is) checks
    # each ``\pm``; a mean of four runs' standard error is its deviation over two
    drifted = run(tmp_path, REDUCTIONS, SPEC_OVER_LINES.replace("0.73", "0.75"), "paper.tex")
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("moon/ct/ip/test", "± 0.75")}
    four = [{**claim, "n": 4, "variance": {"type": "std", "value": 2 * claim["variance"]["value"]}}
            for claim in REDUCTIONS]
    assert run(tmp_path, four, SPEC_OVER_LINES, "paper.tex")["drift"] == []


ARROWS = """### Linear + smoothing

```
python run_experiments.py --dataset arxiv --method linear

Valid acc -> Test acc
Args []: 73.68 ± 0.04 -> 72.22 ± 0.02;
```
"""


def test_names_apart_by_arrows_head_the_numbers_apart_by_arrows(tmp_path):
    # a script's ``Valid acc -> Test acc`` over ``73.68 ± 0.04 -> 72.22 ± 0.02``: each its split
    claims = [{**alias_claim("arxiv", "linear", "accuracy", value, ["Linear + smoothing", "acc"],
                             variance={"type": "std", "value": spread}),
               "id": f"arxiv/linear/accuracy/{split}", "split": split}
              for split, value, spread in (("val", 73.68, 0.04), ("test", 72.22, 0.02))]
    clean = run(tmp_path, claims, ARROWS)
    assert {(item["claim"], item["found"]) for item in clean["matched"]} == {
        ("arxiv/linear/accuracy/val", "73.68"), ("arxiv/linear/accuracy/val", "± 0.04"),
        ("arxiv/linear/accuracy/test", "72.22"), ("arxiv/linear/accuracy/test", "± 0.02")}
    drifted = run(tmp_path, claims, ARROWS.replace("72.22", "72.18"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("arxiv/linear/accuracy/test", "72.18")}


SWITCHES = r"""\begin{tabular}{l|c}
\bf{System} & \bf{BLEU}\\
\hline
Base + reverse & 12.6 \\
Base + reverse + attention ({\it location}) & 16.8 \\
Base + reverse + attention ({\it general}) & 17.4 \\
\end{tabular}
"""


def test_a_font_switch_opening_a_group_eats_the_space_after_it(tmp_path):
    # ``({\it location})`` typesets ``(location)``: the row is the alias as the evidence writes it
    claims = [alias_claim("wmt", run_id, "bleu", value, [name, "BLEU"], unit=None)
              for run_id, name, value in (
                  ("base", "Base + reverse", 12.6),
                  ("location", "Base + reverse + attention (location)", 16.8),
                  ("general", "Base + reverse + attention (general)", 17.4))]
    clean = run(tmp_path, claims, SWITCHES, "paper.tex")
    assert {(item["claim"], item["found"]) for item in clean["matched"]} == {
        ("wmt/base/bleu/test", "12.6"), ("wmt/location/bleu/test", "16.8"),
        ("wmt/general/bleu/test", "17.4")}
    drifted = run(tmp_path, claims, SWITCHES.replace("16.8", "16.5"), "paper.tex")
    assert found(drifted) == {("location", 5, "16.5")}


def test_a_metric_id_opening_with_its_split_is_named_without_it(tmp_path):
    # ``test_error`` is what ``8.27% error`` says of the test set: no other system's error
    claims = [{**alias_claim("cifar10", "resnet20", "test_error", 8.27, ["ResNet20", "CIFAR10"]),
               "id": "cifar10/resnet20/test_error/test"}]
    text = "On CIFAR10, ResNet20 reaches 8.27% error.\n"
    assert [item["found"] for item in run(tmp_path, claims, text)["matched"]] == ["8.27%"]
    drifted = run(tmp_path, claims, text.replace("8.27", "8.25"))
    assert found(drifted) == {("resnet20", 1, "8.25%")}


def test_a_claim_counted_in_millions_is_read_as_its_millions_column(tmp_path):
    # ``params_m`` under ``Params(M)``: 0.90 is 0.9 million, the claim's own count; a drift's
    # fix is written as the column writes it, not as 0.00 millions
    claims = [alias_claim("mot17", "nano", "params_m", 0.9, ["nano", "Params(M)"], unit=None),
              alias_claim("mot17", "tiny", "params_m", 5.03, ["tiny", "Params(M)"], unit=None)]
    text = "| Model | Params(M) |\n|---|---|\n| nano | 0.90 |\n| tiny | 5.03 |\n"
    clean = run(tmp_path, claims, text)
    assert clean["drift"] == [] and len(clean["matched"]) == 2
    drifted = run(tmp_path, claims, text.replace("5.03", "5.08"))
    assert [(item["found"], item["fix"]) for item in drifted["drift"]] == [("5.08", "5.03")]
