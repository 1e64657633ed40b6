"""Table layouts of public READMEs and papers that name their claims only through the
evidence's aliases: HTML tables inside Markdown, an introducing line as a table's caption,
a caption's dataset under a row's own run. The snippets follow the shapes of the real corpus's
development part (tests/data/reconcile_real/dev), with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim as claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.markdown import markdown_blocks

HTML = """\
Linear probe results:
<table><tbody>
<!-- header -->
<th valign="bottom"></th>
<th valign="bottom">epochs</th>
<th valign="bottom">Alpha<br/>top-1 acc.</th>
<th valign="bottom" colspan="2">Beta<br/>top-1 acc.</th>
<tr><td align="left"><a href="https://example.org/r50">ResNet-50</a></td>
<td align="center">100</td>
<td align="center">61.4&plusmn;0.3</td>
<td align="center">66.2&plusmn;0.2</td><td>&#x2713</td>
</tr>
</tbody></table>
"""
ALPHA_BETA = [claim("imagenet", name.lower(), "top1_accuracy", value,
                    [name, "ResNet-50", "top-1 acc."], n=5,
                    variance={"type": "std", "value": std})
              for name, value, std in (("Alpha", 61.4, 0.3), ("Beta", 66.2, 0.2))]


def test_an_html_table_has_header_cells_outside_rows_spans_and_entities_read():
    (table,) = [block for block in markdown_blocks(HTML) if isinstance(block, Table)]
    assert table.header == ["", "epochs", "Alpha top-1 acc.", "Beta top-1 acc.",
                            "Beta top-1 acc."]
    assert [[cell.text for cell in row] for row in table.rows] == [
        ["ResNet-50", "100", "61.4\u00b10.3", "66.2\u00b10.2", "\u2713"]]
    assert [cell.line for cell in table.rows[0]] == [8, 9, 10, 11, 11]
    assert table.caption == "Linear probe results:"


def test_an_html_tables_cells_are_checked_with_their_spreads(tmp_path):
    clean = run(tmp_path, ALPHA_BETA, HTML)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("alpha", 10, "61.4"), ("alpha", 10, "\u00b1 0.3"),
                                       ("beta", 11, "66.2"), ("beta", 11, "\u00b1 0.2")}
    drifted = run(tmp_path, ALPHA_BETA, HTML.replace("66.2&plusmn;0.2", "66.2&plusmn;0.4"))
    assert found(drifted) == {("beta", 11, "\u00b1 0.4")}


def test_a_row_naming_its_own_run_beats_the_dataset_its_caption_names(tmp_path):
    claims = [claim("imagenet", "mix", "top1_error", 22.10, ["Mix", "ResNet-50", "Top-1 Error"]),
              claim("imagenet_r101", "mix", "top1_error", 20.64,
                    ["Mix", "ResNet-101", "Top-1 Error"])]
    text = ("ResNet models trained on ImageNet:\n\n"
            "Method | Top-1 Error\n-- | --\n"
            "ResNet-50 + Mix | 22.10\nResNet-101 + Mix | 20.46\n")
    assert found(run(tmp_path, claims, text)) == {("mix", 6, "20.46")}


TWO_METRICS = [claim("imagenet", "wide", metric, value, ["Wide-50", word, "ImageNet"],
                     direction="lower")
               for metric, value, word in (("top1_error", 22.3, "top-1"),
                                           ("top5_error", 6.12, "top-5"))]


def test_a_cell_holding_two_metrics_gives_each_number_its_own(tmp_path):
    text = ("Dataset | network | test perf.\n--|--|--\nSVHN | Wide-16 | 1.61%\n"
            "ImageNet | Wide-50 | 22.3% top-1, 6.12% top-5\n")
    clean = run(tmp_path, TWO_METRICS, text)
    assert found(clean, "matched") == {("wide", 4, "22.3%"), ("wide", 4, "6.12%")}
    assert clean["drift"] == [] and clean["unmapped"] == []
    drifted = run(tmp_path, TWO_METRICS, text.replace("6.12%", "6.21%"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("imagenet/wide/top5_error/test", "6.21%")]


UNNAMED = [claim("c10", f"ours_{size}", "accuracy", value, ["Ours", "CIFAR-10", "Acc."])
           for size, value in (("1e3", 71.2), ("5e3", 74.8), ("5e3_soft", 75.1))]
UNNAMED_TABLE = r"""\begin{tabular}{lccc}
Method & $|D|$ & Soft & Acc. \\ \hline
Other \cite{x} & $1\cdot10^3$ & $\times$ & 70.4 \\
Ours & $1\cdot10^3$ & $\times$ & 71.2 \\
Ours & $5\cdot10^3$ & $\times$ & 74.8 \\
Ours & $5\cdot10^3$ & \checkmark & 75.1 \\
\end{tabular}
"""


def test_rows_no_name_tells_apart_take_the_claims_their_siblings_leave(tmp_path):
    def report(text: str) -> dict:
        return run(tmp_path, UNNAMED, text, "paper.tex")

    clean = report(UNNAMED_TABLE)
    assert found(clean, "matched") == {("ours_1e3", 4, "71.2"), ("ours_5e3", 5, "74.8"),
                                       ("ours_5e3_soft", 6, "75.1")}
    assert clean["drift"] == [] and clean["unmapped"] == []
    one = report(UNNAMED_TABLE.replace("74.8", "74.5"))
    assert found(one) == {("ours_5e3", 5, "74.5")}
    two = report(UNNAMED_TABLE.replace("74.8", "74.5").replace("75.1", "75.4"))
    # both cells are wrong whichever claim each states; paired by the closest values
    assert found(two) == {("ours_5e3", 5, "74.5"), ("ours_5e3_soft", 6, "75.4")}
    assert two["unmapped"] == []
    more = report(UNNAMED_TABLE.replace("74.8", "74.5").replace("71.2", "72.0").replace(
        "75.1", "75.6"))
    assert {line for _, line, _ in found(more)} == {4, 5, 6}


def test_a_columns_alias_beats_the_generic_metric_a_caption_names(tmp_path):
    claims = [claim("imagenet", "ours", metric, value, ["Ours", word])
              for metric, value, word in (("top1_accuracy", 33.9, "Top1"),
                                          ("top5_accuracy", 55.2, "Top5"))]
    claims.append(claim("c10", "ours", "accuracy", 86.1, ["Ours", "Acc."]))
    text = ("Handcrafted accuracies on ImageNet:\n\n| Method | Top1 | Top5 |\n|---|---|---|\n"
            "| Ours | 33.9 | 55.8 |\n")
    report = run(tmp_path, claims, text)
    assert found(report) == {("ours", 5, "55.8")}
    assert found(report, "matched") == {("ours", 5, "33.9")}


IN_TURN = [claim(exp, f"{net}_{way}", "top1_error", value, [name, "Ours", way, title],
                 direction="lower")
           for exp, title in (("c10", "CIFAR-10"), ("c100", "CIFAR-100"))
           for net, name in (("wrn", "WRN-40-2"), ("shake", "Shake-26"))
           for way, value in (("transfer", {"c10": 3.6, "c100": 20.7}[exp]),
                              ("direct", {"c10": 3.7, "c100": 20.6}[exp]))]
IN_TURN_TEXT = """\
## Results / CIFAR-10 / 100

| Model(CIFAR-10) | Baseline | Cutout | Ours<br/>(transfer/direct) |
|---|---|---|---|
| WRN-40-2 | 5.3 | 3.7 | 3.6 / 3.7 |
| Shake-26 | 3.6 | 3.0 | 3.6 / 3.7 |

| Model(CIFAR-100) | Baseline | Cutout | Ours<br/>(transfer/direct) |
|---|---|---|---|
| WRN-40-2 | 26.0 | 20.6 | 20.7 / 20.6 |
| Shake-26 | 20.7 | 16.0 | 20.7 / 20.6 |
"""


def test_a_header_naming_a_cells_numbers_in_turn_beside_other_systems_columns(tmp_path):
    clean = run(tmp_path, IN_TURN, IN_TURN_TEXT)
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {
        (variant, line, value) for line, values in ((5, ("3.6", "3.7")), (6, ("3.6", "3.7")),
                                                    (10, ("20.7", "20.6")),
                                                    (11, ("20.7", "20.6")))
        for variant, value in zip(("wrn_transfer", "wrn_direct") if line in (5, 10) else
                                  ("shake_transfer", "shake_direct"), values, strict=True)}
    drifted = run(tmp_path, IN_TURN, IN_TURN_TEXT.replace("20.7 / 20.6 |\n| Shake",
                                                          "20.7 / 20.9 |\n| Shake"))
    # the direct number of the CIFAR-100 table, not the CIFAR-10 run the scope names first;
    # the Baseline and Cutout columns (other systems') are never read
    assert found(drifted) == {("wrn_direct", 10, "20.9")}
    assert {item["claim"] for item in drifted["drift"]} == {"c100/wrn_direct/top1_error/test"}


def test_a_row_of_settings_keeps_what_the_columns_alias_pins(tmp_path):
    claims = [claim("imagenet", f"bs{size}", "top1_accuracy", value, ["ResNet-50", "top-1 acc."])
              for size, value in ((512, 68.1), (256, 68.3))]
    text = ("Our pre-trained ResNet-50 models:\n<table><tbody>\n"
            "<th>epochs</th><th>batch<br/>size</th><th>ckpt</th><th>top-1 acc.</th>\n"
            "<tr><td>100</td><td>512</td><td><a href='x'>link</a></td><td>68.1</td></tr>\n"
            "<tr><td>100</td><td>256</td><td><a href='y'>link</a></td><td>68.3</td></tr>\n"
            "</tbody></table>\n")
    assert found(run(tmp_path, claims, text), "matched") == {("bs512", 4, "68.1"),
                                                             ("bs256", 5, "68.3")}
    assert found(run(tmp_path, claims, text.replace("68.3", "68.6"))) == {("bs256", 5, "68.6")}


def test_other_systems_rows_beside_the_projects_are_left_alone(tmp_path):
    claims = [claim(exp, "xlnet", "error_rate", value, ["XLNet-Large", name], direction="lower")
              for exp, name, value in (("imdb", "IMDB", 3.79), ("yelp2", "Yelp-2", 1.55))]
    text = ("Model | IMDB | Yelp-2\n--- | --- | ---\nBERT-Large | 4.51 | 1.89\n"
            "XLNet-Large | **3.79** | **1.55**\n")
    clean = run(tmp_path, claims, text)
    assert clean["drift"] == [] and found(clean, "matched") == {("xlnet", 4, "3.79"),
                                                                ("xlnet", 4, "1.55")}
    assert found(run(tmp_path, claims, text.replace("1.55", "1.57"))) == {("xlnet", 4, "1.57")}


def test_cells_introduced_by_their_metrics_name_beside_times(tmp_path):
    claims = [claim(exp, "sgc", "accuracy", value, ["SGC", name, "Acc"])
              for exp, name, value in (("cora", "Cora", 81.0), ("citeseer", "Citeseer", 71.9))]
    text = ("Dataset | Metric | Training Time\n:--:|:--:|:--:|\nCora | Acc: 81.0 % | 0.13s\n"
            "Citeseer| Acc: 71.9 % | 0.14s\n")
    assert found(run(tmp_path, claims, text), "matched") == {("sgc", 3, "81.0 %"),
                                                             ("sgc", 4, "71.9 %")}
    assert found(run(tmp_path, claims, text.replace("71.9", "72.3"))) == {("sgc", 4, "72.3 %")}


def test_a_header_td_outside_any_row_and_a_method_named_like_a_metric(tmp_path):
    claims = [claim("imagenet", name.lower(), "top1_accuracy", value,
                    [name, "ImageNet-1K (no external data)"], split="val")
              for name, value in (("ViT-B", 83.6), ("ViT-L", 85.9))]
    text = ("## Fine-tuning Pre-trained MAE\n\nBy fine-tuning these models, we rank #1:\n"
            "<table><tbody>\n<th></th>\n<th>ViT-B</th>\n<th>ViT-L</th>\n"
            "<td style=\"color:#C0C0C0\">prev best</td>\n"
            "<tr><td>ImageNet-1K (no external data)</td>\n<td>83.6</td>\n<td>85.9</td>\n"
            "<td style=\"color:#C0C0C0\">85.1</td>\n</tr>\n</tbody></table>\n")
    clean = run(tmp_path, claims, text)
    assert clean["drift"] == [] and found(clean, "matched") == {("vit-b", 10, "83.6"),
                                                                ("vit-l", 11, "85.9")}
    assert found(run(tmp_path, claims, text.replace("85.9", "86.2"))) == {("vit-l", 11, "86.2")}


ROBUST = [claim(task, variant, "avg_return", value, [name, f"{task} task", "avg"])
          for task, variant, name, value in (("obstacle", "robust", r"\Cref{alg:full}", 13.0),
                                             ("driving", "robust", r"\Cref{alg:full}", 7.1),
                                             ("obstacle", "oracle", "Oracle", 14.2),
                                             ("driving", "oracle", "Oracle", 7.4))]
ROBUST_TABLE = r"""\begin{table}
\caption{Average return, repeated with 100 random seeds.}
\subfigure[Performances on the obstacle task]{
  \begin{tabular}{lc}
  Performance & avg \\
  Oracle & $14.2$ \\
  \Cref{alg:full} & $13.0$ \\
  \end{tabular}
}
\subfigure[Performances on the driving task]{
  \begin{tabular}{lc}
  Performance & avg \\
  Oracle & $7.4$ \\
  \Cref{alg:full} & $7.1$ \\
  \end{tabular}
}
\end{table}
"""


def test_each_subfigure_captions_its_tabular_and_a_reference_names_a_row(tmp_path):
    clean = run(tmp_path, ROBUST, ROBUST_TABLE, "paper.tex")
    assert clean["drift"] == [] and len(clean["matched"]) == 4
    drifted = run(tmp_path, ROBUST, ROBUST_TABLE.replace("$7.1$", "$7.3$"), "paper.tex")
    assert [item["claim"] for item in drifted["drift"]] == ["driving/robust/avg_return/test"]


def test_names_written_as_inline_code_name_a_tables_columns(tmp_path):
    claims = [claim("breakout", script.split(".")[0], "episodic_return", value,
                    [f"`{script}` 10M steps", "BreakoutNoFrameskip-v4"])
              for script, value in (("dqn_atari.py", 366.928), ("dqn_atari_jax.py", 380.0))]
    text = ("| Environment | `dqn_atari.py` 10M steps | `dqn_atari_jax.py` 10M steps |\n"
            "| --- | --- | --- |\n| BreakoutNoFrameskip-v4 | {} ± 39.89 | {} ± 20.1 |\n")
    clean = run(tmp_path, claims, text.format("366.928", "380.0"))
    assert clean["drift"] == [] and found(clean, "matched") >= {
        ("dqn_atari", 3, "366.928"), ("dqn_atari_jax", 3, "380.0")}
    swapped = run(tmp_path, claims, text.format("380.0", "366.928"))  # each the other's
    assert found(swapped) == {("dqn_atari", 3, "380.0"), ("dqn_atari_jax", 3, "366.928")}


GLUE = [claim(task, f"{model}_lora", "accuracy", value, [f"{name} <br> LoRA", name, "LoRA", title],
              split="dev")
        for model, name in (("roberta_base", "RoBERTa base"), ("deberta_xxl", "DeBERTa XXL"))
        for task, title, value in (("sst2", "SST2 (Acc)", {"roberta_base": 95.1,
                                                            "deberta_xxl": 96.9}[model]),
                                   ("rte", "RTE (Acc)", {"roberta_base": 86.6,
                                                         "deberta_xxl": 94.9}[model]))]
GLUE_TABLE = """\
|   | RoBERTa base <br> Fine-tune | RoBERTa base <br> LoRA | DeBERTa XXL <br> Fine-tune \
| DeBERTa XXL <br> LoRA |
|---|---|---|---|---|
| SST2 (Acc) | 94.8 | 95.1±.2 | 97.2 | 96.9±.2 |
| RTE (Acc) | 78.7 | 86.6±.7 | 93.9 | 94.9±.4 |
"""


def test_a_rival_header_the_projects_aliases_only_partly_name_is_another_systems(tmp_path):
    clean = run(tmp_path, GLUE, GLUE_TABLE)
    # the Fine-tune columns share "RoBERTa base" with the LoRA ones: other systems' numbers
    assert clean["drift"] == [] and {value for _, _, value in found(clean, "matched")} >= {
        "95.1", "96.9", "86.6", "94.9"}
    drifted = run(tmp_path, GLUE, GLUE_TABLE.replace("86.6±", "86.9±"))
    assert found(drifted) == {("roberta_base_lora", 4, "86.9")}


def test_a_percent_that_follows_a_number_in_a_row_label_declares_no_unit(tmp_path):
    claims = [claim("in128_50", "biggan", "fid", 9.64, ["`mit-han-lab:biggan-0.5`", "FID"],
                    direction="lower", unit=None)]
    text = ("| Model name | Dataset | FID |\n|---|---|---|\n"
            "| `mit-han-lab:biggan-0.5` | `imagenet_128` (50% data) | 9.64 |\n")
    clean = run(tmp_path, claims, text)
    assert clean["drift"] == [] and found(clean, "matched") == {("biggan", 3, "9.64")}


def test_an_official_papers_row_beside_a_re_implementations_is_left_alone(tmp_path):
    claims = [claim("shapenet", "pointnet", metric, value,
                    ["PointNet (Pytorch)", "PointNet", name])
              for metric, name, value in (("instance_miou", "Inctance avg IoU", 84.3),
                                          ("class_miou", "Class avg IoU", 81.1))]
    claims.append(claim("modelnet40", "pointnet", "accuracy", 90.6, ["PointNet", "ModelNet40"]))
    text = ("| Model | Inctance avg IoU| Class avg IoU\n|--|--|--|\n"
            "|PointNet (Official)\t|83.7|80.4\t\n|PointNet (Pytorch)|\t84.3\t|81.1|\t\n")
    clean = run(tmp_path, claims, text)
    assert clean["drift"] == [] and found(clean, "matched") == {("pointnet", 4, "84.3"),
                                                                ("pointnet", 4, "81.1")}
