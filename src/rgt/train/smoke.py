"""The CPU smoke gate: two optimizer steps of a variant before any real training.

It catches import, config, shape and scale bugs in seconds — before a GPU is billed — and says
which check failed. It then runs the run-time probes of :mod:`rgt.train.probes` on one training
batch and records them: a probe result that means a broken model fails the gate, the advisory
ones (all-zero gradients, frozen parameters in the optimizer, a poor overfit, an odd update
ratio or learning rate) are recorded for ``rgt verify`` and printed.
"""

from __future__ import annotations

import math
import sys
import time

import torch

from rgt.base.errors import RgtError, TrainingDiverged
from rgt.config import Settings
from rgt.plan.runplan import RunSpec
from rgt.train import probes
from rgt.train.run import load_run_data
from rgt.train.trainer import Trainer


class SmokeFailure(RgtError):
    """The smoke gate found a broken model, data or config."""


def smoke_test(spec: RunSpec, steps: int = 2) -> dict:
    """Build data and model for ``spec`` on the CPU; run ``steps`` optimizer steps, then probes."""
    started = time.perf_counter()
    settings = on_cpu(spec.settings)
    label = f"smoke test of {spec.exp_id}/{spec.variant}"
    trainer = None
    try:
        # Every loss read at once: a non-finite one stops the gate before its step is applied,
        # so the probes below still see the weights that produced it.
        trainer = Trainer(settings, *load_run_data(spec), spec.seed, loss_read_steps=1)
        losses = [trainer.train_step().item() for _ in range(min(steps, trainer.total_steps))]
    except TrainingDiverged as error:
        raise _diverged(label, trainer, error) from error
    except RgtError:
        raise
    except Exception as error:
        raise SmokeFailure(f"{label} crashed: {type(error).__name__}: {error}",
                           "fix the model, dataset or config named above; nothing was trained"
                           ) from error
    _check_losses(label, losses)
    results = probes.run_probes(trainer.model, trainer.optimizer, probe_batch(trainer),
                                configured_lr=settings.train.lr)
    _gate(label, results)
    advisories = advisory_lines(results)
    for line in advisories:
        print(f"warning: {label}: {line}", file=sys.stderr)
    return {"schema": "rgt/smoke/v1", "smoke_id": spec.smoke_id, "exp_id": spec.exp_id,
            "variant": spec.variant, "ok": True, "losses": losses,
            "state": state_facts(trainer.model, trainer.optimizer),
            "seconds": time.perf_counter() - started, "probes": results,
            "advisories": advisories}


def state_facts(model, optimizer) -> dict:
    """The sizes a checkpoint of this variant is made of, for the host audit to plan disk with
    (the controller never builds the model): parameter count and bytes, and the bytes of the
    whole training state (weights, buffers, optimizer state) as it stands."""
    def tensors(value):
        if torch.is_tensor(value):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from tensors(item)

    parameters = list(model.parameters())
    state = [*tensors(model.state_dict()), *tensors(optimizer.state_dict()["state"])]
    return {"parameters": sum(p.numel() for p in parameters),
            "parameter_bytes": sum(p.numel() * p.element_size() for p in parameters),
            "state_bytes": sum(t.numel() * t.element_size() for t in state)}


def measure_state(spec: RunSpec) -> dict:
    """``state_facts`` of a variant without a smoke record: build it on the CPU, one step."""
    trainer = Trainer(on_cpu(spec.settings), *load_run_data(spec), spec.seed)
    if trainer.total_steps:
        trainer.train_step()  # the optimizer's state exists from its first step on
    return state_facts(trainer.model, trainer.optimizer)


def on_cpu(settings: Settings) -> Settings:
    """The same settings on the CPU (the smoke gate never needs, nor bills, a GPU), and not
    compiled: compiling for the CPU needs a C++ compiler on the controller and says nothing
    about compiling for the GPU."""
    return settings.model_copy(update={"train": settings.train.model_copy(
        update={"device": "cpu", "compile": None})})


def probe_batch(trainer):
    """The first ``batch_size`` training samples, on the trainer's device."""
    return trainer.batches.first(trainer.per_rank_batch)


def _diverged(label: str, trainer, error: TrainingDiverged) -> SmokeFailure:
    where = ""
    if trainer is not None:
        module = probes.first_nonfinite_module(trainer.model, probe_batch(trainer)[0])["module"]
        where = f"; first module with a non-finite output: {module}" if module else ""
    return SmokeFailure(f"{label}: {error.message}{where}",
                        error.fix or "lower train.lr or check the data scaling")


def _check_losses(label: str, losses: list[float]) -> None:
    if not all(math.isfinite(loss) for loss in losses):
        raise SmokeFailure(f"{label}: loss is not finite ({losses})",
                           "lower train.lr or check the data scaling")


def _gate(label: str, results: dict) -> None:
    grads = results["no-grad-params"]
    broken = grads["none"] + grads["nonfinite"]
    if broken:
        raise SmokeFailure(f"{label}: parameters with no finite gradient: {', '.join(broken)}",
                           "make sure every trainable parameter is used in forward()")
    missing = results["optimizer-coverage"]["missing"]
    if missing:
        raise SmokeFailure(f"{label}: trainable parameters missing from the optimizer: "
                           f"{', '.join(missing)}",
                           "build the optimizer from model.parameters() after the model is "
                           "complete, or set requires_grad=False on parameters meant frozen")
    module = results["nonfinite-module"]["module"]
    if module:
        raise SmokeFailure(f"{label}: module {module} produces a non-finite output",
                           "check that module's inputs, initialisation and scale")


def advisory_lines(results: dict) -> list[str]:
    """One line per advisory probe result that is not ok (nothing here fails the gate)."""
    lines = []
    if zero := results["no-grad-params"]["zero"]:
        lines.append(f"parameters whose gradient is all zero: {', '.join(zero)}")
    if frozen := results["optimizer-coverage"]["frozen"]:
        lines.append(f"frozen parameters inside an optimizer group: {', '.join(frozen)}")
    if not results["applied-lr"]["ok"]:
        lines.append(f"applied learning rates {results['applied-lr']['lr']} are not all > 0")
    ratio = results["update-ratio"]
    if not ratio["ok"]:
        lines.append(f"update/weight ratios {ratio['ratios']} outside (0, {ratio['max_ratio']}]")
    overfit = results["overfit-one-batch"]
    if not overfit["ok"]:
        lines.append(f"loss on one repeated batch fell only from {overfit['initial_loss']:.4g} "
                     f"to {overfit['best_loss']} in {overfit['steps']} steps "
                     f"(target: {overfit['target_fraction']:g} of the first)")
    return lines
