"""Run-time probes of a model and its optimizer: the failures a green smoke run hides.

Each probe takes real torch objects (a model, its optimizer, one batch) and returns a plain,
JSON-ready dict with at least ``probe`` (its name) and ``ok``. Probes that train or run a
backward pass work on deep copies and restore the CPU RNG, so the caller's model, optimizer,
gradients and random stream are untouched. Shared by ``rgt smoke`` and a later ``rgt doctor``.

Thresholds (module constants, documented where used):

- overfit-one-batch: ok when the best loss within ``OVERFIT_STEPS`` steps on one repeated batch
  is at most ``OVERFIT_FRACTION`` of the first loss.
- update/weight ratio: ok when every param group's ``||dW|| / ||W||`` after one step is finite,
  non-zero and at most ``MAX_UPDATE_RATIO``.
- data starvation: ok when at most ``STARVATION_FRACTION`` of the time goes to waiting for the
  next batch rather than to the step itself.

Opt-in during training: ``rgt train --probes`` (or ``RGT_PROBES=1`` in the environment, which
reaches every worker and every Snakemake job) runs them once on the first batch of a fresh run
and writes ``checkpoints/<run-id>/probes.json``; a user's own loop calls them directly.
"""

from __future__ import annotations

import copy
import math
import os
import time
from collections.abc import Callable, Iterable

import torch
import torch.nn.functional as F
from torch import nn

Batch = tuple[torch.Tensor, torch.Tensor]
LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

OVERFIT_STEPS = 30
OVERFIT_FRACTION = 0.5
MAX_UPDATE_RATIO = 1.0
STARVATION_FRACTION = 0.2
PROBES_ENV = "RGT_PROBES"


def _copies(model: nn.Module, optimizer: torch.optim.Optimizer):
    # One deepcopy of the pair keeps the optimizer's params pointing at the copied model's.
    return copy.deepcopy((model, optimizer))


def _loss(model: nn.Module, batch: Batch, loss_fn: LossFn) -> torch.Tensor:
    inputs, labels = batch
    return loss_fn(model(inputs), labels)


def overfit_one_batch(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch,
                      loss_fn: LossFn = F.cross_entropy, steps: int = OVERFIT_STEPS) -> dict:
    """Train copies on one repeated batch; ok when the loss falls to ``OVERFIT_FRACTION``."""
    model, optimizer = _copies(model, optimizer)
    model.train()
    losses = []
    with torch.random.fork_rng(devices=[]):
        for _ in range(steps):
            optimizer.zero_grad(set_to_none=True)
            loss = _loss(model, batch, loss_fn)
            losses.append(float(loss.item()))
            if not math.isfinite(losses[-1]):
                break
            loss.backward()
            optimizer.step()
    best = min(losses) if all(math.isfinite(v) for v in losses) else math.nan
    ok = math.isfinite(best) and best <= OVERFIT_FRACTION * losses[0]
    return {"probe": "overfit-one-batch", "ok": bool(ok), "steps": len(losses),
            "initial_loss": losses[0], "best_loss": best if math.isfinite(best) else None,
            "target_fraction": OVERFIT_FRACTION}


def gradient_coverage(model: nn.Module, batch: Batch, loss_fn: LossFn = F.cross_entropy) -> dict:
    """After one backward: trainable parameters with no gradient, an all-zero or a non-finite one.

    ``none`` (not reached by the loss) and ``nonfinite`` mean a broken model; ``zero`` (reached,
    but every element's gradient is exactly 0, e.g. a dead branch) is advisory.
    """
    model = copy.deepcopy(model)
    model.train()
    model.zero_grad(set_to_none=True)
    with torch.random.fork_rng(devices=[]):
        _loss(model, batch, loss_fn).backward()
    none, zero, nonfinite, checked = [], [], [], 0
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        checked += 1
        if param.grad is None:
            none.append(name)
        elif not torch.isfinite(param.grad).all():
            nonfinite.append(name)
        elif not param.grad.any():
            zero.append(name)
    return {"probe": "no-grad-params", "ok": not (none or zero or nonfinite), "checked": checked,
            "none": none, "zero": zero, "nonfinite": nonfinite}


def optimizer_coverage(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """Trainable parameters missing from every param group, and frozen ones inside a group.

    ``missing`` parameters never train (a broken set-up); ``frozen`` ones are advisory.
    """
    in_groups = {id(p) for group in optimizer.param_groups for p in group["params"]}
    missing, frozen = [], []
    for name, param in model.named_parameters():
        if param.requires_grad and id(param) not in in_groups:
            missing.append(name)
        elif not param.requires_grad and id(param) in in_groups:
            frozen.append(name)
    return {"probe": "optimizer-coverage", "ok": not (missing or frozen), "missing": missing,
            "frozen": frozen, "groups": len(optimizer.param_groups)}


def first_nonfinite_module(model: nn.Module, inputs: torch.Tensor) -> dict:
    """Forward once with hooks; name the first module (in call order) with a NaN/Inf output."""
    model, found = copy.deepcopy(model), []  # a copy: train-mode forwards move BN stats

    def hook(name: str):
        def check(_module, _args, output) -> None:
            tensors = output if isinstance(output, (tuple, list)) else (output,)
            if not found and any(isinstance(t, torch.Tensor) and t.is_floating_point()
                                 and not torch.isfinite(t).all() for t in tensors):
                found.append(name)
        return check

    handles = [module.register_forward_hook(hook(name))
               for name, module in model.named_modules() if name]
    try:
        with torch.no_grad(), torch.random.fork_rng(devices=[]):
            model(inputs)
    finally:
        for handle in handles:
            handle.remove()
    return {"probe": "nonfinite-module", "ok": not found,
            "module": found[0] if found else None}


def update_ratios(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch,
                  loss_fn: LossFn = F.cross_entropy) -> dict:
    """One step on copies: per param group ``||dW|| / ||W||`` and the learning rate applied."""
    model, optimizer = _copies(model, optimizer)
    model.train()
    before = [[p.detach().clone() for p in group["params"]] for group in optimizer.param_groups]
    with torch.random.fork_rng(devices=[]):
        optimizer.zero_grad(set_to_none=True)
        _loss(model, batch, loss_fn).backward()
        applied = [float(group["lr"]) for group in optimizer.param_groups]
        optimizer.step()
    groups = zip(before, optimizer.param_groups, strict=True)
    ratios = [_ratio(old, group["params"]) for old, group in groups]
    ok = all(math.isfinite(r) and 0 < r <= MAX_UPDATE_RATIO for r in ratios)
    return {"probe": "update-ratio", "ok": ok, "ratios": [_json_float(r) for r in ratios],
            "lr": applied, "max_ratio": MAX_UPDATE_RATIO}


def _ratio(before: list[torch.Tensor], after: list[torch.Tensor]) -> float:
    pairs = zip(after, before, strict=True)
    delta = math.sqrt(sum(float((a.detach() - b).pow(2).sum()) for a, b in pairs))
    norm = math.sqrt(sum(float(b.pow(2).sum()) for b in before))
    return delta / norm if norm else math.inf


def _json_float(value: float) -> float | None:
    return value if math.isfinite(value) else None


def applied_lr(optimizer: torch.optim.Optimizer, configured: float | None = None) -> dict:
    """The learning rate each param group will apply now; not ok when one is <= 0 or NaN."""
    rates = [float(group["lr"]) for group in optimizer.param_groups]
    ok = all(math.isfinite(rate) and rate > 0 for rate in rates)
    return {"probe": "applied-lr", "ok": ok, "lr": rates, "configured": configured}


def run_probes(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch,
               loss_fn: LossFn = F.cross_entropy, configured_lr: float | None = None) -> dict:
    """Every probe above, keyed by probe name; the caller's objects and RNG are unchanged."""
    results = [gradient_coverage(model, batch, loss_fn), optimizer_coverage(model, optimizer),
               first_nonfinite_module(model, batch[0]), applied_lr(optimizer, configured_lr),
               update_ratios(model, optimizer, batch, loss_fn),
               overfit_one_batch(model, optimizer, batch, loss_fn)]
    return {result["probe"]: result for result in results}


def data_starvation(batches: Iterable, step: Callable[[object], object], steps: int = 20) -> dict:
    """Time waiting for the next batch vs time in ``step(batch)``, over ``steps`` batches.

    A data loader that cannot keep up (too few workers, slow decoding) shows as a high wait
    fraction: the GPU idles while the bill runs.
    """
    waited = worked = 0.0
    count, iterator = 0, iter(batches)
    for _ in range(steps):
        started = time.perf_counter()
        batch = next(iterator, None)
        if batch is None:
            break
        fetched = time.perf_counter()
        step(batch)
        waited, worked = waited + fetched - started, worked + time.perf_counter() - fetched
        count += 1
    fraction = waited / (waited + worked) if waited + worked else 0.0
    return {"probe": "data-starvation", "ok": fraction <= STARVATION_FRACTION, "steps": count,
            "wait_s": waited, "step_s": worked, "wait_fraction": fraction}


def probes_enabled() -> bool:
    """Whether the user opted in to the probes during training (``RGT_PROBES=1``)."""
    return os.environ.get(PROBES_ENV, "") not in ("", "0")

