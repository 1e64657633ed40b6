"""Shapes of results the real corpus's eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a LaTeX table of bare integer
accuracies whose rows and columns are the evidence's names and whose caption names the metric.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim as claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile import reconcile
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.markdown import markdown_blocks
from rgt.evidence.reconcile.rst import rst_blocks

ROWS = {"chroma": "Chroma", "mfcc": "MFCC", "all": "1 to 9"}
COLUMNS = {"lr": "LR", "knn": "kNN"}
ACCURACIES = {("chroma", "lr"): 41, ("chroma", "knn"): 43, ("mfcc", "lr"): 57,
              ("mfcc", "knn"): 52, ("all", "lr"): 62, ("all", "knn"): 50}
CROSSED = [claim("genres", f"{row}_{column}", "accuracy", value, [ROWS[row], COLUMNS[column]],
                 unit=None) for (row, column), value in ACCURACIES.items()]
INTEGERS = r"""
\begin{table}
  \begin{tabular}{lrcc}
    \toprule
    feature set & dim. & LR & kNN \\
    \midrule
    1 Chroma~\cite{chroma} & 84 & 41 & 43 \\
    3 MFCC~\cite{mfcc} & 140 & 57 & 52 \\
    \midrule
    1 to 9 & 518 & 62 & 50 \\
    \bottomrule
  \end{tabular}
  \caption{Test set accuracies of two classifiers on the medium subset.}
\end{table}
"""


def test_bare_integers_are_read_where_the_table_names_their_metric_and_claim(tmp_path):
    clean = run(tmp_path, CROSSED, INTEGERS, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {
        ("chroma_lr", 7, "41"), ("chroma_knn", 7, "43"), ("mfcc_lr", 8, "57"),
        ("mfcc_knn", 8, "52"), ("all_lr", 10, "62"), ("all_knn", 10, "50")}
    drifted = run(tmp_path, CROSSED, INTEGERS.replace("& 57 &", "& 59 &"), "paper.tex")
    assert found(drifted) == {("mfcc_lr", 8, "59")}


def test_a_column_no_name_of_the_evidence_heads_holds_no_result(tmp_path):
    # the ``dim.`` column's 84, 140, 518: the feature sets' sizes, not accuracies
    drifted = run(tmp_path, CROSSED, INTEGERS.replace("& 140 &", "& 41 &"), "paper.tex")
    assert drifted["drift"] == []


PERPLEXITY = [claim("ptb", variant, "perplexity", value, aliases, split=split, unit=None,
                    id=f"ptb/{variant}/perplexity/{split}", direction="lower")
              for variant, split, value, aliases in (
                  ("zaremba_embedding", "train", 36.91, ["\\citet{zaremba} code", "embedding",
                                                         "Train Perplexity"]),
                  ("zaremba_embedding", "test", 117.42, ["\\citet{zaremba} code", "embedding",
                                                         "Test Perplexity"]),
                  ("lstm_embedding", "train", 48.12, ["Train Perplexity"]),
                  ("lstm_embedding", "test", 121.07, ["Test Perplexity"]))]
ID_ROWS = r"""
\begin{table}
  \begin{tabular}{lccc}
    \toprule
    Architecture & Representation & Train Perplexity & Test Perplexity \\
    \midrule
    \citet{zaremba} code & embedding & 36.91 & 117.42 \\
    LSTM & embedding & 48.12 & 121.07 \\
    \bottomrule
  \end{tabular}
  \caption{Perplexities; \cite{zaremba} code is ran as the benchmark algorithm.}
\end{table}
"""


def test_a_row_named_by_a_variants_id_pins_its_claims_over_a_captions_alias(tmp_path):
    # ``LSTM embedding`` is the id ``lstm_embedding``: its row, not the caption's ``code`` run
    clean = run(tmp_path, PERPLEXITY, ID_ROWS, "paper.tex")
    assert clean["drift"] == [] and ("lstm_embedding", 8, "48.12") in found(clean, "matched")
    drifted = run(tmp_path, PERPLEXITY, ID_ROWS.replace("48.12", "48.15"), "paper.tex")
    assert found(drifted) == {("lstm_embedding", 8, "48.15")}


SCALES = [claim("ade20k", f"ppm_{scale}", "miou", value, ["PPM", f"{scale} scale", "Mean IoU"],
                unit=None) for scale, value in (("single", 38.12), ("multi", 38.97))]
ROWSPAN = """\
<table><tbody>
    <th>Architecture</th><th>Testing</th><th>Mean IoU</th><th>Inference Speed(fps)</th>
    <tr>
        <td rowspan="2">ResNet + PPM</td>
        <td>single scale</td><td>38.12</td><td>11.7</td>
    </tr>
    <tr>
        <td>multi scale</td><td>38.97</td><td>4.2</td>
    </tr>
</tbody></table>
"""


def test_an_html_rowspan_cell_names_every_row_it_spans(tmp_path):
    (table,) = [block for block in markdown_blocks(ROWSPAN) if isinstance(block, Table)]
    assert [[cell.text for cell in row] for row in table.rows] == [
        ["ResNet + PPM", "single scale", "38.12", "11.7"],
        ["ResNet + PPM", "multi scale", "38.97", "4.2"]]
    drifted = run(tmp_path, SCALES, ROWSPAN.replace("38.97", "38.99"))
    assert found(drifted) == {("ppm_multi", 8, "38.99")}


BASES = [claim("arxiv", name, "accuracy", value, [label, "base accuracy"])
         for name, label, value in (("gat", "GAT", 73.56), ("linear", "Linear", 70.11))] + [
    claim("arxiv", "gat_cs", "accuracy", 73.86, ["GAT + C&S"], unit=None)]
HEADINGS = """\
## Arxiv

### Linear + C&S (15400 params, 70.11% base accuracy)

### GAT + C&S (1567000 params, 73.56% base accuracy)
"""


def test_a_heading_with_a_percentage_is_read_and_a_name_inside_a_longer_one_tells_its_run(
        tmp_path):
    # the base accuracy under ``GAT + C&S``: GAT's, named inside the longer name
    clean = run(tmp_path, BASES, HEADINGS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("linear", 3, "70.11%"), ("gat", 5, "73.56%")}
    drifted = run(tmp_path, BASES, HEADINGS.replace("73.56%", "73.59%"))
    assert found(drifted) == {("gat", 5, "73.59%")}


DECODING = [claim("librispeech", "rescoring", "wer", 2.19, ["attention rescoring",
                                                            "Conformer Result"], unit=None)]
WEIGHTS = """\
## Conformer Result

* Decoding info: ctc_weight 0.3, reverse weight 0.5, average_num 30

| decoding mode | test clean |
|---|---|
| attention rescoring | 2.19 |
"""


def test_a_weight_set_to_a_number_is_a_setting_not_a_result(tmp_path):
    report = run(tmp_path, DECODING, WEIGHTS)
    assert report["drift"] == [] and report["unmapped"] == []
    assert found(report, "matched") == {("rescoring", 7, "2.19")}


RANKING = [claim(data.lower().replace(" ", "_"), system, f"ndcg_at_{k}", value,
                 [label, data, f"NDCG\\ :sub:`{k}`"], unit=None)
           for data, system, label, k, value in (
               ("Yahoo LTR", "xgboost_hist", "xgboost\\_hist", 1, 0.720049),
               ("Yahoo LTR", "xgboost_hist", "xgboost\\_hist", 3, 0.722573),
               ("MS LTR", "xgboost_hist", "xgboost\\_hist", 1, 0.485115))]
PARTIAL_BORDERS = """\
+-----------+-----------------+-------------------+
| Data      | Metric          | xgboost\\_hist     |
+===========+=================+===================+
| Yahoo LTR | NDCG\\ :sub:`1`  | 0.720049          |
|           +-----------------+-------------------+
|           | NDCG\\ :sub:`3`  | 0.722573          |
+-----------+-----------------+-------------------+
| MS LTR    | NDCG\\ :sub:`1`  | 0.485115          |
+-----------+-----------------+-------------------+
"""


def test_a_rest_border_across_some_columns_ends_their_rows_and_escapes_read_as_rendered(tmp_path):
    (table,) = [block for block in rst_blocks(PARTIAL_BORDERS) if isinstance(block, Table)]
    assert table.header == ["Data", "Metric", "xgboost_hist"]
    assert [[cell.text for cell in row] for row in table.rows] == [
        ["Yahoo LTR", "NDCG1", "0.720049"], ["Yahoo LTR", "NDCG3", "0.722573"],
        ["MS LTR", "NDCG1", "0.485115"]]
    clean = run(tmp_path, RANKING, PARTIAL_BORDERS, "results.rst")
    assert clean["drift"] == [] and len(clean["matched"]) == 3
    drifted = run(tmp_path, RANKING, PARTIAL_BORDERS.replace("0.722573", "0.722577"),
                  "results.rst")
    assert {(item["claim"], item["line"]) for item in drifted["drift"]} == {
        ("yahoo_ltr/xgboost_hist/ndcg_at_3/test", 6)}


CAPTIONING = [claim("coco", variant, "cider", value, aliases, unit=None)
              for variant, value, aliases in (
                  ("updown", 1.099, ["UpDown"]),
                  ("updown_sc", 1.227, ["UpDown +self_critical", "UpDown", "self_critical"]),
                  ("transformer", 1.126, ["Transformer"]),
                  ("transformer_step", 1.150, ["Transformer(warmup+step decay)"]))]
NOTES = """\
| Name | CIDEr | Note |
|---|---|---|
| UpDown | 1.099 | My replication |
| UpDown +self_critical | 1.227 | |
| Transformer | 1.126 | |
| Transformer(warmup+step decay) | 1.150 | Although this schedule is better, the final self \
critical results are similar. |
"""


def test_a_note_beside_a_row_neither_names_it_nor_the_rows_below(tmp_path):
    # the sentence names ``self critical``: not the row's run; ``My replication`` is the
    # project's own run, no other system's, and not a note of the rows below it
    clean = run(tmp_path, CAPTIONING, NOTES)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {variant for variant, _, _ in found(clean, "matched")} == {
        "updown", "updown_sc", "transformer", "transformer_step"}
    drifted = run(tmp_path, CAPTIONING, NOTES.replace("1.150", "1.153").replace("1.099", "1.097"))
    assert found(drifted) == {("transformer_step", 6, "1.153"), ("updown", 3, "1.097")}


RUNS = [claim("cifar10", variant, "test_error", value, [name, "Test Error", runs], n=n,
              unit=None)
        for variant, name, value, runs, n in (
            ("resnet110", "ResNet-110", 6.52, "median of 3 runs", 3),
            ("densenet100", "DenseNet-100 (k=12)", 3.87, "1 run", 1))] + [
    claim("kmnist", "preact20", "test_error", 0.82, ["ResNet-preact-20", "median of 3 runs"],
          n=3, unit=None),
    claim("kmnist", "preact20", "best_test_error", 0.67, ["ResNet-preact-20", "best"],
          unit=None)]
POINTS = """\
## CIFAR-10

| Model | Test Error (median of 3 runs) | Training Time |
|:---|:---:|---:|
| ResNet-110 | 6.52 | 3h06m |
| DenseNet-100 (k=12) | 3.87 (1 run) | 24h28m |

## Kuzushiji-MNIST

| Model | Test Error (median of 3 runs) | # of Epochs |
|:---|:---:|---:|
| ResNet-preact-20 | 0.82 (best 0.67) | 200 |
"""


def test_a_cells_own_run_count_beats_its_headers_and_a_named_parenthesis_is_its_own(tmp_path):
    # ``(1 run)``: that cell's run, not the header's median; ``0.82 (best 0.67)``: the median
    # then the best, a column of numbers and not of names
    clean = run(tmp_path, RUNS, POINTS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {("resnet110", 5, "6.52"), ("densenet100", 6, "3.87"),
            ("preact20", 12, "0.82")} <= found(clean, "matched")
    drifted = run(tmp_path, RUNS, POINTS.replace("3.87", "3.84").replace("0.82", "0.85"))
    assert found(drifted) == {("densenet100", 6, "3.84"), ("preact20", 12, "0.85")}


CALLS = [claim("branin", method, "mean_f_calls", mean, [method, "Mean f_calls to min",
                                                         "Std f_calls to min"],
               variance={"type": "std", "value": spread}, unit=None)
         for method, mean, spread in (("gp_minimize", 33.1, 5.7), ("gbrt_minimize", 110.5, 49.81))]
SPREAD_ALIAS = """\
| Method | Mean f_calls to min | Std f_calls to min |
|---|---|---|
| gp_minimize | 33.1 | 5.7 |
| gbrt_minimize | 110.5 | 49.810 |
"""


def test_an_alias_holding_a_spreads_word_heads_the_spread_column(tmp_path):
    clean = run(tmp_path, CALLS, SPREAD_ALIAS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, CALLS, SPREAD_ALIAS.replace("49.810", "49.830"))
    assert [(item["claim"].split("/")[1], item["line"]) for item in drifted["drift"]] == [
        ("gbrt_minimize", 4)]


RETURNS = [claim(env.lower(), "sac", "final_return", value, [env, "PFRL Score"], unit=None)
           for env, value in (("Hopper-v2", 3279.25), ("Humanoid-v2", 7939.08))]
BUDGETS = """\
## Results

During each trial, the agent is trained for 1M (Hopper-v2) or 10M (Humanoid-v2) timesteps.

| Environment | PFRL Score |
|---|---|
| Hopper-v2 | 3279.25 |
| Humanoid-v2 | 7939.08 |
"""


def test_millions_whose_list_ends_on_what_they_count_are_no_results(tmp_path):
    report = run(tmp_path, RETURNS, BUDGETS)
    assert report["drift"] == [] and report["unmapped"] == []
    assert len(report["matched"]) == 2


FOLDERS = {"ddpg": 10262.97, "td3": 10248.51}
BY_FOLDER = [claim("halfcheetah", agent, "max_return", value, [agent.upper(), "HalfCheetah-v2",
                                                               "PFRL Score"], unit=None)
             for agent, value in FOLDERS.items()]


def test_a_documents_folder_names_its_run_when_an_evidence_name_names_it(tmp_path):
    documents = []
    for agent, value in FOLDERS.items():
        (tmp_path / "reproduction" / agent).mkdir(parents=True)
        path = tmp_path / "reproduction" / agent / "README.md"
        shown = value + 0.02 if agent == "td3" else value
        path.write_text(f"## Results\n\n| Environment | PFRL Score |\n|---|---|\n"
                        f"| HalfCheetah-v2 | {shown:.2f} |\n", encoding="utf-8")
        documents.append(path)
    report = reconcile(BY_FOLDER, documents, {}, "EVIDENCE.json")
    assert [(item["claim"], item["found"]) for item in report["drift"]] == [
        ("halfcheetah/td3/max_return/test", "10248.53")]
    assert [item["claim"] for item in report["matched"]] == ["halfcheetah/ddpg/max_return/test"]


TWO_METRICS = [claim("cityscapes", "original", metric, value, ["Original", "Cityscapes", name],
                     unit=None)
               for metric, name, value in (("fid", "FID", 57.60), ("miou", "mIoU", 61.04))]
HEAD_ROWS = """\
<table>
<thead>
  <tr><th rowspan="2">Dataset</th><th rowspan="2">Method</th><th colspan="2">Metric</th></tr>
  <tr><td>FID</td><td>mIoU</td></tr>
</thead>
<tbody>
  <tr><td>Cityscapes</td><td>Original</td><td>57.60</td><td>61.04</td></tr>
</tbody>
</table>
"""


def test_a_header_rowspan_and_a_theads_cells_head_their_columns(tmp_path):
    (table,) = [block for block in markdown_blocks(HEAD_ROWS) if isinstance(block, Table)]
    assert table.header == ["Dataset", "Method", "Metric FID", "Metric mIoU"]
    drifted = run(tmp_path, TWO_METRICS, HEAD_ROWS.replace("61.04", "61.07"))
    assert found(drifted) == {("original", 7, "61.07")}


INFILLING = [claim(data, model, "ppl", value, [f"\\{model}{{}}", f"\\{data}{{}}"], unit=None,
                   direction="lower")
             for model, data, value in (("lm", "sto", 17.6), ("ilm", "sto", 18.1),
                                        ("lm", "abs", 25.7), ("ilm", "abs", 23.9))]
MACROS = r"""
\begin{table}
  \begin{tabular}{lcc}
    \toprule
    & \sto{} & \abs{} \\
    \midrule
    \lm{} & 17.6 & 25.7 \\
    \ilm{} & 18.1 & 23.9 \\
    \bottomrule
  \end{tabular}
  \caption{Document infilling PPL.}
\end{table}
"""


def test_a_papers_own_macro_with_empty_braces_reads_as_its_name(tmp_path):
    clean = run(tmp_path, INFILLING, MACROS, "paper.tex")
    assert clean["drift"] == [] and len(clean["matched"]) == 4
    drifted = run(tmp_path, INFILLING, MACROS.replace("23.9", "23.6"), "paper.tex")
    assert found(drifted) == {("ilm", 8, "23.6")}


CHECKPOINTS = [claim("kinetics", variant, "accuracy", value, [*names, "Kinetics Acc."])
               for variant, names, value in (("tsn", ["TSN ResNet50 (2D)", "TSN"], 70.6),
                                             ("tsm", ["TSM ResNet50", "TSM"], 74.1))]
DOWNLOADS = """\
| model | Kinetics Acc. | checkpoint |
|---|---|---|
| TSN ResNet50 (2D) | 70.6% | [link](https://x.org/TSM_kinetics_RGB_resnet50_avg_segment5_e50.pth) |
| TSM ResNet50 | 74.1% | [link](https://x.org/TSM_kinetics_RGB_resnet50_shift8_e100.pth) |
"""


def test_a_bare_link_to_a_download_names_no_run(tmp_path):
    # the weights' file names hold the other rows' names (``TSM``): they name nothing
    drifted = run(tmp_path, CHECKPOINTS, DOWNLOADS.replace("70.6%", "70.2%"))
    assert found(drifted) == {("tsn", 3, "70.2%")}
    assert found(drifted, "matched") == {("tsm", 4, "74.1%")}


LABELLED = [claim(f"cifar10_{count}", "uda", "accuracy", value, ["UDA", "UDA accuracy", str(count)],
                  variance={"type": "std", "value": spread})
            for count, value, spread in ((4000, 95.68, 0.08), (2000, 95.27, 0.14))]
COMMENTED = """\
### CIFAR-10 with 2000 and 4000 examples

```shell
# UDA accuracy:
# 4000: 95.68 +- 0.08
# 2000: 95.27 +- 0.14
bash scripts/run_cifar10_gpu.sh --aug_copy=${AUG_COPY}
# run it with --lr 0.03 for the 4000 run
```
"""


def test_comment_lines_a_comment_introduces_in_code_are_read_as_output(tmp_path):
    clean = run(tmp_path, LABELLED, COMMENTED)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(variant, line) for variant, line, _ in found(clean, "matched")} == {
        ("uda", 5), ("uda", 6)}
    drifted = run(tmp_path, LABELLED, COMMENTED.replace("95.27", "95.24"))
    assert found(drifted) == {("uda", 6, "95.24")}


GRAPH_LSTMS = [claim("moving_mnist", f"gcnn_k{k}", "cross_entropy", value,
                     ["LSTM+GCNN", f"$K={k}$", "Test(w/o Rot)", "Test cross-entropies"],
                     unit=None, direction="lower")
               for k, value in ((3, 3866), (5, 3495))]
SETTINGS = r"""
\begin{table}
  \begin{tabular}{lcccc}
    \toprule
    Architecture & Structure & Filter size & Runtime & Test(w/o Rot) \\%& Gap\\
    \midrule
    LSTM+GCNN & $knn=8$ & $K=3$ & 0.82 & 3866 \\%& 501 \\
    LSTM+GCNN & $knn=8$ & $K=5$ & 1.24 & 3495 \\%& 437 \\
    \bottomrule
  \end{tabular}
  \caption{Runtime is the time spent per mini-batch. Test cross-entropies on moving MNIST.}
\end{table}
"""


def test_columns_of_settings_name_the_rows_and_a_comment_after_a_line_break_is_one(tmp_path):
    # ``K=3`` / ``K=5`` tell the rows apart; ``\\%& 501`` is commented out; the caption names
    # the runtime too, but the integers under ``Test(w/o Rot)`` are the cross-entropies
    clean = run(tmp_path, GRAPH_LSTMS, SETTINGS, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("gcnn_k3", 7, "3866"), ("gcnn_k5", 8, "3495")}
    drifted = run(tmp_path, GRAPH_LSTMS, SETTINGS.replace("3495", "3498"), "paper.tex")
    assert found(drifted) == {("gcnn_k5", 8, "3498")}


PRETRAINED = [claim("imagenet", variant, "top1", value, ["SwAV", "ImageNet top-1 acc."])
              for variant, value in (("swav_200ep", 73.9), ("swav_200ep_bs256", 72.7),
                                     ("swav_400ep_bs256", 74.3))]
SCRIPTS_TABLE = """\
| method | epochs | batch-size | ImageNet top-1 acc. | args |
|---|---|---|---|---|
| SwAV | 200 | 4096 | 73.9 | [script](./scripts/swav_200ep_pretrain.sh) |
| SwAV | 200 | 256 | 72.7 | [script](./scripts/swav_200ep_bs256_pretrain.sh) |
| SwAV | 400 | 256 | 74.3 | [script](./scripts/swav_400ep_bs256_pretrain.sh) |
"""


def test_a_scripts_link_names_its_row_by_the_file_it_runs(tmp_path):
    (table,) = [block for block in markdown_blocks(SCRIPTS_TABLE) if isinstance(block, Table)]
    assert table.rows[1][4].text == "swav_200ep_bs256_pretrain.sh"
    drifted = run(tmp_path, PRETRAINED, SCRIPTS_TABLE.replace("72.7", "72.9"))
    assert found(drifted) == {("swav_200ep_bs256", 4, "72.9")}
    assert {variant for variant, _, _ in found(drifted, "matched")} == {
        "swav_200ep", "swav_400ep_bs256"}


TRIALS = [claim(env.lower(), agent, metric, value, [env, "PFRL Score"], n=10, unit=None)
          for agent, metric, env, value in (("sac", "final_return", "Hopper-v2", 3279.25),
                                            ("ddpg", "max_return", "Hopper-v2", 3521.07),
                                            ("sac", "final_return", "Ant-v2", 5953.15))]
BASED_ON = """\
## Results

PFRL scores are based on 10 trials using different random seeds, using the following command.

| Environment | PFRL Score |
|---|---|
| Hopper-v2 | 3279.25 |
| Ant-v2 | 5953.15 |
"""


def test_scores_based_on_n_trials_give_every_claim_its_run_count(tmp_path):
    assert run(tmp_path, TRIALS, BASED_ON)["drift"] == []
    drifted = run(tmp_path, TRIALS, BASED_ON.replace("10 trials", "12 trials"))
    assert {(item["line"], item["found"]) for item in drifted["drift"]} == {(3, "12 trials")}


PRUNED = [claim("cifar10", "group_l1", "accuracy", 92.93, ["Ours-L1", "Pruned (%)"]),
          claim("cifar10", "group_l1-vs-base", "accuracy", -0.60, ["Ours-L1", "$\\Delta$ Acc (%)"],
                baseline="base", candidate="group_l1", difference=-0.60)]
MATH_HEADER = """\
| Method | Pruned (%) | $\\Delta$ Acc (%) |
|:-- |:--: |:--: |
| Ours-L1 | 92.93 | -0.60 |
"""


def test_inline_math_in_markdown_reads_as_it_renders(tmp_path):
    # ``$\\Delta$ Acc (%)`` is the alias ``$\\Delta$ Acc (%)``: the difference's column
    assert run(tmp_path, PRUNED, MATH_HEADER)["drift"] == []
    drifted = run(tmp_path, PRUNED, MATH_HEADER.replace("-0.60", "-0.63"))
    assert found(drifted) == {("group_l1-vs-base", 3, "-0.63")}


FOLDED = [claim("mnist", model, "nmse", value, [name], n=10, unit=None)
          for model, name, value in (("gp", "GP", 0.812), ("arc_gp", "arc GP", 0.421))]
FOLDS = r"""
\section{Experiments}
We compare the GP to the arc GP. The results are averaged over $10$-fold train/test splits.
The GP reaches $0.812$ and the arc GP $0.421$; a 2-fold improvement.
"""


def test_k_fold_train_test_splits_count_the_runs_of_every_claim(tmp_path):
    # ``train/test`` names the protocol, not the training split; ``2-fold`` counts no runs
    assert run(tmp_path, FOLDED, FOLDS, "paper.tex")["drift"] == []
    drifted = run(tmp_path, FOLDED, FOLDS.replace("$10$-fold", "$12$-fold"), "paper.tex")
    assert {(item["line"], item["found"]) for item in drifted["drift"]} == {(3, "12-fold")}


DEPTH = [claim("kitti", f"{mode}_640x192", "abs_rel", value, [f"{mode}_640x192", "KITTI",
               "KITTI abs. rel. error"], unit=None)
         for mode, value in (("mono", 0.115), ("stereo", 0.109))]
TRAINING_SETTINGS = """\
| `--model_name` | Training modality | KITTI abs. rel. error |
|---|---|---|
| `mono_640x192` | Mono | 0.115 |
| `stereo_640x192` | Stereo | 0.109 |
"""


def test_a_header_of_a_training_setting_names_no_training_split(tmp_path):
    # ``Training modality`` is how the model was trained; the scores are the test claims'
    assert len(found(run(tmp_path, DEPTH, TRAINING_SETTINGS), "matched")) == 2
    drifted = run(tmp_path, DEPTH, TRAINING_SETTINGS.replace("0.109", "0.119"))
    assert found(drifted) == {("stereo_640x192", 4, "0.119")}


REPORTED = [claim(f"ner_{label.lower()}", "bert", metric, value, [label, name, "BERT"],
                  unit=None)
            for label, metric, name, value in (
                ("PER", "precision", "precision", 0.9677), ("PER", "f1", "f1-score", 0.9711),
                ("LOC", "recall", "recall", 0.9711), ("accuracy", "f1", "f1-score", 0.60))]
CLASSIFICATION_REPORT = """\
## BERT

```
             precision    recall  f1-score   support

        PER     0.9677    0.9745    0.9711      1842
        LOC     0.9654    0.9711    0.9682      1837

avg / total     0.9456    0.9534    0.9495      5942
```

```
              precision    recall  f1-score   support

           0       0.50      1.00      0.67         1
    accuracy                           0.60         5
   macro avg       0.50      0.56      0.49         5
```

```
python train.py --lr  0.1
  --epochs  10
```
"""


def test_a_printed_classification_report_is_a_table_its_columns_lined_up(tmp_path):
    # each number is under the name it lines up with: the accuracy row's one score is f1-score's
    tables = [block for block in markdown_blocks(CLASSIFICATION_REPORT) if isinstance(block, Table)]
    # a row a class's number names is no claim's: not read
    assert [[cell.text for cell in row] for row in tables[1].rows] == [
        ["accuracy", "", "", "0.60", "5"], ["macro avg", "0.50", "0.56", "0.49", "5"]]
    assert len(tables) == 2  # the command's flags are code, not a table
    clean = run(tmp_path, REPORTED, CLASSIFICATION_REPORT)
    assert clean["drift"] == [] and clean["unmapped"] == [] and len(found(clean, "matched")) == 4
    drifted = run(tmp_path, REPORTED, CLASSIFICATION_REPORT.replace(
        "0.9711      1842", "0.9713      1842").replace("0.60 ", "0.62 "))
    assert found(drifted) == {("bert", 6, "0.9713"), ("bert", 16, "0.62")}


EMBEDDINGS = [claim(dataset.lower(), "rotate", metric, value, ["RotatE", dataset, name],
                    unit=None, **extra)
              for dataset, metric, name, value, extra in (
                  ("FB15k", "mrr", "MRR", 0.797, {"variance": {"type": "std", "value": 0.001}}),
                  ("WN18", "mrr", "MRR", 0.949, {"variance": {"type": "std", "value": 0.0}}),
                  ("FB15k", "mr", "MR", 40, {"direction": "lower"}),
                  ("WN18", "mr", "MR", 309, {"direction": "lower"}))]
METRIC_ROWS = """\
**Results of the RotatE model**

| Dataset | FB15k | WN18 |
|---|---|---|
| MRR | .797 ± .001 | .949 ± .000 |
| MR | 40 | 309 |
"""


def test_fractions_without_their_zero_and_integers_a_row_names_the_metric_of_are_read(tmp_path):
    # ``.797`` is 0.797; ``MR`` names the integers' metric, and each column pins one claim
    clean = run(tmp_path, EMBEDDINGS, METRIC_ROWS)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 6
    drifted = run(tmp_path, EMBEDDINGS, METRIC_ROWS.replace(".949", ".951").replace("309", "311"))
    assert found(drifted) == {("rotate", 5, ".951"), ("rotate", 6, "311")}


DETECTORS = [claim(f"coco_{size}", "yolov3", "map_at_0.5", value, ["YOLOv3", str(size), "mAP@0.5"])
             for size, value in ((320, 51.8), (416, 55.4))]
REPORTED_BESIDE = """\
- `test.py --weights weights/best.pt` tests best checkpoint.

[yolov3](https://github.com/u/y) mAP@0.5 ([darknet](https://arxiv.org/abs/1)-reported mAP@0.5)

<i></i>         | 320         | 416
---             | ---         | ---
`YOLOv3`        | 51.8 (51.5) | 55.4 (55.3)
"""


def test_a_title_saying_the_parentheses_hold_anothers_numbers_leaves_them_out(tmp_path):
    # the line above the table titles it; its ``(darknet-reported …)`` says whose ``(51.5)`` is
    clean = run(tmp_path, DETECTORS, REPORTED_BESIDE)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 2
    drifted = run(tmp_path, DETECTORS, REPORTED_BESIDE.replace("55.4 (", "55.7 ("))
    assert found(drifted) == {("yolov3", 7, "55.7")}


SPARSE = [claim("wmt16", "sparse_90", "bleu", 28.4, ["Sparse", "GNMT", "BLEU"], unit=None)]
SPARSITY_PROSE = """\
We provide pre-trained checkpoints for a 90% sparse GNMT model. The sparse model reaches
28.4 BLEU.
"""


def test_a_number_right_before_a_runs_name_is_its_setting(tmp_path):
    # ``90% sparse`` says how sparse the run is; its BLEU is the claim
    clean = run(tmp_path, SPARSE, SPARSITY_PROSE)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 1
    drifted = run(tmp_path, SPARSE, SPARSITY_PROSE.replace("28.4", "28.1"))
    assert found(drifted) == {("sparse_90", 2, "28.1")}


RELEASED_WEIGHTS = [claim("imagenet", name, "top1_accuracy", value, [name, "CSATv2", "top-1"])
                    for name, value in (("csatv2_21m.sw_r512_in1k", 82.58),
                                        ("csatv2_21m.sw_r640_in1k", 83.13))]
RELEASE_NOTES = """\
* Add a ~21M param `timm` variant of the CSATv2 model at 512x512 & 640x640
  * `csatv2_21m.sw_r640_in1k` - 83.13% top-1
  * `csatv2_21m.sw_r512_in1k` - 82.58% top-1
"""


def test_a_dotted_model_name_in_code_is_a_name_and_a_param_count_no_result(tmp_path):
    # `csatv2_21m.sw_r512_in1k` is a name (not a file: no file's suffix); ``21M param`` a count
    clean = run(tmp_path, RELEASED_WEIGHTS, RELEASE_NOTES)
    assert clean["drift"] == [] and clean["unmapped"] == [] and len(found(clean, "matched")) == 2
    drifted = run(tmp_path, RELEASED_WEIGHTS, RELEASE_NOTES.replace("82.58", "82.61"))
    assert found(drifted) == {("csatv2_21m.sw_r512_in1k", 3, "82.61%")}
    assert drifted["unmapped"] == []


RETRIEVERS = [claim(f"beir_{dataset.lower()}", "contriever", "ndcg_at_10", value,
                    ["Contriever", dataset, "nDCG@10"])
              for dataset, value in (("FiQA", 24.5), ("ArguAna", 24.9))]
PLAIN_CELLS = """\
<table>
  <tr>
    <td></td>
    <td colspan="2">BEIR</td>
  </tr>
  <tr>
    <td>nDCG@10</td>
    <td>FiQA</td>
    <td>ArguAna</td>
  </tr>
  <tr>
    <td>Contriever</td>
    <td>24.5</td>
    <td>24.9</td>
  </tr>
</table>
"""


def test_an_html_tables_first_rows_of_names_over_numbers_are_its_header(tmp_path):
    # no <th>: the rows of names over the rows of numbers are what the columns are (the value,
    # as far from either claim, does not tell)
    assert len(found(run(tmp_path, RETRIEVERS, PLAIN_CELLS), "matched")) == 2
    drifted = run(tmp_path, RETRIEVERS, PLAIN_CELLS.replace("24.9", "24.7"))
    assert found(drifted) == {("contriever", 14, "24.7")} and drifted["unmapped"] == []


SIZED = [claim(f"airline_{size.lower()}", tool.lower(), "auc", value, [tool, size, "AUC"])
         for tool, size, value in (("R", "10K", 66.7), ("R", "1M", 71.1), ("Python", "10K", 67.6),
                                   ("Python", "1M", 71.0))]
DITTO_ROWS = """\
Tool    | *n*  |   Time (sec)  | AUC
--------|------|---------------|--------
R       | 10K  |      0.1      | 66.7
.       | 1M   |      5        | 71.1
Python  | 10K  |      0.2      | 67.6
.       | 1M   |       25      | 71.0
"""


def test_a_ditto_mark_names_a_row_as_the_one_above_and_a_column_of_sizes_names_rows(tmp_path):
    # ``.`` under ``R`` is R again; ``n`` (``10K``, ``1M``) says how much data each row had
    clean = run(tmp_path, SIZED, DITTO_ROWS)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 4
    drifted = run(tmp_path, SIZED, DITTO_ROWS.replace("71.1", "71.3"))
    assert found(drifted) == {("r", 4, "71.3")} and drifted["unmapped"] == []


GATED = [claim("mnist", model, "accuracy", value, [name, "MNIST", "SGD"],
               variance={"type": "std", "value": spread})
         for model, name, value, spread in (("dnpfl", "DNPFL", 97.86, 0.11),
                                            ("relu", "ReLU", 97.85, 0.09))]
GENERALISATION = r"""
In the case of SGD, we tried constant step-sizes in the set $\{0.1,0.01,0.001\}$ and chose the best.
\begin{table}
\begin{tabular}{|c|c|c|}\hline
Dataset &DNPFL &ReLU\\\hline
MNIST &$97.86\pm0.11$ &$97.85\pm0.09$\\\hline
\end{tabular}
\caption{Shows the training and generalisation performance of various NPFs.}
\end{table}
"""


def test_generalisation_names_the_test_split_and_step_sizes_are_settings(tmp_path):
    # the caption names both splits: the test claims are among them; the step sizes are no
    # result of SGD's
    clean = run(tmp_path, GATED, GENERALISATION, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == [] and len(found(clean, "matched")) == 4
    drifted = run(tmp_path, GATED, GENERALISATION.replace("97.85", "97.88"), "paper.tex")
    assert found(drifted) == {("relu", 6, "97.88")}


NORMS = [claim(dataset.lower(), norm, metric, value, [name, dataset, label], unit=None)
         for dataset, norm, name, metric, label, value in (
             ("Beauty", "pre_ln", "Pre-LN", "ndcg_at_10", "NDCG@10", 0.3193),
             ("Beauty", "post_ln", "Post-LN", "ndcg_at_10", "NDCG@10", 0.3146),
             ("Beauty", "pre_ln", "Pre-LN", "hr_at_10", "HR@10", 0.4784),
             ("Beauty", "post_ln", "Post-LN", "hr_at_10", "HR@10", 0.4696))]
BOLD_TITLES = """\
**NDCG@10 Results.**

| Norm Type | Beauty |
| --- | :---: |
| Pre-LN | **0.3193** |
| Post-LN | 0.3146 |

**HR@10 Results.**

| Norm Type | Beauty |
| --- | :---: |
| Pre-LN | **0.4784** |
| Post-LN | 0.4696 |
"""


def test_a_bold_line_above_a_table_titles_it(tmp_path):
    # ``**NDCG@10 Results.**`` says which metric the table below holds
    clean = run(tmp_path, NORMS, BOLD_TITLES)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 4
    drifted = run(tmp_path, NORMS, BOLD_TITLES.replace("0.4696", "0.4699"))
    assert found(drifted) == {("post_ln", 13, "0.4699")}


PARSERS = [claim("merged_ud", model, "pos_accuracy", value, [name, "Merged UD, POS Acc."])
           for model, name, value in (("md", "tl\\_calamancy\\_md", 96.70),
                                      ("lg", "tl\\_calamancy\\_lg", 97.20))]
CROSS_VALIDATED = r"""
\begin{table}
\begin{tabular}{ll}
\toprule
\textbf{Model} & Merged UD, POS Acc. \\ \midrule
tl\_calamancy\_md & 96.70 \\
tl\_calamancy\_lg & 97.20 \\
\bottomrule
\end{tabular}
\caption{Benchmark scores. We conducted 10-fold cross-validation for dependency parsing.}
\end{table}
"""


def test_cross_validation_names_a_protocol_not_the_validation_split(tmp_path):
    clean = run(tmp_path, PARSERS, CROSS_VALIDATED, "paper.tex")
    assert clean["drift"] == [] and len(found(clean, "matched")) == 2
    drifted = run(tmp_path, PARSERS, CROSS_VALIDATED.replace("97.20", "97.10"), "paper.tex")
    assert found(drifted) == {("lg", 7, "97.10")}


COCO_NAMES = {
    "ap": "Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ]",
    "ap_small": "Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ]",
    "ar_1": "Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ]"}
EVALUATED = [claim(f"coco_{size}", "yolov3_spp", metric, value, [f"--img-size {size}", name],
                   unit=None)
             for size, metric, name, value in (
                 *((608, metric, name, value) for (metric, name), value in
                   zip(COCO_NAMES.items(), (0.367, 0.208, 0.297), strict=True)),
                 (608, "precision", "P", 0.119), (608, "map", "mAP", 0.594),
                 (416, "ap", COCO_NAMES["ap"], 0.373))]
COCO_OUTPUT = """\
```bash
$ python3 test.py --save-json --img-size 608
Using CUDA device0 _CudaDeviceProperties(name='Tesla T4', total_memory=15079MB)
                Class    Images   Targets         P         R       mAP
                  all     5e+03  3.58e+04     0.119     0.788     0.594
 Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.367 <---
 Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.208
 Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=  1 ] = 0.297

$ python3 test.py --save-json --img-size 416
 Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.373
```
"""


def test_cocos_evaluation_summary_is_a_table_of_the_run_its_command_names(tmp_path):
    # each summary line is a row its description names; the command above says which run
    clean = run(tmp_path, EVALUATED, COCO_OUTPUT)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(found(clean, "matched")) == 6
    drifted = run(tmp_path, EVALUATED, COCO_OUTPUT.replace("0.208", "0.211")
                  .replace("0.594", "0.597").replace("0.373", "0.376"))
    assert found(drifted) == {("yolov3_spp", 5, "0.597"), ("yolov3_spp", 7, "0.211"),
                              ("yolov3_spp", 11, "0.376")}


QUANTIZED = [claim(task.lower(), model, "f1", value, [name, task, "F1"], unit=None)
             for task, model, name, value in (("MRPC", "bert", "BERT baseline", 90.0),
                                              ("MRPC", "bert_q8", "Quantized BERT 8bit", 89.56))]
METHOD_HEADING = """\
# Quantize BERT with Quantization Aware Training

| Task | Metric | BERT baseline | Quantized BERT 8bit |
|---|---|---|---|
| MRPC | F1 | 90 | 89.56 |
"""


def test_a_heading_closing_on_a_way_of_training_names_no_training_split(tmp_path):
    # ``Quantization Aware Training`` is a method; the table's scores are the test claims'
    clean = run(tmp_path, QUANTIZED, METHOD_HEADING)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 2
    drifted = run(tmp_path, QUANTIZED, METHOD_HEADING.replace("89.56", "89.51"))
    assert found(drifted) == {("bert_q8", 5, "89.51")}


KERNELS = [claim("cardiac", kernel, "error", value, [name, "Misclassification rate (\\%)"],
                 direction="lower", n=100, variance={"type": "std", "value": spread})
           for kernel, name, value, spread in (("linear", "Linear", 35.52, 0.44),
                                               ("se", "Smooth (SE-1.0)", 48.26, 0.40))] + [
    claim("smoking", "iprior", "log_odds_ratio", 0.51, ["I-prior", "log odds ratio"], unit=None)]
SPREADS_UNNAMED = r"""
\begin{table}
\begin{tabular}{l r}
\toprule
Method & Misclassification rate (\%) \\
\midrule
Linear & 35.52 (0.44) \\
Smooth (SE-1.0) & 48.26 (0.40) \\
\bottomrule
\end{tabular}
\end{table}
The I-prior log odds ratio has been calculated as $0.51 \approx \log 1.66$.
"""


def test_a_small_number_in_parentheses_is_the_values_spread(tmp_path):
    # ``35.52 (0.44)``: the spread, not a second value; ``SE-1.0`` is a kernel, not a
    # standard error; ``\log 1.66`` is a function's argument
    clean = run(tmp_path, KERNELS, SPREADS_UNNAMED, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(found(clean, "matched")) == 5
    drifted = run(tmp_path, KERNELS, SPREADS_UNNAMED.replace("(0.40)", "(0.43)"), "paper.tex")
    assert {(item["line"], item["found"]) for item in drifted["drift"]} == {(8, "± 0.43")}


FEATURES = [claim("gtzan", variant, "accuracy", value, [name, "classification accuracy"],
                  n=20, variance={"type": "std", "value": spread})
            for variant, name, value, spread in (("cqt", "CQT spectrograms", 96, 4.7),
                                                 ("raw", "raw audio", 89, 5.0))]
REPEATED_FOLDS = r"""
The accuracy was measured by 10-fold cross-validation. This procedure was repeated 20 times,
and the results averaged. The system achieved a classification accuracy of 96 (+/- 4.7) using
the CQT spectrograms, whereas classification with raw audio yielded an accuracy of 89 (+/- 5.0).
"""


def test_a_spreads_parenthesis_does_not_end_its_clause_and_k_fold_cv_counts_no_runs(tmp_path):
    # ``using the CQT spectrograms`` is the 96's; ``10-fold cross-validation`` repeated 20 times
    # is 20 runs' protocol, not a count of 10
    clean = run(tmp_path, FEATURES, REPEATED_FOLDS, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, FEATURES, REPEATED_FOLDS.replace("of 96", "of 94"), "paper.tex")
    assert found(drifted) == {("cqt", 3, "94")}


ZOO = [claim(dataset.lower(), "timesformer", metric, value, ["TimeSformer", dataset, name])
       for dataset, metric, name, value in (("K400", "top1", "acc@1", 77.9),
                                            ("K600", "top1", "acc@1", 79.1))]
DATASET_COLUMN = """\
| name | dataset | # of frames | acc@1 |
| --- | --- | --- | --- |
| TimeSformer | K400 | 8 | 77.9 |
| TimeSformer | K600 | 8 | 79.1 |
"""


def test_a_column_of_names_with_digits_names_the_rows(tmp_path):
    # ``K400`` is a dataset's name, not 400 thousand: its column tells the rows apart
    clean = run(tmp_path, ZOO, DATASET_COLUMN)
    assert clean["drift"] == [] and len(found(clean, "matched")) == 2
    drifted = run(tmp_path, ZOO, DATASET_COLUMN.replace("77.9", "78.5"))
    assert found(drifted) == {("timesformer", 3, "78.5")} and drifted["unmapped"] == []


ZERO_SHOT = [claim("imagenet", "vit_b32", "top1", 63.2, ["ViT-B/32", "zero-shot top1 accuracy"])]


def test_an_alias_in_the_plural_with_its_digits_apart_is_still_its_name(tmp_path):
    # ``top-1 accuracies`` is the alias ``top1 accuracy``: plural and ``top-1`` both at once
    text = "ViT-B/32 reaches zero-shot top-1 accuracies of 63.2% on ImageNet.\n"
    assert len(found(run(tmp_path, ZERO_SHOT, text), "matched")) == 1
    drifted = run(tmp_path, ZERO_SHOT, text.replace("63.2", "63.5"))
    assert found(drifted) == {("vit_b32", 1, "63.5%")}
