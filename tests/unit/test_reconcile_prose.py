"""Prose of papers and READMEs named only by the evidence's aliases: the run a sentence
describes carries to the next one's result, a sentence about cited work quotes that work's
numbers, an alias that is a metric's name (a column header) names no variant. Snippets shaped
like the real corpus's development part, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim, outcomes, reconcile_text

SOFT = alias_claim("c10", "soft-vs-hard", "accuracy", 0.3, ["soft assignment"],
                   candidate="soft", baseline="hard", difference=0.3)
NOISE = alias_claim("c10", "noise-vs-hard", "accuracy", -7.9, ["white noise"],
                    candidate="noise", baseline="hard", difference=-7.9)
HARD = alias_claim("c10", "hard", "accuracy", 84.2, ["Ours", "Acc."])
NOISY = alias_claim("c10", "noise", "accuracy", 76.3, ["white noise", "Accuracy"])


def test_the_run_a_sentence_describes_carries_to_the_next_ones_result(tmp_path):
    text = ("We replace the hard assignment by a soft assignment with a sigmoid. "
            "The accuracy increases by {}%, which does not affect much the performance.\n")
    claims = [SOFT, NOISE, HARD, NOISY]
    assert outcomes(reconcile_text(tmp_path, claims, text.format("0.3")), "matched") == {
        ("soft-vs-hard", 1, "0.3%")}
    drifted = reconcile_text(tmp_path, claims, text.format("0.5"))
    assert outcomes(drifted) == {("soft-vs-hard", 1, "0.5%")} and drifted["unmapped"] == []


def test_a_sentence_about_cited_work_quotes_its_numbers(tmp_path):
    text = ("Sparse coding representations used by [4, 7] can be seen as soft assignment and "
            "yield a comparable accuracy (resp. 80.1% and 83.9%).\n")
    report = reconcile_text(tmp_path, [SOFT, NOISE, HARD, NOISY], text)
    assert report["drift"] == [] and report["unmapped"] == []


def test_an_alias_that_is_a_metrics_name_names_no_variant(tmp_path):
    text = "Other representations yield a comparable accuracy of 81.5%.\n"
    report = reconcile_text(tmp_path, [HARD, NOISY], text)
    assert report["drift"] == []  # not white noise's: "Accuracy" is its column, not its name
    assert [item["line"] for item in report["unmapped"]] == [1]


ANISO = alias_claim("c10", "aniso-vs-iso", "accuracy", 8.15, ["anisotropic spaces instead of "
                                                                "isotropic ones"],
                    candidate="aniso", baseline="iso", difference=8.15)
STL = [alias_claim("stl10", variant, "accuracy", value, ["STL10", "Test accuracy", variant])
       for variant, value in (("invariant", 68.98), ("equivariant", 74.02))]


def test_a_run_in_heading_keeps_its_paragraph_and_a_noun_after_the_number_says_difference(
        tmp_path):
    text = ("\\paragraph{Spatial anisotropy.} We observe that using anisotropic spaces instead "
            "of isotropic ones is relevant, as we almost get an {}\\% test-accuracy "
            "improvement.\n")
    claims = [ANISO, *STL]
    clean = reconcile_text(tmp_path, claims, text.replace("{}", "8"), "paper.tex")
    # "Test accuracy" is the STL10 table's column: a metric's name, which implies no dataset
    assert outcomes(clean, "matched") == {("aniso-vs-iso", 1, "8%")}
    drifted = reconcile_text(tmp_path, claims, text.replace("{}", "11"), "paper.tex")
    assert outcomes(drifted) == {("aniso-vs-iso", 1, "11%")}


VANILLA = [alias_claim("imagenet", "vit_s_100ep", metric, value,
                       ["Vanilla DINO training", "ViT-small", word], split="val")
           for metric, value, word in (("knn_accuracy", 69.3, "k-NN eval"),
                                       ("linear_accuracy", 74.0, "linear eval"))]


def test_what_training_costs_and_a_run_named_training_are_no_split(tmp_path):
    text = ("### Vanilla DINO training\n"
            "Run DINO with ViT-small for 100 epochs. Training time is 1.75 day and the resulting "
            "checkpoint should reach {}% on k-NN eval and 74.0% on linear eval.\n")
    clean = reconcile_text(tmp_path, VANILLA, text.format("69.3"))
    assert outcomes(clean, "matched") == {("vit_s_100ep", 2, "69.3%"),
                                          ("vit_s_100ep", 2, "74.0%")}
    drifted = reconcile_text(tmp_path, VANILLA, text.format("69.5"))
    assert outcomes(drifted) == {("vit_s_100ep", 2, "69.5%")}


REDDIT = alias_claim("reddit", "sgc", "f1", 95.0, ["SGC", "F1", "F1 score"])


def test_a_superseded_number_and_another_repositorys_are_left_alone(tmp_path):
    text = ("There was a bug in our preprocessing code for the reddit dataset. After fixing "
            "this bug, SGC achieves a F1 score of {} (previously, it was 94.9). Other methods "
            "were presented in someone's repo, which obtained 91.2 F1 on the reddit dataset.\n")
    clean = reconcile_text(tmp_path, [REDDIT], text.format("95.0"))
    assert clean["drift"] == [] and outcomes(clean, "matched") == {("sgc", 1, "95.0")}
    assert outcomes(reconcile_text(tmp_path, [REDDIT], text.format("95.2"))) == {
        ("sgc", 1, "95.2")}


TRIALS = alias_claim("imagenet", "vit_l", "top1_accuracy", 85.87, ["ViT-Large", "trials"], n=4,
                     split="dev", variance={"type": "std", "value": 0.07})


def test_a_spread_in_words_after_its_mean_on_a_split_the_evidence_calls_dev(tmp_path):
    text = ("Fine-tuning ViT-Large on the dev set: we have run 4 trials. The results are "
            "85.95, 85.87, 85.76, 85.88 (mean 85.87 and std {}).\n")
    clean = reconcile_text(tmp_path, [TRIALS], text.format("0.07"))
    assert clean["drift"] == [] and ("vit_l", 1, "\u00b1 0.07") in outcomes(clean, "matched")
    assert outcomes(reconcile_text(tmp_path, [TRIALS], text.format("0.10"))) == {
        ("vit_l", 1, "\u00b1 0.10")}


CKPT = [alias_claim("imagenet", f"{name}_{kind}", metric, value,
                    [label, word, "ImageNet"] + (["fine-tuned checkpoint"] if kind == "ckpt"
                                                 else ["paper"]), split="val")
        for name, label in (("vit_b", "ViT-Base"), ("vit_l", "ViT-Large"))
        for kind, metric, word, value in (
            ("ckpt", "top1_accuracy", "Acc@1", {"vit_b": 83.664, "vit_l": 85.952}[name]),
            ("ckpt", "top5_accuracy", "Acc@5", {"vit_b": 96.530, "vit_l": 97.566}[name]),
            ("paper", "top1_accuracy", "top-1", {"vit_b": 83.6, "vit_l": 85.9}[name]))]
OUTPUT = """\
Evaluate ViT-Base in a single GPU:
```
python main_finetune.py --eval --resume mae_finetuned_vit_base.pth --batch_size 16
```
This should give:
```
* Acc@1 {} Acc@5 96.530 loss 0.731
```
"""


def test_a_block_a_line_presents_as_output_is_read_with_the_text_that_introduced_it(tmp_path):
    clean = reconcile_text(tmp_path, CKPT, OUTPUT.format("83.664"))
    # the command's numbers are not read; each logged number is its label's metric
    assert clean["drift"] == [] and outcomes(clean, "matched") == {
        ("vit_b_ckpt", 7, "83.664"), ("vit_b_ckpt", 7, "96.530")}
    assert outcomes(reconcile_text(tmp_path, CKPT, OUTPUT.format("83.864"))) == {
        ("vit_b_ckpt", 7, "83.864")}


GPT2 = [alias_claim("owt", "gpt2_repro", "loss", 2.85, ["GPT-2 (124M)"],
                    split="val"),
        alias_claim("owt", "gpt2_medium", "loss", 2.84, ["gpt2-medium"], split="val")]
AFTER_CODE = """\
To reproduce GPT-2 (124M) you'll want at least an 8X A100 40GB node and run:

```sh
torchrun --standalone --nproc_per_node=8 train.py config/train_gpt2.py
```

This will run for about 4 days and go down to loss of ~{}.
"""


def test_a_paragraph_pointing_back_across_code_continues_the_one_before(tmp_path):
    clean = reconcile_text(tmp_path, GPT2, AFTER_CODE.format("2.85"))
    assert clean["drift"] == [] and outcomes(clean, "matched") == {("gpt2_repro", 7, "2.85")}
    assert outcomes(reconcile_text(tmp_path, GPT2, AFTER_CODE.format("2.95"))) == {
        ("gpt2_repro", 7, "2.95")}


PTB = [alias_claim("ptb", f"qrnn{stage}", "perplexity", value, [
    "QRNN", words, "Word level Penn Treebank (PTB) with QRNN", "perplexities"], split=split)
    for stage, words, split, value in (
        ("", "without finetuning", "val", 60.6), ("", "without finetuning", "test", 58.3),
        ("_finetune", "with finetuning", "val", 59.1),
        ("_finetune", "with finetuning", "test", 56.7))]
PTB_TEXT = ("### Word level Penn Treebank (PTB) with QRNN\n"
            "The instruction below trains a model that without finetuning achieves perplexities "
            "of approximately `60.6` / `58.3` (validation / testing), with finetuning achieves "
            "perplexities of approximately `59.1` / `{}`.\n\n"
            "+ `python main.py --epochs 500 --data data/penn --dropouti 0.4 --seed 9001`\n")


def test_numbers_named_in_turn_by_their_sentence_and_a_stage_named_in_their_clause(tmp_path):
    clean = reconcile_text(tmp_path, PTB, PTB_TEXT.format("56.7"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert outcomes(clean, "matched") == {("qrnn", 2, "60.6"), ("qrnn", 2, "58.3"),
                                          ("qrnn_finetune", 2, "59.1"),
                                          ("qrnn_finetune", 2, "56.7")}
    drifted = reconcile_text(tmp_path, PTB, PTB_TEXT.format("56.9"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("ptb/qrnn_finetune/perplexity/test", "56.9")]


EIGHT_HUNDRED = [alias_claim("imagenet", variant, "top1_accuracy", value,
                             ["ViT-Large", "800 epochs", name, "fine-tuning"], split="val")
                 for variant, name, value in (("paper", "paper Table 1d", 85.4),
                                              ("pt", "PT/GPU", 85.5))]


def test_a_parenthesis_names_its_own_run_and_an_earlier_sentences_metric_decides_nothing(
        tmp_path):
    text = ("The exact same hyper-parameters are used as in our TF/TPU code. We get {}% "
            "fine-tuning accuracy by pre-training ViT-Large for 800 epochs (85.4% in paper "
            "Table 1d).\n")
    clean = reconcile_text(tmp_path, EIGHT_HUNDRED, text.format("85.5"))
    assert clean["drift"] == [] and outcomes(clean, "matched") == {("pt", 1, "85.5%"),
                                                                   ("paper", 1, "85.4%")}
    drifted = reconcile_text(tmp_path, EIGHT_HUNDRED, text.format("85.7"))
    # no name outside the parenthesis tells the two runs apart: unmapped, not the paper's drift
    assert drifted["drift"] == [] and [item["line"] for item in drifted["unmapped"]] == [1]
