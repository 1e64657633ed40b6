"""Documents ``rgt reconcile`` never saw, named only by their evidence's aliases (no claims
file): each alias names the claims that carry it, so a table cell is the claim its column,
row and headings all name; a row naming nothing but the experiment is its baseline; a table
note below a ``tabular`` is read; an evidence in percent is compared as percent. The
snippets follow the shapes of public READMEs and papers (tests/data/reconcile_real/dev)."""

from __future__ import annotations

import pytest

from rgt.evidence.reconcile import reconcile


def claim(exp: str, variant: str, metric: str, value: float, aliases: list[str],
          **extra) -> dict:
    return {"id": f"{exp}/{variant}/{metric}/test", "metric": metric, "exp_id": exp,
            "variant": variant, "split": "test", "direction": "higher", "value": value,
            "aliases": aliases, **extra}


SWA_CELLS = {("c100", "vgg16"): ((72.55, 0.10), (74.27, 0.25)),
             ("c100", "wrn"): ((80.82, 0.23), (82.15, 0.27)),
             ("c10", "vgg16"): ((93.25, 0.16), (93.64, 0.18)),
             ("c10", "wrn"): ((96.18, 0.11), (96.79, 0.05))}
SWA_NAMES = {"c100": "CIFAR-100", "c10": "CIFAR-10", "vgg16": "VGG16", "wrn": "WideResNet28x10",
             "sgd": "SGD", "swa": "SWA 1.5 Budgets"}
SWA = [claim(f"{data}_{net}", variant, "accuracy", value,
             [SWA_NAMES[variant], SWA_NAMES[data], SWA_NAMES[net]], unit="%",
             variance={"type": "std", "value": std})
       for (data, net), cells in SWA_CELLS.items()
       for variant, (value, std) in zip(("sgd", "swa"), cells, strict=True)]
SWA_TABLES = """\
## CIFAR-100

| DNN (Budget) | SGD | SWA 1.5 Budgets |
|---|---|---|
| VGG16 (200) | 72.55 ± 0.10 | 74.27 ± 0.25 |
| WideResNet28x10 (200) | 80.82 ± 0.23 | 82.15 ± 0.27 |

## CIFAR-10

| DNN (Budget) | SGD | SWA 1.5 Budgets |
|---|---|---|
| VGG16 (200) | 93.25 ± 0.16 | 93.64 ± 0.18 |
| WideResNet28x10 (200) | 96.18 ± 0.11 | 96.79 ± 0.05 |
"""


def run(tmp_path, claims: list[dict], text: str, suffix: str = ".md") -> dict:
    path = tmp_path / f"doc{suffix}"
    path.write_text(text, encoding="utf-8")
    return reconcile(claims, [path])


def drifts(report: dict) -> set[tuple[int, str, str]]:
    return {(item["line"], item["claim"], item["found"]) for item in report["drift"]}


def test_a_cell_is_the_claim_its_heading_row_and_column_aliases_all_name(tmp_path):
    report = run(tmp_path, SWA, SWA_TABLES)
    assert (report["drift"], report["unmapped"]) == ([], [])
    assert len(report["matched"]) == 16  # 8 means and their spreads
    stale = SWA_TABLES.replace("96.18 ± 0.11", "96.18 ± 0.17").replace("74.27", "74.72")
    assert drifts(run(tmp_path, SWA, stale)) == {
        (5, "c100_vgg16/swa/accuracy/test", "74.72"),
        (13, "c10_wrn/sgd/accuracy/test", "± 0.17")}


CUTMIX = [claim("imagenet", variant, "top1_error", value, [name, "ResNet-50", "ResNet50",
                                                            "ImageNet Cls", "Top-1 Error"],
                direction="lower", unit="%")
          for variant, name, value in (("baseline", "baseline", 23.68),
                                       ("cutmix", "CutMix", 21.40), ("mixup", "Mixup", 22.58))]
CUTMIX += [claim("cifar100", "dropblock", "top1_error", 15.73, ["DropBlock", "PyramidNet-200"],
                 direction="lower", unit="%"),
           {**claim("imagenet", "cutmix-vs-baseline", "top1_error", 2.28, ["gain from CutMix"],
                    direction="lower", unit="%"), "candidate": "cutmix", "baseline": "baseline"}]


def test_row_labels_with_venue_citations_and_a_row_naming_only_the_experiment(tmp_path):
    text = """\
Method | Top-1 Error | Model file
-- | -- | --
ResNet-50 [[CVPR'16](https://arxiv.org/abs/1512.03385)] (baseline) | 23.68 | [model](x)
ResNet-50 + **CutMix** | **21.40** | [model](x)
ResNet-50 + DropBlock [[NeurIPS'18](https://arxiv.org/abs/1810.12890)] | 21.87* | -

Backbone | ImageNet Cls (%) | ImageNet Loc (%)
-- | -- | --
ResNet50 | 23.68 | 46.3
ResNet50+Mixup | 22.58 | 45.84
"""
    report = run(tmp_path, CUTMIX, text)
    assert (report["drift"], report["unmapped"]) == ([], [])  # DropBlock: another dataset's
    assert {(m["line"], m["claim"]) for m in report["matched"]} == {
        (3, "imagenet/baseline/top1_error/test"), (4, "imagenet/cutmix/top1_error/test"),
        (9, "imagenet/baseline/top1_error/test"), (10, "imagenet/mixup/top1_error/test")}
    stale = text.replace("| 23.68 | 46.3", "| 23.86 | 46.3")
    assert drifts(run(tmp_path, CUTMIX, stale)) == {(9, "imagenet/baseline/top1_error/test",
                                                    "23.86")}


def test_an_evidence_in_percent_is_stated_in_percent_or_as_a_fraction(tmp_path):
    text = "With CutMix the ResNet-50 top-1 error is 21.40% (0.2140), down from 23.68%.\n"
    report = run(tmp_path, CUTMIX, text)
    assert report["ok"] and {m["found"] for m in report["matched"]} >= {"21.40%", "0.2140"}
    (item,) = run(tmp_path, CUTMIX, text.replace("21.40%", "21.04%"))["drift"]
    assert (item["expected"], item["fix"]) == (21.40, "21.40%")  # in the evidence's unit


COLES = [claim(exp, variant, metric, value, names + [exp_name, metric_name], n=5,
               variance={"type": "std", "value": std})
         for exp, exp_name, metric, metric_name in (("age", "Age", "accuracy", "Accuracy"),
                                                    ("churn", "Churn", "auroc", "AUROC"))
         for variant, names, value, std in (
             ("coles", ["CoLES"], {"age": 0.638, "churn": 0.843}[exp], 0.007),
             ("coles_pretrain", ["CoLES pretrain"], {"age": 0.644, "churn": 0.827}[exp],
              0.004),
             ("supervised", ["Supervised learning"], {"age": 0.628, "churn": 0.817}[exp],
              0.004))]
LATEX_TABLE = r"""\begin{table}
    \caption{Quality of the pre-trained model on the downstream tasks}
    \begin{tabularx}{\linewidth}{Xcc}
        \toprule
            \textbf{Method}
            & \makecell{\textbf{Age} \\ \small{Accuracy}}
            & \makecell{\textbf{Churn} \\ \small{AUROC}}
            \\
        \midrule
            \textbf{Super\-vised learning} & $0.628$\tiny{$\pm 0.004$} & $0.817$\tiny{$\pm 0.004$}\\
            \textbf{CoLES pretrain} & \bm{$0.644$}\tiny{$\pm 0.004$} & \num{0.827 \pm 0.004} \\
            \textbf{CoLES} & \SI{63.8}{\percent} & 0.843 \\
            \textbf{GRU} & 0.638 & 0.812 \\
        \bottomrule
    \end{tabularx}%
    \\
    \small{average test set quality metric and its standard deviation for 5 runs is shown}
\end{table}
"""


def test_latex_cells_header_line_breaks_hyphens_and_the_table_note(tmp_path):
    report = run(tmp_path, COLES, LATEX_TABLE, ".tex")
    assert (report["drift"], report["unmapped"]) == ([], [])
    found = {(m["line"], m["found"]) for m in report["matched"]}
    assert {(10, "0.628"), (10, "± 0.004"), (11, "0.827"), (11, "± 0.004"), (12, "63.8%"),
            (17, "5 runs")} <= found
    stale = LATEX_TABLE.replace(r"\num{0.827 \pm 0.004}", r"\num{0.827 \pm 0.007}").replace(
        "5 runs", "3 runs").replace(r"\SI{63.8}", r"\SI{68.3}")
    assert {(line, found) for line, _, found in drifts(run(tmp_path, COLES, stale, ".tex"))} \
        == {(11, "± 0.007"), (12, "68.3%"), (17, "3 runs")}


CAPS = [claim(data, net, metric, value, [name, data_name, *words])
        for data, data_name in (("mnist", "MNIST"), ("svhn", "SVHN"))
        for net, name in (("convnet", "ConvNet"), ("capsnet", "CapsNet"))
        for metric, words, value in (
            ("cw_norm", ["CW"], {("mnist", "convnet"): 1.40, ("mnist", "capsnet"): 1.82,
                                 ("svhn", "convnet"): 0.67, ("svhn", "capsnet"): 0.60}[
                                     (data, net)]),
            ("accuracy", ["test accuracy"], {("mnist", "convnet"): 99.39,
                                              ("mnist", "capsnet"): 99.40,
                                              ("svhn", "convnet"): 92.57,
                                              ("svhn", "capsnet"): 92.35}[(data, net)]))]
CAPS = [{**c, "unit": "%"} if c["metric"] == "accuracy" else c for c in CAPS]
TWO_TABLES = r"""\begin{table*}[h]
	\begin{minipage}{.45\linewidth}
		\caption{Average perturbation norms for each attack and architecture.}
		\vskip 0.15in
		\begin{tabular}{llcc}
			Attack & Network & MNIST & SVHN \\
			\midrule
			\multirow{2}{*}{CW} & ConvNet & {$1.40$} & $0.67$ \\
			& CapsNet & $1.82$ & {$0.60$} \\
		\end{tabular}
	\end{minipage}
	\begin{minipage}{.45\linewidth}
		\caption{Fooling rates of adversarial examples, evaluated on the other network.}
		\vskip 0.15in
		\begin{tabular}{llcc}
			Attack & Network & MNIST & SVHN \\
			\midrule
			\multirow{2}{*}{CW} & ConvNet & $0.8\%$ & $2.8\%$ \\
			& CapsNet & $2.0\%$ & $3.8\%$ \\
		\end{tabular}
	\end{minipage}
\end{table*}
\begin{table}[h]
	\caption{Test accuracies achieved by our networks.}
	\begin{tabular}{lcc}
		Network & MNIST & SVHN \\
		\midrule
		ConvNet & $99.39\%$ & $92.57\%$ \\
		CapsNet & $99.40\%$ & $92.35\%$ \\
	\end{tabular}
\end{table}
"""


def test_each_table_of_a_float_has_its_own_caption_and_plurals_name_metrics(tmp_path):
    report = run(tmp_path, CAPS, TWO_TABLES, ".tex")
    assert (report["drift"], report["unmapped"]) == ([], [])  # fooling rates: not the norms
    assert {m["found"] for m in report["matched"]} == {"1.40", "0.67", "1.82", "0.60",
                                                        "99.39%", "92.57%", "99.40%", "92.35%"}
    stale = TWO_TABLES.replace("$92.35\\%$", "$92.53\\%$")
    assert drifts(run(tmp_path, CAPS, stale, ".tex")) == {(29, "svhn/capsnet/accuracy/test",
                                                            "92.53%")}


GPT = [claim("owt", "gpt2", "loss", 3.12, ["GPT-2 (124M)", "OpenWebText"], split="val",
             direction="lower"),
       claim("owt", "gpt2_xl", "loss", 2.54, ["gpt2-xl", "OpenWebText"], split="val",
             direction="lower"),
       claim("tiny", "cpu_gpt", "loss", 1.88, ["smaller Transformer"], split="val",
             direction="lower"),
       claim("tiny", "compile", "iter_ms", 135.0, ["torch.compile()"], split="train",
             direction="lower")]
GPT = [{**c, "id": c["id"].replace("/test", f"/{c['split']}")} for c in GPT]


@pytest.mark.parametrize(("text", "found"), [
    # "GPT-2" is the id gpt2; the 124M inside the name is no result
    ("To reproduce GPT-2 (124M) you need a node. A GPT-2 model evaluated on OpenWebText gets "
     "a val loss of about 3.11.", {("drift", "3.11")}),
    # an alias names its variant as well as an id (compile) named in an earlier sentence
    ("We turn off PyTorch 2.0 compile. We also use a much smaller Transformer. This gets us a "
     "loss of only 1.92.", {("drift", "1.92")}),
])
def test_names_with_digits_and_aliases_of_a_variant(tmp_path, text, found):
    report = run(tmp_path, GPT, text + "\n")
    assert {(status, item["found"]) for status in ("drift", "matched")
            for item in report[status]} == found and report["unmapped"] == []


def test_a_seed_count_above_a_table_is_the_claims_of_its_section(tmp_path):
    claims = [claim(f"c10_{net}", variant, "test_error", value, [name, "CIFAR-10"], n=n,
                    unit="%", direction="lower")
              for net, n, rows in (("resnet18", 5, (("baseline", "ResNet18", 4.72),
                                                    ("cutout", "ResNet18 + cutout", 3.99))),
                                   ("shake", 3, (("baseline", "Shake-shake", 2.86),
                                                 ("cutout", "Shake-shake + cutout", 2.56))))
              for variant, name, value in rows]
    text = ("### ResNet18\nTest error (%, mean of {n1} runs)\n\n| Network | CIFAR-10 |\n|---|---|\n"
            "| ResNet18 | 4.72 |\n| ResNet18 + cutout | 3.99 |\n\n### Shake-shake\n"
            "Test error (%, mean of {n2} runs)\n\n| Network | CIFAR-10 |\n|---|---|\n"
            "| Shake-shake | 2.86 |\n| Shake-shake + cutout | 2.56 |\n")
    report = run(tmp_path, claims, text.format(n1=5, n2=3))
    assert (report["drift"], report["unmapped"]) == ([], []) and len(report["matched"]) == 6
    assert drifts(run(tmp_path, claims, text.format(n1=5, n2=5))) == {
        (10, "c10_shake/baseline/test_error/test", "5 runs")}


def test_an_alias_of_punctuation_only_names_nothing_and_breaks_nothing(tmp_path):
    from reconcile_helpers import alias_claim, reconcile_text
    claims = [alias_claim("c10", "ours", "accuracy", 91.2, ["Ours", "-", "**"])]
    report = reconcile_text(tmp_path, claims, "| Method | Acc. |\n|---|---|\n| Ours | 91.2 |\n")
    assert report["drift"] == [] and report["unmapped"] == []


def _rating(variant: str, metric: str, value: float, names: list[str]) -> dict:
    return claim("yelp", variant, metric, value, [f"Ours ({variant.upper()})", "Yelp",
                                                   "the Yelp dataset", *names])


RATINGS = [_rating(variant, "gm", gm, ["GM"]) for variant, gm in (("dae", 0.21), ("vae", 0.24))] + [
    _rating(variant, "human_gm", gm, ["GM", "Manual evaluation on the Yelp dataset"])
    for variant, gm in (("dae", 3.83), ("vae", 4.16))]
MANUAL = ("\\begin{table}\n\\begin{tabular}{lc}\nModel & GM \\\\\n\\hline\n"
          "Ours (DAE) & DAE \\\\\nOurs (VAE) & 4.16 \\\\\n\\end{tabular}\n"
          "\\caption{Manual evaluation on the Yelp dataset.}\n\\end{table}\n")


@pytest.mark.parametrize("dae, found", [("3.83", set()), ("3.88", {"3.88"})],
                         ids=["clean", "drifted"])
def test_a_caption_s_alias_picks_which_of_the_row_s_claims_it_carries(tmp_path, dae, found):
    # before, the caption's words named every Yelp claim, and the column's `GM` named the
    # automatic geometric mean outright: the human ratings drifted from it
    path = tmp_path / "paper.tex"
    path.write_text(MANUAL.replace("& DAE", f"& {dae}"), encoding="utf-8")
    report = reconcile(RATINGS, [path], {}, "EVIDENCE.json")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == {
        (number, "yelp/dae/human_gm/test") for number in found}
    assert len(report["matched"]) == 2 - len(found)
