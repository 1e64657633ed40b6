"""Shapes of results the real corpus's tenth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: LaTeX tables whose blocks of rows
between rules are named by one label set on the block's middle row, and whose caption's
later sentence is a note about some cells. The snippets follow those shapes, with numbers of
their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.tables import declared_unit

DATASETS = {"digits": "Digits", "letters": "Letters"}
MODELS = {"deep": "deep", "one": "one-layer", "two": "two-layer"}
VARIANTS = {"base": "Base", "ours": "Ours"}


def claim(dataset: str, model: str, variant: str, metric: str, split: str, value: float,
          names: list[str], direction: str = "higher") -> dict:
    """A claim of one cell of the tables below, named by its row's, column's and metric's
    names."""
    exp = f"{dataset}-{model}"
    aliases = [DATASETS[dataset], MODELS[model], VARIANTS[variant], *names]
    return alias_claim(exp, variant, metric, value, aliases, unit=None, split=split,
                       direction=direction, id=f"{exp}/{variant}/{metric}/{split}")


TRAINING = {("digits", "deep"): (-81.50, -78.40), ("digits", "one"): (-111.9, -111.30),
            ("digits", "two"): (-98.31, -98.05), ("letters", "deep"): (-56.70, -56.20),
            ("letters", "one"): (-116.60, -116.50), ("letters", "two"): (-108.70, -108.50)}
ELBOS = [claim(dataset, model, variant, "elbo", "train", values[k], ["training ELBO"])
         for (dataset, model), values in TRAINING.items()
         for k, variant in enumerate(VARIANTS)]
MIDDLE_LABELS = r"""
\begin{table}
\begin{tabular}{r l | c c}
Dataset & Model & Base & Ours\\\midrule
               & deep & -81.50 & \textbf{-78.40} \\
\textbf{Digits} & one-layer  &-111.9 & \textbf{-111.30} \\
               & two-layer  &-98.31 & \textbf{-98.05} \\
\midrule
                & deep  & -56.70 & \textbf{-56.20} \\
\textbf{Letters} & one-layer &-116.60 & \textbf{-116.50} \\
                 & two-layer &-108.70 & \textbf{-108.50}
\end{tabular}
\caption{Highest training ELBO of the discrete autoencoders.}
\end{table}
"""


def test_a_label_on_the_middle_row_of_a_block_between_rules_names_the_whole_block(tmp_path):
    # ``Letters`` names the ``deep`` row above it too: not the ``Digits`` block's last label
    clean = run(tmp_path, ELBOS, MIDDLE_LABELS, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {("ours", 9, "-56.20"), ("base", 5, "-81.50")} <= found(clean, "matched")
    drifted = run(tmp_path, ELBOS, MIDDLE_LABELS.replace("-56.20", "-56.23"), "paper.tex")
    assert found(drifted) == {("ours", 9, "-56.23")}


EPOCHS = {("digits", "one"): (812, 503), ("digits", "two"): (940, 611),
          ("digits", "deep"): (305, None), ("letters", "one"): (2010, 577),
          ("letters", "two"): (1044, 690), ("letters", "deep"): (377, None)}
EPOCH_NAMES = ["Epochs needed to reach Base's best validation score", "epochs"]
TO_MATCH = [claim(dataset, model, variant, "epochs_to_match", "val", values[k], EPOCH_NAMES,
                  direction="lower")
            for (dataset, model), values in EPOCHS.items()
            for k, variant in enumerate(VARIANTS) if values[k] is not None]
VALIDATION = [claim(dataset, model, variant, "elbo", "val", -100.0 - k,
                    ["validation ELBO", "validation scores"])
              for dataset, model in EPOCHS for k, variant in enumerate(VARIANTS)]
NOTED = r"""
\begin{table}
\begin{tabular}{r l | c c}
 Dataset & Model  & Base & Ours \\\midrule
 & one-layer  & 812 & \textbf{503} \\
\textbf{Digits} & two-layer  & 940 & \textbf{611} \\
& deep & \textbf{305} & - \\
\midrule
& one-layer & 2010 & \textbf{577} \\
\textbf{Letters}  & two-layer & 1044 & \textbf{690}\\
& deep & \textbf{377} & -
\end{tabular}
\caption{Epochs needed to reach Base's best validation score. ``-'' indicates that the deep
Ours models reached lower validation scores than Base.}
\end{table}
"""


def test_a_captions_note_names_no_metric_and_a_row_picks_its_experiments_claims(tmp_path):
    # the caption's title names the epochs; its note's ``validation scores`` (the ELBO's
    # name) says nothing of the cells; the row ``Letters deep`` is not ``Digits deep``
    claims = TO_MATCH + VALIDATION
    clean = run(tmp_path, claims, NOTED, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {("base", 5, "812"), ("base", 9, "2010"), ("base", 11, "377")} <= found(
        clean, "matched")
    drifted = run(tmp_path, claims, NOTED.replace("& 812 &", "& 814 &").replace(
        r"\textbf{377}", r"\textbf{379}"), "paper.tex")
    assert found(drifted) == {("base", 5, "814"), ("base", 11, "379")}


SHOTS = {(5, 1): 97.1, (5, 5): 99.2, (20, 1): 94.3, (20, 5): 98.0}
FEW_SHOT = [alias_claim(f"letters-{way}way-{shot}shot", "ours", "accuracy", value,
                        ["This Repo", "Letters", f"{way}-way {shot}-shot", "k-way", "n-shot"])
            for (way, shot), value in SHOTS.items()]
SETTING_ROWS = """\
|                  | Letters  |     |      |      |
|------------------|----------|-----|------|------|
| **k-way**        | **5**    |**5**|**20**|**20**|
| **n-shot**       | **1**    |**5**|**1** |**5** |
| Published        | 98.0     |99.5 |96.1  |98.7  |
| This Repo        | 97.1     |99.2 |94.3  |98.0  |
"""


def test_bold_setting_rows_under_an_unnamed_header_head_the_columns(tmp_path):
    # ``k-way`` 20 and ``n-shot`` 5 make the last column's ``20-way 5-shot``; ``Letters``,
    # alone over the first data column, heads them all; the settings are no results
    clean = run(tmp_path, FEW_SHOT, SETTING_ROWS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(claim["claim"].split("/")[0], claim["found"]) for claim in clean["matched"]} == {
        ("letters-5way-1shot", "97.1"), ("letters-5way-5shot", "99.2"),
        ("letters-20way-1shot", "94.3"), ("letters-20way-5shot", "98.0")}
    drifted = run(tmp_path, FEW_SHOT, SETTING_ROWS.replace("|98.0  |", "|98.3  |"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("letters-20way-5shot/ours/accuracy/test", "98.3")]


BEST_FIRST = """\
| Method | Letters 5-way 1-shot | 5-way 5-shot | 20-way 1-shot | 20-way 5-shot |
|---|---|---|---|---|
| **This Repo** | **97.4** | **99.2** | **94.3** | **98.0** |
| Published | 97.0 | 99.0 | 94.1 | 97.9 |
"""


def test_a_bold_first_row_under_a_named_header_is_a_result(tmp_path):
    # the best run set in bold on the first row: its header names every column
    drifted = run(tmp_path, FEW_SHOT, BEST_FIRST)
    assert found(drifted) == {("ours", 3, "97.4")}


READING = [alias_claim(exp, variant, "accuracy", value, [row, "Reading test", *names])
           for variant, row, values in (("big", "Model (1M)", (84.0, 86.1, 83.2)),
                                        ("bigger", "Model (2M)", (85.5, 88.0, 84.4)))
           for exp, names, value in zip(("reading", "reading_middle", "reading_high"),
                                        ([], ["Middle"], ["High"]), values, strict=True)]
WHOLE_AND_PARTS = """\
| Models | Reading test (Middle/High) |
|---|---|
| Model (1M) | 84.0 (86.1/83.2) |
| Model (2M) | **85.5 (88.0/84.4)** |
"""


def test_a_cells_parenthesis_holds_the_parts_its_header_names_in_turn(tmp_path):
    # ``84.0`` is the whole test set's, ``86.1`` its Middle part's, ``83.2`` its High part's:
    # the cell's own ``Middle`` beats the ``Reading test`` its header names
    clean = run(tmp_path, READING, WHOLE_AND_PARTS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"].rsplit("/", 2)[0], item["found"]) for item in clean["matched"]} == {
        ("reading/big", "84.0"), ("reading_middle/big", "86.1"), ("reading_high/big", "83.2"),
        ("reading/bigger", "85.5"), ("reading_middle/bigger", "88.0"),
        ("reading_high/bigger", "84.4")}
    drifted = run(tmp_path, READING, WHOLE_AND_PARTS.replace("84.4)", "84.7)"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("reading_high/bigger/accuracy/test", "84.7")]


ZOO_ACCURACIES = {("plain", "s", 224): 81.2, ("plain", "s", 384): 82.6, ("plain", "b", 224): 83.0,
                  ("iso", "s", 224): 78.1, ("iso", "b", 224): 81.9}
ZOO = [alias_claim(f"imagenet_{kind}", f"net_{size}_{side}", "top1", value,
                   [f"Net-{size.upper()}", f"{side}x{side}", "acc@1",
                    *(["isotropic"] if kind == "iso" else [])])
       for (kind, size, side), value in ZOO_ACCURACIES.items()]
ZOO_TABLES = """\
### ImageNet-1K trained models

| name | resolution |acc@1 | #params | FLOPs | model |
|:---:|:---:|:---:|:---:| :---:|:---:|
| Net-S | 224x224 | 81.2 | 50M | 8.7G | [model](https://example.org/net_s_224.pth) |
| Net-S | 384x384 | 82.6 | 50M | 25.5G | [model](https://example.org/net_s_384.pth) |
| Net-B | 224x224 | 83.0 | 89M | 15.4G | [model](https://example.org/net_b_224.pth) |

### ImageNet-1K trained models (isotropic)

| name | resolution |acc@1 | #params | FLOPs | model |
|:---:|:---:|:---:|:---:| :---:|:---:|
| Net-S | 224x224 | 78.1 | 22M | 4.3G | [model](https://example.org/net_iso_s_224.pth) |
| Net-B | 224x224 | 81.9 | 87M | 16.9G | [model](https://example.org/net_iso_b_224.pth) |
"""


def test_a_column_of_sizes_names_the_rows_and_a_heading_picks_the_one_claim_left(tmp_path):
    # ``224x224`` / ``384x384`` tell the Net-S rows apart (``8.7G`` FLOPs do not: a quantity);
    # under the ``(isotropic)`` heading, Net-S at 224x224 is the isotropic run's only claim
    clean = run(tmp_path, ZOO, ZOO_TABLES)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["found"] for item in clean["matched"]} == {"81.2", "82.6", "83.0", "78.1",
                                                            "81.9"}
    drifted = run(tmp_path, ZOO, ZOO_TABLES.replace("| 82.6 |", "| 82.9 |").replace(
        "| 78.1 |", "| 78.3 |"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("imagenet_plain/net_s_384/top1/test", "82.9"),
        ("imagenet_iso/net_s_224/top1/test", "78.3")]


PROBES = [alias_claim(dataset.lower(), variant, "linear_probe_accuracy", value,
                      [name, dataset, "Linear probing accuracy"], unit=None)
          for variant, name, values in (("base", "Base (pre-train)", (26.8, 83.2)),
                                        ("ours", "Explorer", (43.4, 97.1)))
          for dataset, value in zip(("Birds", "Flowers"), values, strict=True)]
PROBE_TABLE = r"""
\begin{table}
\begin{tabular}{lcc}
\toprule
Model & Birds & Flowers \\
\midrule
Base (pre-train) & $26.8$ & $83.2$ \\
Explorer & $43.4$ & $97.1$ \\
\bottomrule
\end{tabular}
\caption{\textbf{Linear probing accuracy}. NOTE}
\end{table}
"""


def test_a_captions_hours_of_training_name_no_split_and_others_params_no_metric(tmp_path):
    # ``40 additional hours of training``: the time spent, not the training split; ``CLIP
    # (oracle with 2x params)``: another system's size, not what the cells measure
    for note in ("Our method improves the starting checkpoint in just 40 additional hours of "
                 "training.", "Explorer often surpasses CLIP (oracle with 2x params)."):
        table = PROBE_TABLE.replace("NOTE", note)
        clean = run(tmp_path, PROBES, table, "paper.tex")
        assert clean["drift"] == [] and clean["unmapped"] == []
        assert len(clean["matched"]) == 4
        drifted = run(tmp_path, PROBES, table.replace("$97.1$", "$97.4$"), "paper.tex")
        assert found(drifted) == {("ours", 8, "97.4")}


REWARDS = {("Pong", "10m"): 20.1, ("Pong", "25m"): 20.9, ("Qbert", "10m"): 11085.0,
           ("Qbert", "25m"): 14247.0}
PPO = [alias_claim(f"{game.lower()}_{steps}", "ppo", "episode_reward", value,
                   [f"Lib PPO @{steps.upper()}", game, "PPO", steps.upper(), "Lib"], unit=None)
       for (game, steps), value in REWARDS.items()]
RIVAL_IMPLEMENTATION = """\
Lib PPO after 10M and 25M time-steps. Note that Lib evaluation scores include the 1% random
actions of epsilon-greedy exploration.

|env|Lib PPO @10M|Lib PPO @25M|Baselines PPO @10M|
|---|---|---|---|
|Pong|20.1|20.9|~19|
|Qbert|11085|14247|~14000|
"""


def test_another_implementations_column_and_a_share_of_actions_are_no_results(tmp_path):
    # ``Baselines PPO @10M``: OpenAI Baselines' PPO beside ours, not our 10M run; ``the 1%
    # random actions``: a share of the actions, not a score
    clean = run(tmp_path, PPO, RIVAL_IMPLEMENTATION)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["found"] for item in clean["matched"]} == {"20.1", "20.9", "11085", "14247"}
    drifted = run(tmp_path, PPO, RIVAL_IMPLEMENTATION.replace("|11085|", "|11088|"))
    assert found(drifted) == {("ppo", 7, "11088")}


GLUE = [alias_claim(task.lower(), "ours", "accuracy", value, ["Ours", task], unit=None)
        for task, value in (("MNLI_m", 89.1), ("MNLI_mm", 88.5))]
SUFFIXES = """\
Model | MNLI_m | MNLI_mm
|:---: |:---: |:---: |
`Ours` | **89.1** | **88.5**
"""


def test_a_datasets_m_suffix_is_no_unit_but_a_snake_case_names_is(tmp_path):
    # ``MNLI_m``: MNLI's matched set, not millions; ``params_m``: parameters in millions
    assert (declared_unit("MNLI_m"), declared_unit("params_m"), declared_unit("acc_pct")) == (
        "", "M", "%")
    clean = run(tmp_path, GLUE, SUFFIXES)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["found"] for item in clean["matched"]} == {"89.1", "88.5"}


SCORES = {("boot", "BottomUp", "Labour"): 0.0078, ("boot", "TopDown", "Labour"): 0.0668,
          ("norm", "BottomUp", "Labour"): 0.0076, ("norm", "TopDown", "Labour"): 0.0656,
          ("boot", "BottomUp", "Traffic"): 0.0736, ("boot", "TopDown", "Traffic"): 0.0741,
          ("norm", "BottomUp", "Traffic"): 0.0845, ("norm", "TopDown", "Traffic"): 0.0738}
METHODS = {"boot": "BOOTSTRAP", "norm": "NORMALITY"}
CRPS = [alias_claim(data.lower(), f"{method}_{way.lower()}", "scrps", value,
                    [METHODS[method], way, data, "sCRPS"], unit=None, direction="lower")
        for (method, way, data), value in SCORES.items()]
POINT = [alias_claim(data.lower(), way.lower(), "rel_mse", value, [way, data, "relMSE"],
                     unit=None, direction="lower")
         for way, data, value in (("BottomUp", "Labour", 0.5382), ("TopDown", "Labour", 16.82))]
SPANNED = """\
We score the probabilistic forecasts with the sCRPS.

|              |  **BOOTSTRAP**      || **NORMALITY**       ||
|--------------|----------|---------|----------|---------|
| **Dataset**  | BottomUp | TopDown | BottomUp | TopDown |
| Labour       | 0.0078   | 0.0668  | 0.0076   | 0.0656  |
| Traffic      | 0.0736   | 0.0741  | 0.0845   | 0.0738  |
"""


def test_a_header_spanning_columns_and_its_second_row_in_the_body_head_the_columns(tmp_path):
    # ``**BOOTSTRAP** ||`` heads two columns (MultiMarkdown); the row of names below is the
    # header's second row; ``BOOTSTRAP BottomUp`` and ``Labour`` leave one claim, whose
    # metric (the sCRPS) is the cell's though no caption names it
    clean = run(tmp_path, CRPS + POINT, SPANNED)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(clean["matched"]) == 8
    drifted = run(tmp_path, CRPS + POINT, SPANNED.replace("0.0845", "0.0848"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("traffic/norm_bottomup/scrps/test", "0.0848")]


GRAPHS = {"Cora": 85.5, "Cite": 73.4, "Cham": 62.48, "Corn": 76.49}
NODE_CLASSIFICATION = [alias_claim(name.lower(), "ours", "accuracy", value,
                                   [name, "Testing accuracy"])
                       for name, value in GRAPHS.items()]
FOLDED = """\
## Results
Testing accuracy summarized below.
| Dataset | Depth |  Metric | Dataset | Depth |  Metric |
|:---:|:---:|:---:|:---:|:---:|:---:|
| Cora       | 64 | 85.5  | Cham | 8  | 62.48 |
| Cite       | 32 | 73.4  | Corn | 16 | 76.49 |
"""


def test_a_table_folded_in_halves_is_two_tables(tmp_path):
    # the header repeats: ``Cham``'s row is the right half's, not ``Cora``'s
    clean = run(tmp_path, NODE_CLASSIFICATION, FOLDED)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["found"] for item in clean["matched"]} == {"85.5", "73.4", "62.48", "76.49"}
    drifted = run(tmp_path, NODE_CLASSIFICATION, FOLDED.replace("76.49", "76.46"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("corn/ours/accuracy/test", "76.46")]


PERPLEXITIES = [alias_claim(dev_set, variant, "perplexity", value,
                            [name, dev_set, "4-gram LMs", "common crawl"], unit=None,
                            split="dev", direction="lower", id=f"{dev_set}/{variant}/ppl/dev")
                for variant, name, values in (("large", "Large", (313, 158)),
                                              ("small", "Small", (331, 178)))
                for dev_set, value in zip(("nov93dev", "TL-dev"), values, strict=True)]
COUNTS = """\
We are providing 4-gram LMs with different pruning here with 200k-top words.

| LM |nov93dev |TL-dev |
| :---: | :---: | :---: |
| Large |313 |158 |
| Small |331 |178 |

Decoding uses the 200k common crawl lexicon and the small common crawl LM.
"""


def test_a_number_in_thousands_before_a_thing_counts_it(tmp_path):
    # ``200k-top words``, ``200k common crawl lexicon``: sizes of a vocabulary, no perplexity
    clean = run(tmp_path, PERPLEXITIES, COUNTS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["found"] for item in clean["matched"]} == {"313", "158", "331", "178"}


QUANTIZED = [alias_claim("wiki2", "plain", "perplexity", 7.15, ["GPTQ", "7B model", "Wiki2 PPL"],
                         unit=None, direction="lower"),
             alias_claim("wiki2", "tricks", "perplexity", 6.09,
                         ["4bit-GPTQ", "LLaMa-7B", "Wiki2 PPL"], unit=None, direction="lower")]
FROM_TO_RUNS = """\
Those fix GPTQ's strangely bad performance on the 7B model (from 7.15 to 6.09 Wiki2 PPL).
"""


def test_from_one_run_to_another_the_other_ends_claim_is_not_this_ends(tmp_path):
    # ``from 7.15 to 6.09``: the plain run's number, then the new tricks' run's; 6.09 is no
    # drift of the plain run's 7.15
    clean = run(tmp_path, QUANTIZED, FROM_TO_RUNS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("plain", 1, "7.15")}
    drifted = run(tmp_path, QUANTIZED, FROM_TO_RUNS.replace("7.15", "7.18"))
    assert found(drifted) == {("plain", 1, "7.18")}


OPERATIONS = {"mul": r"$\bm{\times}$", "add": r"$\bm{+}$"}
UNITS = {("mul", "nau"): (31, 2.8e6), ("mul", "nmu"): (98, 1.4e6),
         ("add", "nau"): (35, 1.8e4), ("add", "nmu"): (14, 1.5e6)}
ARITHMETIC = [alias_claim(f"arithmetic_{op}", model, metric, value,
                          [model.upper(), OPERATIONS[op], "Op", name], unit=unit)
              for (op, model), values in UNITS.items()
              for metric, name, value, unit in zip(
                  ("success_rate", "solved_at"), ("Success Rate", "Solved at"), values,
                  ("%", None), strict=True)]
UPWARD_LABELS = r"""
\begin{table}[!h]
\caption{Success-rate and when the model converged, with 95\% confidence intervals.}
\begin{tabular}{crll}
\toprule
\multicolumn{1}{c}{Op} & \multicolumn{1}{c}{Model} & \multicolumn{1}{c}{Success}
  & \multicolumn{1}{c}{Solved at} \\
 &  & Rate & \\
\midrule
 & NAU & $31\% {~}^{+10\%}_{-8\%}$
  & $2.8 \cdot 10^{6} {~}^{+2.9 \cdot 10^{5}}_{-2.4 \cdot 10^{5}}$\\

\nopagebreak
\multirow{-2}{*}{\centering\arraybackslash $\bm{\times}$} & NMU
  & $\mathbf{98\%} {~}^{+1\%}_{-5\%}$ & $\mathbf{1.4 \cdot 10^{6}}$\\
\cmidrule{1-4}
 & NAU & $35\% {~}^{+9\%}_{-4\%}$ & $\mathbf{1.8 \cdot 10^{4}}$\\

\nopagebreak
\multirow{-2}{*}{\centering\arraybackslash $\bm{+}$} & NMU
  & $14\% {~}^{+8\%}_{-5\%}$ & $1.5 \cdot 10^{6}$\\
\bottomrule
\end{tabular}
\end{table}
"""


def test_scientific_numbers_offset_intervals_and_labels_set_below_their_rows(tmp_path):
    # ``2.8 \cdot 10^{6}`` is one number; ``^{+10\%}_{-8\%}`` bounds the 31% (no result of
    # its own); ``\multirow{-2}`` on a block's last row names the row above it too (33% is
    # as near the + block's NAU as the × block's)
    clean = run(tmp_path, ARITHMETIC, UPWARD_LABELS, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(clean["matched"]) == 8
    drifted = run(tmp_path, ARITHMETIC, UPWARD_LABELS.replace(
        r"$1.5 \cdot 10^{6}$", r"$1.7 \cdot 10^{6}$").replace(r"$31\%", r"$33\%"), "paper.tex")
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("arithmetic_add/nmu/solved_at/test", "1.7 · 10^6"),
        ("arithmetic_mul/nau/success_rate/test", "33%")}


SIMPLE = [alias_claim("simple_mul", model, "success_rate", value,
                      [model.upper(), OPERATIONS["mul"], "Success Rate", "simple function"])
          for model, value in (("nau", 13), ("nmu", 94))]
SIMPLE_TABLE = r"""
\begin{table}[!h]
\caption{Success-rate on the simple function task.}
\begin{tabular}{crl}
\toprule
\multicolumn{1}{c}{Op} & \multicolumn{1}{c}{Model} & \multicolumn{1}{c}{Success Rate} \\
\midrule
 & NAU & $13\% {~}^{+8\%}_{-5\%}$ \\

\nopagebreak
\multirow{-2}{*}{\centering\arraybackslash $\bm{\times}$} & NMU
  & $\mathbf{94\%} {~}^{+3\%}_{-6\%}$\\
\bottomrule
\end{tabular}
\end{table}
"""


def test_a_header_over_the_names_that_a_claims_alias_spells_names_its_column(tmp_path):
    # ``Op``, an alias of the arithmetic task's claims only, heads the operations' column of
    # the simple function's table too: it does not make its rows the arithmetic task's
    clean = run(tmp_path, ARITHMETIC + SIMPLE, SIMPLE_TABLE, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["claim"] for item in clean["matched"]} == {
        "simple_mul/nau/success_rate/test", "simple_mul/nmu/success_rate/test"}


KEYWORDS = [alias_claim(f"commands_{version}", "resnet", "accuracy", value,
                        ["ResNet-50", f"v{version}", name], split=split,
                        id=f"commands_{version}/resnet/accuracy/{split}")
            for version, values in (("1", (96.6, 96.5)), ("2", (95.7, 95.9)))
            for split, name, value in zip(("val", "test"), ("Validation Accuracy",
                                                            "Test Accuracy"), values, strict=True)]
LIST_TABLE = """\
Results
-------

We achieved a top-1 accuracy of 96.5 (the accuracy in the paper is 96.9) on v1:

.. list-table::
   :widths: 1 1 1
   :header-rows: 1

   * - Dataset
     - Validation Accuracy
     - Test Accuracy
   * - v1
     - 96.6%
     - 96.5%
   * - v2
     - 95.7%
     - 95.9%
"""


def test_a_rst_list_table_and_the_papers_number_in_an_aside(tmp_path):
    # a ``list-table`` is a table, a row per ``* -`` item; ``(the accuracy in the paper is
    # 96.9)`` is the paper's number, not the run's
    clean = run(tmp_path, KEYWORDS, LIST_TABLE, "README.rst")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} >= {
        ("commands_1/resnet/accuracy/val", "96.6%"), ("commands_2/resnet/accuracy/test", "95.9%")}
    drifted = run(tmp_path, KEYWORDS, LIST_TABLE.replace("95.7%", "95.4%"), "README.rst")
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("commands_2/resnet/accuracy/val", "95.4%")]


SPEECH = [alias_claim(subset.lower(), variant, metric, value * scale, [name, subset, metric_name],
                      unit=None, direction="lower")
          for metric, metric_name, scale in (("wer", "Word error rate", 1.0),
                                             ("cer", "Character error rate", 0.4))
          for variant, name, values in (("am", "Jasper", (3.61, 11.36)),
                                        ("lm", "Jasper + 6-gram", (2.78, 9.01)))
          for subset, value in zip(("Dev-Clean", "Dev-Other"), values, strict=True)]
SPANNED_GRID = """\
+-----------------+-----------------------+
| Model           | Word error rate       |
+                 +-----------+-----------+
|                 | Dev-Clean | Dev-Other |
+=================+===========+===========+
| Jasper          | 3.61      | 11.36     |
+-----------------+-----------+-----------+
| Jasper + 6-gram | 2.78      | 9.01      |
+-----------------+-----------+-----------+
"""


def test_a_grid_tables_header_cell_spans_the_columns_a_border_below_it_cuts(tmp_path):
    # ``Word error rate`` heads both columns the border under it cuts (not half of its text
    # each: no metric); ``Model`` spans the two header rows
    clean = run(tmp_path, SPEECH, SPANNED_GRID, "README.rst")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(clean["matched"]) == 4
    drifted = run(tmp_path, SPEECH, SPANNED_GRID.replace("9.01", "9.04"), "README.rst")
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("dev-other/lm/wer/test", "9.04")]


LINK_PREDICTION = [alias_claim(data, variant, metric, value, [name, data, metric.upper()],
                               variance={"type": "std", "value": std})
                   for variant, name, rows in (
                       ("tf", "Our(tf)(GAE)(AUC,AP)", {"cora": ((91.30, 0.85), (92.42, 0.43))}),
                       ("th", "Our(th)(GAE)(AUC,AP)", {"cora": ((92.02, 0.44), (93.12, 0.16))}))
                   for data, pairs in rows.items()
                   for metric, (value, std) in zip(("auc", "ap"), pairs, strict=True)]
TWO_IN_A_CELL = """\
| Dataset  | Paper(GAE)(AUC,AP) | Our(tf)(GAE)(AUC,AP)  | Our(th)(GAE)(AUC,AP)  |
|----------|:------------------:|:---------------------:|:---------------------:|
| cora     |    91.0   92.0     | 91.30±0.85 92.42±0.43 | 92.02±0.44 93.12±0.16 |
"""


def test_a_cell_of_two_statements_apart_by_spaces_under_a_header_naming_them_in_turn(tmp_path):
    # ``(AUC,AP)``: the cell's first statement is the AUC, its second the AP
    clean = run(tmp_path, LINK_PREDICTION, TWO_IN_A_CELL)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert len(clean["matched"]) == 8  # each value and its spread
    drifted = run(tmp_path, LINK_PREDICTION, TWO_IN_A_CELL.replace("93.12±", "93.15±"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("cora/th/ap/test", "93.15")]
