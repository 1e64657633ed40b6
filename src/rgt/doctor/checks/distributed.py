"""Distributed-training checks: ``DistributedSampler`` without ``set_epoch`` (D22/DP14)."""

from __future__ import annotations

from rgt.doctor.checks import ERROR, check
from rgt.doctor.checks.astutil import Module, method_calls


@check("sampler-set-epoch", "D22", ERROR)
def sampler_set_epoch(module: Module):
    """A DistributedSampler is built but ``set_epoch`` is never called in the file."""
    if any(True for _ in method_calls(module.tree, "set_epoch")):
        return
    for call, name in module.calls():
        if name.endswith("DistributedSampler"):
            yield call.lineno, ("DistributedSampler without a set_epoch(epoch) call anywhere in "
                                "this file: every epoch replays the same order")
