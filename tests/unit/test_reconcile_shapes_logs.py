"""Shapes of results the real corpus's twentieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a fine-tuning table whose cells
hold the accuracy, the training time, the accelerator and a link to the run's logs
(``98.72%, 3.9h (A100), [tb.dev](…)``); a table of short schedules whose rows only their
``total_steps / warmup_steps`` tell apart, beside a link column whose text is a site's name
(``tensorboard.dev``). The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim
from reconcile_helpers import outcomes as found
from reconcile_helpers import reconcile_text as run

FINETUNE = [alias_claim(dataset, f"vitb_do{tag}", "accuracy", value,
                        ["ViT-B_16", dataset, f"dropout=0.{tag[-1]}"])
            for dataset, tag, value in (("cifar10", "00", 98.61), ("cifar10", "01", 98.83))]
FINETUNE_TABLE = (
    "| model | dataset | dropout=0.0 | dropout=0.1 |\n|:--|:--|:--|:--|\n"
    "| ViT-B_16 | cifar10 | {first}%, 2.4h (A100), [tb.dev](https://logs.example/vitb/do_0.0)"
    " | 98.83%, 7.1h (V100), [tb.dev](https://logs.example/vitb/do_0.1) |\n")


def test_a_cell_of_a_result_its_training_time_accelerator_and_logs_link_is_read(tmp_path):
    # before, the accelerator and the link's words made the cell a name: nothing was checked
    clean = run(tmp_path, FINETUNE, FINETUNE_TABLE.format(first="98.61"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("vitb_do00", 3, "98.61%"), ("vitb_do01", 3, "98.83%")}
    drifted = run(tmp_path, FINETUNE, FINETUNE_TABLE.format(first="98.64"))
    assert found(drifted) == {("vitb_do00", 3, "98.64%")}


SCHEDULES = [alias_claim("cifar100", f"vitb_{steps}steps", "accuracy", value,
                         ["ViT-B_16", "cifar100", f"{steps} / {steps // 10}", "accuracy"])
             for steps, value in ((500, 88.95), (1000, 90.71))]
SCHEDULE_TABLE = (
    "| model | dataset | total_steps / warmup_steps | accuracy | wall-clock time | link |\n"
    "| --- | --- | --- | --- | --- | --- |\n"
    "| ViT-B_16 | cifar100 | 500 / 50 | 88.95% | 17m | [tensorboard.dev](https://l.example/a) |\n"
    "| ViT-B_16 | cifar100 | 1000 / 100 | {long}% | 39m"
    " | [tensorboard.dev](https://l.example/b) |\n")


def test_rows_told_apart_by_their_steps_beside_a_link_to_a_site_are_named(tmp_path):
    # before, ``500 / 50`` was a number, no name, and ``tensorboard.dev`` named the dev split
    clean = run(tmp_path, SCHEDULES, SCHEDULE_TABLE.format(long="90.71"))
    assert clean["drift"] == [] and clean["unmapped"] == []
    assert found(clean, "matched") == {("vitb_500steps", 3, "88.95%"),
                                       ("vitb_1000steps", 4, "90.71%")}
    drifted = run(tmp_path, SCHEDULES, SCHEDULE_TABLE.format(long="90.77"))
    assert found(drifted) == {("vitb_1000steps", 4, "90.77%")}


def test_a_link_whose_text_is_a_site_names_no_split(tmp_path):
    claims = [alias_claim("cifar10", "vitb", "accuracy", 98.1, ["ViT-B_16"])]
    text = ("| model | accuracy | logs |\n|---|---|---|\n"
            "| ViT-B_16 | {v}% | [wandb.ai](https://w.example/r) |\n")
    assert found(run(tmp_path, claims, text.format(v="98.1")), "matched") == {("vitb", 3, "98.1%")}
    assert found(run(tmp_path, claims, text.format(v="98.4"))) == {("vitb", 3, "98.4%")}
