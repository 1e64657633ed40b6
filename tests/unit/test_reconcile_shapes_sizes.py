"""Shapes of results the real corpus's eleventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a pose table of COCO-style
columns (``AP .5``, ``AP (M)`` for medium objects beside ``AP (L)``), a starred row escaped in
Markdown (``**net_big\\***``: the run trained on extra data), and a note quoting the person
detector's own AP; a row of ``mean(deviation)`` cells, one deviation over a tenth of its
mean. And, from the dev part, a list of results in a setting (``53% in japanese``) each
beside another model's (``vs 54.6% for …``), and a grid table an evaluation script prints in
a code block; a thesis's sentences where a run named before ``while`` is not the number's
after it, and ``their model``'s number is theirs. The snippets follow those shapes, with numbers of
their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

METRICS = {"ap": "AP", "ap50": "AP .5", "ap_m": "AP (M)", "ap_l": "AP (L)"}
ROWS = {"net_small": ("net_small", [0.712, 0.901, 0.688, 0.774]),
        "net_big": ("net_big", [0.741, 0.915, 0.702, 0.799]),
        "net_big_extra": ("net_big*", [0.758, 0.922, 0.719, 0.812])}
CLAIMS = [alias_claim("boxes_val", variant, metric, values[k], [name, "Boxes val", alias],
                      unit=None)
          for variant, (name, values) in ROWS.items()
          for k, (metric, alias) in enumerate(METRICS.items())]
POSE = r"""## Results on Boxes val with a person detector having AP of 61.2

| Arch | #Params | AP | AP .5 | AP (M) | AP (L) |
|---|---|---|---|---|---|
| net_small | 28.5M | 0.712 | 0.901 | 0.688 | 0.774 |
| **net_big** | 60.1M | 0.741 | 0.915 | 0.702 | 0.799 |
| **net_big\*** | 60.1M | 0.758 | 0.922 | 0.719 | 0.812 |

- The person detector has person AP of 61.2 on Boxes val.
- net_big\* means training with extra data.
"""


def test_coco_size_columns_are_their_own_metrics_and_medium_is_no_millions(tmp_path):
    # ``AP .5`` is not the plain AP the heading's ``AP of 61.2`` names; ``(M)`` beside ``(L)``
    clean = run(tmp_path, CLAIMS, POSE)
    assert clean["drift"] == [] and clean["unmapped"] == []
    checked = {(item["claim"].split("/")[1], item["claim"].split("/")[2], item["found"])
               for item in clean["matched"]}
    assert {("net_small", "ap50", "0.901"), ("net_big", "ap_m", "0.702"),
            ("net_small", "ap_m", "0.688")} <= checked
    drifted = run(tmp_path, CLAIMS, POSE.replace("0.901", "0.904").replace("0.702", "0.705"))
    assert found(drifted) == {("net_small", 5, "0.904"), ("net_big", 6, "0.705")}


def test_an_escaped_star_is_part_of_the_rows_name(tmp_path):
    # ``**net_big\***`` renders as net_big*: the run on extra data, not net_big's
    clean = run(tmp_path, CLAIMS, POSE)
    starred = {(item["claim"].split("/")[1], item["found"]) for item in clean["matched"]
               if item["line"] == 7}
    assert starred == {("net_big_extra", value) for value in ("0.758", "0.922", "0.719", "0.812")}
    drifted = run(tmp_path, CLAIMS, POSE.replace("0.922", "0.925"))
    assert found(drifted) == {("net_big_extra", 7, "0.925")}


def test_a_number_far_from_every_claim_it_may_state_is_another_quantity(tmp_path):
    # the detector's AP (61.2 beside pose APs of 0.71-0.76) is left alone; a number near
    # several claims, naming none of their variants, is unmapped (a name is missing)
    clean = run(tmp_path, CLAIMS, POSE)
    assert {item["line"] for item in clean["unmapped"]} == set()
    near = run(tmp_path, CLAIMS, "On Boxes val a model once reached an AP of 0.73.\n")
    assert [item["line"] for item in near["unmapped"]] == [1] and near["drift"] == []


AUROC = {"bbbp": (67.1, 2.9), "tox21": (75.0, 0.2), "sider": (58.9, 0.8), "bace": (66.5, 9.0)}
PRETRAINING = [alias_claim(data, "none", "auroc", mean, [data.upper(), "No Pretrain", "AUROC"],
                           variance={"type": "std", "value": std})
               for data, (mean, std) in AUROC.items()]
SPREADS = """\
We report the mean and the deviation of AUROC over 10 random splits.

|             | BBBP      | TOX21     | SIDER     | BACE      |
|-------------|-----------|-----------|-----------|-----------|
| No Pretrain | 67.1(2.9) | 75.0(0.2) | 58.9(0.8) | 66.5(9.0) |
"""


def test_a_tables_parentheses_are_spreads_when_most_are_small(tmp_path):
    # 9.0 is over a tenth of 66.5, but its row's other parentheses are spreads: so is it
    clean = run(tmp_path, PRETRAINING, SPREADS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert ("none", 5, "66.5") in found(clean, "matched")
    drifted = run(tmp_path, PRETRAINING, SPREADS.replace("66.5(9.0)", "66.8(9.0)"))
    assert found(drifted) == {("none", 5, "66.8")}


TRANSLATED = [alias_claim(f"imagenet_{language}", "big_multi", "top1", value,
                          ["big multilingual", f"in {language}", "zero-shot top-1"])
              for language, value in (("italian", 56.0), ("japanese", 53.0))] + [
    alias_claim("imagenet_italian", "big_english", "top1", 24.0,
                ["the english equivalent", "in italian", "zero-shot top-1"])]
COUNTERPARTS = """\
## big multilingual

On zero-shot top-1 with translated prompts this model reaches:

- 56% in italian (vs 21% for https://github.com/example/clip-italian)
- 53% in japanese (vs 54.6% for https://github.com/example/japanese-clip and 49% for rinna)
- 56% in italian (vs 24% for the english equivalent)
"""


def test_a_number_after_vs_is_the_other_sides_unless_its_clause_names_ours(tmp_path):
    clean = run(tmp_path, TRANSLATED, COUNTERPARTS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("big_multi", 5, "56%"), ("big_multi", 6, "53%"),
                                       ("big_multi", 7, "56%"), ("big_english", 7, "24%")}
    drifted = run(tmp_path, TRANSLATED, COUNTERPARTS.replace("vs 24%", "vs 26%"))
    assert found(drifted) == {("big_english", 7, "26%")}


CORRELATIONS = [alias_claim(name.lower().rstrip("."), "sup", "spearman", value,
                            ["sup-model", name, "Spearman's correlation"], unit=None)
                for name, value in (("SetA", 71.2), ("SetB", 82.45), ("Avg.", 76.83))]
PRINTED_GRID = """\
Evaluating the sup-model checkpoint is expected to output the results in a tabular format:
```
------ test ------
+-------+-------+-------+
|  SetA |  SetB |  Avg. |
+-------+-------+-------+
| 71.20 | 82.45 | 76.83 |
+-------+-------+-------+
```
"""


def test_a_grid_table_a_program_prints_is_a_table(tmp_path):
    clean = run(tmp_path, CORRELATIONS, PRINTED_GRID)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["claim"].split("/")[0] for item in clean["matched"]} == {"seta", "setb", "avg"}
    drifted = run(tmp_path, CORRELATIONS, PRINTED_GRID.replace("82.45", "82.48"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("setb/sup/spearman/test", "82.48")}


SEPARABILITY = [alias_claim("ffhq", "config_f", metric, value, ["FFHQ config F", "`ls`"],
                            unit=None, direction="lower")
                for metric, value in (("ls_z", 154.2), ("ls_w", 4.27))]
IN_Z_AND_W = """\
| Metric | FFHQ config F | 1 GPU  |
| :----- | :-----------: | :----: |
| `ls`   | 154.2 / 4.27  | 10 hrs |
"""


def test_a_metrics_unit_suffix_is_no_unit_when_a_sibling_shares_the_stem(tmp_path):
    # ``ls_w`` beside ``ls_z``: separability in W and Z, so ``ls`` is neither one (no watts)
    clean = run(tmp_path, SEPARABILITY, IN_Z_AND_W)
    assert clean["drift"] == [] and clean["unmapped"] == []


COVERAGE = [alias_claim(data.lower(), f"k{k}", "upperbound_accuracy", value,
                        [data, "k", str(k), "proposals", "Upperbound Accuracy"])
            for k, values in ((100, (93.4, 91.4)), (10, (53.9, 51.0)))
            for data, value in zip(("SetA", "SetB"), values, strict=True)]
WHILE_ANOTHER = """\
We discovered that with $k = 100$ proposals the coverage is good enough (nearly $93\\%$ on
SetA and $91\\%$ on SetB), while decreasing $k$ resulted in an upperbound accuracy drop
(nearly $54\\%$ SetA and $51\\%$ SetB).
"""


def test_a_run_named_before_a_contrast_does_not_govern_the_number_after_it(tmp_path):
    # ``decreasing k``: the smallest k's numbers, not the k = 100 the sentence named first
    clean = run(tmp_path, COVERAGE, WHILE_ANOTHER, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    matched = {(item["claim"], item["found"]) for item in clean["matched"]}
    assert {("seta/k100/upperbound_accuracy/test", "93%"),
            ("setb/k100/upperbound_accuracy/test", "91%")} <= matched
    assert ("setb/k100/upperbound_accuracy/test", "51%") not in matched


OURS_ON_SETB = [alias_claim("setb", "ours", "accuracy", 37.0, ["SetB", "our model", "accuracy"])]
THEIR_MODEL = """\
Conversely, on the SetB test set their model does not show significant improvements, reaching
$26.4\\%$ accuracy while our model reaches $37.0\\%$ accuracy.
"""


def test_a_number_the_sentence_gives_to_their_model_is_theirs(tmp_path):
    clean = run(tmp_path, OURS_ON_SETB, THEIR_MODEL, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert [(item["line"], item["found"]) for item in clean["matched"]] == [(2, "37.0%")]


MATCHED_MISMATCHED = [alias_claim(exp, "large", "accuracy", value, ["MNLI large", "Results"],
                                  variance={"type": "std", "value": 0.1})
                      for exp, value in (("mnli_m", 91.3), ("mnli_mm", 91.1))]
PAIR_IN_A_CELL = """\
| Task       | Results          | Running Time |
|------------|------------------|--------------|
| MNLI large | 91.3/91.1 +/-0.1 | 2.5h         |
"""


def test_a_cells_numbers_no_name_tells_apart_are_resolved_together(tmp_path):
    # 91.1 states the mismatched set's claim, so 90.9 can only be the matched set's: drift
    clean = run(tmp_path, MATCHED_MISMATCHED, PAIR_IN_A_CELL)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, MATCHED_MISMATCHED, PAIR_IN_A_CELL.replace("91.3/", "90.9/"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("mnli_m/large/accuracy/test", "90.9")} and drifted["unmapped"] == []


SQUAD = [alias_claim("squad", model, metric, value, ["SQuAD", name], unit=None)
         for model, metric, name, value in (
             ("base", "f1", '"f1"', 88.41), ("base", "em", '"exact_match"', 81.25),
             ("large", "f1", '"f1"', 90.93), ("large", "em", '"exact_match"', 84.12))]
ONE_RUNS_LINE = """\
## SQuAD

The evaluation script prints:
```
{"f1": 88.41, "exact_match": 81.25}
```
"""


def test_a_line_of_one_runs_metrics_is_that_runs(tmp_path):
    # the f1 states the base run's, so the exact match beside it is the base run's too
    clean = run(tmp_path, SQUAD, ONE_RUNS_LINE)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, SQUAD, ONE_RUNS_LINE.replace("81.25", "81.29"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("squad/base/em/test", "81.29")} and drifted["unmapped"] == []


FRAMES = [alias_claim("sthv1", f"tsm_r50_{frames}f", metric, value, ["TSM R50", "SetV1", name],
                      unit=None)
          for frames, values in ((8, (45.6, 47.2)), (16, (47.2, 48.5)))
          for (metric, name), value in zip((("center", "acc (center crop)"),
                                            ("full", "acc (full res)")), values, strict=True)
          ] + [alias_claim("setv2", "tsm_r50", "center", 61.2, ["TSM R50", "SetV2"], unit=None)]
ROWS_OF_RUNS = """\
## SetV1

| model   | n-frame | acc (center crop) | acc (full res) | checkpoint                  |
| ------- | ------- | ----------------- | -------------- | --------------------------- |
| TSM R50 | 8       | 45.6              | 47.2           | [link](https://example.org) |
| TSM R50 | 16      | 47.2              | 48.5           | [link](https://example.org) |
"""


def test_a_rows_other_cells_tell_which_run_the_row_is(tmp_path):
    # 45.6 states the 8-frame run's center-crop accuracy: its row is that run's
    clean = run(tmp_path, FRAMES, ROWS_OF_RUNS)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, FRAMES, ROWS_OF_RUNS.replace("| 47.2           |",
                                                         "| 47.6           |"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("sthv1/tsm_r50_8f/full/test", "47.6")} and drifted["unmapped"] == []


TRANSLATED_SETS = [alias_claim(exp, "big", "top1", value, ["big model", *names])
                   for exp, value, names in (
                       ("seta-1k", 62.3, ["top-1"]),
                       ("seta-1k-it", 43.0, ["seta1k italian", "multilingual evaluation"]))
                   ] + [alias_claim("seta-1k", "small", "top1", 55.0, ["small model", "top-1"])]
IMPLIED_IN_THE_CLAUSE = """\
The big model reaches 62.3% top-1 on SetA-1k. A preliminary multilingual evaluation was run:
43% on seta1k italian (vs 21% for the small model).
"""


def test_what_a_clauses_alias_implies_beats_what_an_earlier_sentence_names(tmp_path):
    # ``seta1k italian`` implies its claim's set; the earlier sentence's SetA-1k names the id;
    # the small model's 21% is on the italian set too (its partner's), not its SetA-1k claim
    clean = run(tmp_path, TRANSLATED_SETS, IMPLIED_IN_THE_CLAUSE)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} == {
        ("seta-1k/big/top1/test", "62.3%"), ("seta-1k-it/big/top1/test", "43%")}


WITHOUT_THE_PRIOR = [alias_claim(data.lower(), "ours-vs-no_prior", "accuracy", gain,
                                 [data, "removing the prior", "worsening", "absolute accuracy"],
                                 candidate="ours", baseline="no_prior", difference=gain)
                     for data, gain in (("SetA", 9.0), ("SetB", 18.5))]
ABLATED = """\
By removing the prior on the SetA test set we got a worsening of $9\\%$ absolute accuracy,
while on SetB this effect is even more noticeable: the worsening is of $18.5\\%$ absolute
accuracy.
"""


def test_a_change_in_a_sentence_that_removes_a_part_is_the_ablated_runs(tmp_path):
    # the worsening is the ablated run's against ours: the comparison the other way round
    clean = run(tmp_path, WITHOUT_THE_PRIOR, ABLATED, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []


TOKENS = [alias_claim("imagenet", variant, "top1", value, [name, kind, "ImageNet", "Top1 Acc"])
          for variant, name, kind, value in (("net_14", "Net-14", "Performer", 81.5),
                                             ("net_14t", "Net_t-14", "Transformer", 81.7))]
CORNER_NAMES_A_SETTING = """\
## ImageNet

| Model    | Net Transformer | Top1 Acc | #params |
| :---     |   :---:         |  :---:   |  :---:  |
| Net-14   |  Performer      |   81.5   |  21.5M  |
| Net_t-14 | Transformer     |   81.7   |  21.5M  |
"""


def test_a_header_over_the_names_yields_to_the_rows_names(tmp_path):
    # ``Net Transformer`` heads the kinds of token transformer, naming no run of its own
    clean = run(tmp_path, TOKENS, CORNER_NAMES_A_SETTING)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, TOKENS, CORNER_NAMES_A_SETTING.replace("81.5", "81.8"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("imagenet/net_14/top1/test", "81.8")}


DECODING = [alias_claim("ami_sdm", way.replace(" ", "_"), "wer", value,
                        [way, "SDM", "WERs"], split=split, direction="lower")
            for way, values in (("greedy search", (31.32, 32.38)),
                                ("modified beam search", (31.25, 32.21)))
            for split, value in zip(("dev", "test"), values, strict=True)]
OPTIONS_IN_A_COMMENT = """\
**WERs for SDM:**

|                      | dev   | test  | comment                               |
|----------------------|-------|-------|---------------------------------------|
| greedy search        | 31.32 | 32.38 | --epoch 14 --avg 8 --max-duration 500 |
| modified beam search | 31.25 | 32.21 | --epoch 14 --avg 8 --beam-size 4      |
"""


def test_a_commands_epoch_option_is_no_single_epochs_number(tmp_path):
    # ``--epoch 14``: how long the run trained, not its 14th epoch's number
    clean = run(tmp_path, DECODING, OPTIONS_IN_A_COMMENT)
    assert clean["drift"] == [] and len(clean["matched"]) == 4
    drifted = run(tmp_path, DECODING, OPTIONS_IN_A_COMMENT.replace("32.21", "32.24"))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("ami_sdm/modified_beam_search/wer/test", "32.24")}


JOINTS = {"r_hip": 58.01, "r_knee": 61.42, "r_ankle": 81.97, "nose": 33.39, "head": 46.29,
          "l_shoulder": 30.48}
PER_JOINT = [alias_claim(f"h36m_{joint}", "zv", "pjpe", value,
                         [joint.title().replace("_", "\\_"), "per joint position error"],
                         unit=None, direction="lower")
             for joint, value in JOINTS.items()]
STACKED = r"""\begin{table}[h]
    \begin{tabularx}{\textwidth}{XXX}
        \toprule
        R\_Hip & R\_Knee & R\_Ankle \\
        \hline
        58.01  & 61.42   & 81.97 \\
        &&\\
        Nose   & Head    & L\_Shoulder \\
        \hline
        33.39  & 46.29   & 30.48 \\
        \bottomrule
    \end{tabularx}
    \caption{Average per joint position error (in mm) for each joint.}
\end{table}
"""


def test_a_row_of_names_heads_the_numbers_below_it(tmp_path):
    # a table stacked in two parts, each under its own row of joint names
    clean = run(tmp_path, PER_JOINT, STACKED, "paper.tex")
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {item["claim"].split("/")[0] for item in clean["matched"]} == {
        f"h36m_{joint}" for joint in JOINTS}
    drifted = run(tmp_path, PER_JOINT, STACKED.replace("46.29", "46.31"), "paper.tex")
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("h36m_head/zv/pjpe/test", "46.31")}


OFFLINE = [alias_claim(f"{data}_{env}".lower(), "tt", "score", mean,
                       ["TT (Ours)", data, env, "offline RL results"], unit=None,
                       variance={"type": "std", "value": std})
           for data, env, mean, std in (("Medium", "HalfCheetah", 46.9, 0.4),
                                        ("Medium", "Hopper", 61.1, 3.6))]
PRINTED_LATEX = r"""<details>
<summary>To create the table of offline RL results from the paper, run the script.</summary>

```
\begin{table*}[h]
\begin{tabular}{llrr}
\toprule
\multicolumn{1}{c}{\bf Dataset} & \multicolumn{1}{c}{\bf Environment} & {\bf BC} &
\multicolumn{1}{c}{\bf TT (Ours)} \\
\midrule
Medium & HalfCheetah & $43.1$ & $46.9$ \scriptsize{\raisebox{1pt}{$\pm 0.4$}} \\
Medium & Hopper & $63.9$ & $61.1$ \scriptsize{\raisebox{1pt}{$\pm 3.6$}} \\
\bottomrule
\end{tabular}
\end{table*}
```
</details>
"""


def test_latex_source_in_a_code_block_is_read_as_latex(tmp_path):
    # a script prints the paper's table; ``\raisebox{1pt}`` lifts the spread, its 1pt no number
    clean = run(tmp_path, OFFLINE, PRINTED_LATEX)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert {(item["claim"], item["found"]) for item in clean["matched"]} >= {
        ("medium_halfcheetah/tt/score/test", "46.9"), ("medium_hopper/tt/score/test", "61.1")}
    drifted = run(tmp_path, OFFLINE, PRINTED_LATEX.replace("$\\pm 3.6$", "$\\pm 3.9$"))
    assert [(item["claim"], item["part"]) for item in drifted["drift"]] == [
        ("medium_hopper/tt/score/test", "spread")]


ZOO = [alias_claim("bedrooms", "ldm_vq_4", metric, value, ["LSUN-Bedrooms", "LDM-VQ-4", name],
                   unit=None, direction=direction)
       for metric, name, value, direction in (("fid", "FID", 2.95, "lower"),
                                              ("is", "IS", 2.22, "higher"))]
BRACKETED = """\
| Dataset       | Model    | FID        | IS          | Prec |
|---------------|----------|------------|-------------|------|
| LSUN-Bedrooms | LDM-VQ-4 | 2.95 (3.0) | 2.22 (2.23) | 0.66 |
"""


def test_a_claim_one_number_of_a_cell_states_is_not_the_next_ones(tmp_path):
    # ``2.22 (2.23)``: 2.22 is the IS claim's; the bracket another script's score, no drift
    clean = run(tmp_path, ZOO, BRACKETED)
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, ZOO, BRACKETED.replace("2.22 (", "2.25 ("))
    assert {(item["claim"], item["found"]) for item in drifted["drift"]} == {
        ("bedrooms/ldm_vq_4/is/test", "2.25")}


IMPROVED = [alias_claim("chest_mean", "improved", "mean_auroc", 0.847,
                        ["slightly-improved model", "mean AUROC"], unit=None)]
VS_WITH_PERIODS = ("We have also proposed a slightly-improved model which achieves a mean AUROC "
                   "of 0.847 (v.s. 0.841 of the original CheXNet).\n")


def test_v_s_is_vs_and_ends_no_sentence(tmp_path):
    clean = run(tmp_path, IMPROVED, VS_WITH_PERIODS)
    assert clean["drift"] == [] and [item["found"] for item in clean["matched"]] == ["0.847"]
