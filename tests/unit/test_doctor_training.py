"""`rgt doctor PATH` on training loops: double softmax through a model, a loop without
zero_grad, the loss graph kept across steps, and the resume contract of a loop that
checkpoints — each firing on a realistic snippet and silent on its correct form; the new-user
script; and no finding on the project's own code."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from textwrap import dedent

import pytest

from rgt.cli import main
from rgt.doctor.checks import all_checks
from rgt.doctor.checks.astutil import Module

TESTS = Path(__file__).resolve().parents[1]
NEW_USER = TESTS / "data" / "doctor" / "new_user" / "train.py"
CHECKS = {check.name: check for check in all_checks()}


def fired(name: str, code: str) -> list[int]:
    """The lines check ``name`` fires on in ``code``."""
    return [line for line, _ in CHECKS[name].run(Module(ast.parse(dedent(code))))]


def line_of(code: str, text: str) -> int:
    """The 1-based line of ``dedent(code)`` that contains ``text``."""
    return next(i for i, line in enumerate(dedent(code).splitlines(), 1) if text in line)


# --- double softmax through a model (O12) -----------------------------------------------

SEQUENTIAL = """
    import torch
    from torch import nn

    def main(loader):
        model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3){last}).to("cpu")
        criterion = nn.CrossEntropyLoss()
        for inputs, labels in loader:
            loss = criterion(model(inputs), labels)
"""

CLASSES = """
    import torch.nn.functional as F
    from torch import nn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)
            self.softmax = nn.Softmax(dim=1)

        def forward(self, x):
            x = self.fc(x)
            {forward}
            return x

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(20, 8), nn.ReLU())
            self.head = Head()

        def forward(self, x):
            return self.head(self.body(x))

    def step(inputs, labels):
        model = Classifier()
        outputs = model(inputs)
        return F.cross_entropy(outputs.view(-1, 3), labels)
"""


def test_a_softmax_ending_a_sequential_fed_to_cross_entropy_fires():
    code = SEQUENTIAL.format(last=", nn.Softmax(dim=1)")
    assert fired("double-softmax", code) == [line_of(code, "loss = criterion")]


@pytest.mark.parametrize("last", ["", ", nn.LogSoftmax(dim=1)",
                                  ", nn.Softmax(dim=1), nn.Linear(3, 3)"])
def test_logits_of_a_sequential_do_not_fire(last):
    assert fired("double-softmax", SEQUENTIAL.format(last=last)) == []


def test_a_forward_that_ends_in_softmax_fires_through_an_enclosing_module():
    code = CLASSES.format(forward="x = self.softmax(x)")
    assert fired("double-softmax", code) == [line_of(code, "return F.cross_entropy")]


def test_a_forward_whose_softmax_feeds_another_layer_does_not_fire():
    code = CLASSES.format(forward="x = self.fc(self.softmax(x))")
    assert fired("double-softmax", code) == []


def test_a_softmax_sequential_attribute_returned_by_forward_fires():
    code = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(4, 2), nn.Softmax(dim=-1))
                self.criterion = nn.CrossEntropyLoss()

            def forward(self, x):
                return self.net(x)

            def training_step(self, x, y):
                return self.criterion(self.net(x), y)
    """
    assert fired("double-softmax", code) == [line_of(code, "return self.criterion")]


def test_softmax_probabilities_given_to_nll_of_their_log_do_not_fire():
    code = SEQUENTIAL.format(last=", nn.Softmax(dim=1)").replace(
        "criterion(model(inputs), labels)", "F.nll_loss(torch.log(model(inputs)), labels)")
    assert fired("double-softmax", code) == []


# --- zero_grad in a training loop (O4) --------------------------------------------------

LOOP = """
    import torch

    def train(model, loader, loss_fn):
        opt = torch.optim.Adam(model.parameters())
        scaler = torch.amp.GradScaler()
        {before}
        for epoch in range(10):
            {per_epoch}
            for inputs, labels in loader:
                {per_step}
                loss = loss_fn(model(inputs), labels)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
"""


@pytest.mark.parametrize(("before", "per_epoch"), [
    ("pass", "pass"),
    ("opt.zero_grad()", "pass"),  # once, before training
    ("pass", "opt.zero_grad()"),  # once per epoch: still sums every step of it
])
def test_a_loop_that_never_zeroes_the_gradients_fires(before, per_epoch):
    code = LOOP.format(before=before, per_epoch=per_epoch, per_step="pass")
    assert fired("missing-zero-grad", code) == [line_of(code, ".backward()")]


@pytest.mark.parametrize("per_step", [
    "opt.zero_grad()", "opt.zero_grad(set_to_none=True)", "model.zero_grad()",
    "for p in model.parameters(): p.grad = None",
])
def test_any_way_of_zeroing_each_step_counts(per_step):
    assert fired("missing-zero-grad",
                 LOOP.format(before="pass", per_epoch="pass", per_step=per_step)) == []


def test_accumulation_that_zeroes_after_its_step_and_a_gradient_probe_do_not_fire():
    code = """
        def train(model, optimizer, loader, loss_fn, accumulate=4):
            for index, (inputs, labels) in enumerate(loader):
                (loss_fn(model(inputs), labels) / accumulate).backward()
                if (index + 1) % accumulate == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def gradient_norms(model, batches, loss_fn):
            for inputs, labels in batches:
                loss_fn(model(inputs), labels).backward()
    """
    assert fired("missing-zero-grad", code) == []


# --- the loss graph kept across steps (M20) ---------------------------------------------

KEEP = """
    import torch

    def train(model, optimizer, loader, val_inputs, val_labels, loss_fn):
        losses, running = [], 0.0
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
            {keep}
            with torch.no_grad():
                val_loss = loss_fn(model(val_inputs), val_labels)
                losses.append(val_loss)
"""


@pytest.mark.parametrize("keep", ["losses.append(loss)", "running += loss"])
def test_keeping_the_loss_tensor_fires(keep):
    code = KEEP.format(keep=keep)
    assert fired("loss-graph-kept", code) == [line_of(code, keep)]


@pytest.mark.parametrize("keep", ["losses.append(loss.item())",
                                  "losses.append(loss.detach().cpu())",
                                  "running += loss.item()", "running += float(loss)"])
def test_keeping_a_number_or_a_detached_tensor_does_not_fire(keep):
    assert fired("loss-graph-kept", KEEP.format(keep=keep)) == []


def test_an_evaluation_loop_under_no_grad_does_not_fire():
    code = """
        import torch

        @torch.no_grad()
        def evaluate(model, loader, loss_fn):
            model.eval()
            losses = []
            for inputs, labels in loader:
                loss = loss_fn(model(inputs), labels)
                losses.append(loss)
            return torch.stack(losses).mean()
    """
    assert fired("loss-graph-kept", code) == []


# --- the resume contract of a loop that checkpoints (C3, C1, RG2) ----------------------

CHECKPOINTED = """
    import os
    import torch
    {imports}

    def train(model, optimizer, loader, loss_fn, args, path="last.pt"):
        {resume}
        for epoch in range(args.epochs):
            {per_epoch}
            for inputs, labels in loader:
                optimizer.zero_grad()
                loss_fn(model(inputs), labels).backward()
                optimizer.step()
            state = {{"model": model.state_dict(), "optimizer": optimizer.state_dict()}}
            torch.save(state, path + ".tmp")
            os.replace(path + ".tmp", path)
"""
LOAD = "torch.load(path, weights_only=True)"


def contract(resume: str, imports: str = "", per_epoch: str = "pass") -> dict[str, list[int]]:
    code = dedent(CHECKPOINTED).format(imports=imports, resume=resume, per_epoch=per_epoch)
    return {name: fired(name, code)
            for name in ("resume-unconditional", "rng-in-checkpoint", "preemption-signal",
                         "atomic-save")}


@pytest.mark.parametrize("resume", [
    f"state = {LOAD} if args.resume else None",
    f"if args.resume_from is not None and os.path.exists(path): state = {LOAD}",
])
def test_a_load_behind_a_resume_flag_fires(resume):
    assert contract(resume)["resume-unconditional"] == [7]


def test_a_loop_that_checkpoints_and_never_loads_fires_at_the_save():
    assert contract("pass")["resume-unconditional"] == [15]


def test_an_existence_check_is_an_unconditional_resume():
    assert contract(f"if os.path.exists(args.checkpoint): state = {LOAD}")[
        "resume-unconditional"] == []


def test_without_rng_and_signals_the_rng_and_signal_checks_fire():
    found = contract(f"state = {LOAD} if os.path.exists(path) else None")
    assert found == {"resume-unconditional": [], "rng-in-checkpoint": [15],
                     "preemption-signal": [8], "atomic-save": []}


def test_rng_restored_or_reseeded_per_epoch_and_a_signal_handler_pass():
    imports = "import signal\nsignal.signal(signal.SIGTERM, lambda *_: None)"
    restored = f"state = {LOAD}; torch.set_rng_state(state['rng'])"
    reseeded = "torch.manual_seed(args.seed + epoch)"
    for resume, per_epoch in ((restored, "pass"), (f"state = {LOAD}", reseeded)):
        assert contract(resume, imports, per_epoch) == {
            "resume-unconditional": [], "rng-in-checkpoint": [], "preemption-signal": [],
            "atomic-save": []}


def test_saving_only_the_best_weights_is_no_checkpoint():
    code = dedent(CHECKPOINTED).format(imports="", resume="pass", per_epoch="pass").replace(
        '"optimizer": optimizer.state_dict()', '"epoch": epoch')
    assert not any(fired(name, code) for name in
                   ("resume-unconditional", "rng-in-checkpoint", "preemption-signal"))


def test_a_save_helper_given_the_optimizer_state_is_a_checkpoint():
    code = """
        import argparse
        import torch

        def save_checkpoint(state, filename="checkpoint.pth.tar"):
            torch.save(state, filename)

        def main(model, optimizer, loader, criterion, epochs):
            parser = argparse.ArgumentParser()
            parser.add_argument("--resume", default="", type=str, metavar="PATH")
            args = parser.parse_args()
            start_epoch = 0
            if args.resume:
                checkpoint = torch.load(args.resume, weights_only=True)
                start_epoch = checkpoint["epoch"]
                optimizer.load_state_dict(checkpoint["optimizer"])
            for epoch in range(start_epoch, epochs):
                for inputs, target in loader:
                    optimizer.zero_grad()
                    criterion(model(inputs), target).backward()
                    optimizer.step()
                save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),
                                 "optimizer": optimizer.state_dict()})
    """
    found = {name: fired(name, code) for name in
             ("resume-unconditional", "rng-in-checkpoint", "preemption-signal")}
    assert found == {"resume-unconditional": [line_of(code, "if args.resume:")],
                     "rng-in-checkpoint": [line_of(code, "save_checkpoint({")],
                     "preemption-signal": [line_of(code, "for epoch in")]}


def test_a_helper_module_without_a_training_loop_is_not_judged_as_a_script():
    code = """
        import os
        import torch

        def save_checkpoint(model, optimizer, path):
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       path + ".tmp")
            os.replace(path + ".tmp", path)
    """
    assert not any(fired(name, code) for name in
                   ("resume-unconditional", "rng-in-checkpoint", "preemption-signal"))


# --- the new-user script, and the project's own code ------------------------------------

# What `rgt doctor` must say about the new-user script: check -> the line's code.
NEW_USER_FINDINGS = {
    "main-guard": "parser = argparse.ArgumentParser()",
    "resume-unconditional": "if args.resume:",
    "torch-load-weights-only": 'state = torch.load("checkpoint.pt")',
    "preemption-signal": "for epoch in range(start, args.epochs):",
    "double-softmax": "loss = criterion(model(inputs), labels)",
    "missing-zero-grad": "loss.backward()",
    "loss-graph-kept": "losses.append(loss)",
    "atomic-save": 'torch.save({"model": model.state_dict(), "optimizer": optimizer',
    "rng-in-checkpoint": 'torch.save({"model": model.state_dict(), "optimizer": optimizer',
}


def test_the_new_user_script_gets_its_three_classics_and_the_contract_with_file_and_line(
        capsys):
    # errors: double softmax, zero_grad; torch.load's default is weights_only=True from 2.6 on
    assert main(["doctor", str(NEW_USER), "--json", "--torch", "2.5.1"]) == 1
    findings = json.loads(capsys.readouterr().out)
    lines = NEW_USER.read_text().splitlines()
    found = {f["check"]: lines[f["line"] - 1].strip() for f in findings}
    assert found.keys() == NEW_USER_FINDINGS.keys()
    assert all(found[name].startswith(code) for name, code in NEW_USER_FINDINGS.items())
    severities = {f["check"]: f["severity"] for f in findings}
    assert severities["double-softmax"] == severities["missing-zero-grad"] == "error"
    assert severities["loss-graph-kept"] == "warning"
    assert {f["file"] for f in findings} == {str(NEW_USER)}


@pytest.mark.parametrize("tree", ["src", "tests/data/plain_loop"])
def test_the_project_own_code_and_the_plain_loop_example_are_clean(tree, capsys):
    path = TESTS.parent / tree
    assert main(["doctor", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"rgt doctor {path}: no findings"
