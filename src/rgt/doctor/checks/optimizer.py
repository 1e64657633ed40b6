"""Optimizer-loop checks: device order (O2), zero_grad in the loop (O4), scheduler order (O8),
accumulation scaling (O9)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import ERROR, check
from rgt.doctor.checks.astutil import (
    Module,
    assigned_anywhere,
    assigned_from,
    backward_tensors,
    dotted,
    innermost,
    loops,
    method_calls,
    scopes,
    training_loops,
)


def _is_optimizer(module: Module, value: ast.AST) -> bool:
    name = module.qualified(value.func) if isinstance(value, ast.Call) else None
    return bool(name) and name.startswith("torch.optim.") and "lr_scheduler" not in name


def _is_scheduler(module: Module, value: ast.AST) -> bool:
    name = module.qualified(value.func) if isinstance(value, ast.Call) else None
    return bool(name) and "lr_scheduler" in name


def _roles(module: Module) -> tuple[set[str], set[str]]:
    """Names bound to optimizers and to schedulers anywhere in the file."""
    return module.once("roles", lambda m: (
        set(assigned_anywhere(m, lambda v: _is_optimizer(m, v))),
        set(assigned_anywhere(m, lambda v: _is_scheduler(m, v)))))


def _parameters_owner(call: ast.Call) -> str | None:
    """``model`` in ``Adam(model.parameters(), ...)``."""
    for arg in call.args[:1]:
        for node in ast.walk(arg):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("parameters", "named_parameters")):
                return dotted(node.func.value)
    return None


@check("optimizer-before-device", "O2")
def optimizer_before_device(module: Module):
    """The optimizer is built from a model that is moved to a device afterwards."""
    for scope in scopes(module.tree):
        built = assigned_from(scope, lambda v: _is_optimizer(module, v))
        for name, call in built.items():
            owner = _parameters_owner(call)
            moves = [m for method in ("to", "cuda") for m, receiver in method_calls(scope, method)
                     if receiver == owner and m.lineno > call.lineno]
            if owner and moves:
                yield call.lineno, (f"optimizer {name} is built from {owner}.parameters() before "
                                    f"{owner} is moved to the device (line {moves[0].lineno})")


def _steps(loop: ast.AST, names: set[str], hint: str) -> list[int]:
    """Lines of ``X.step(…)`` where X is one of ``names`` or named like ``hint``; with the
    optimizer hint, ``scaler.step(optimizer)`` too."""
    def named(node: ast.AST | None) -> bool:
        name = (dotted(node) if node is not None else None) or ""
        return name in names or hint in name.rsplit(".", 1)[-1].lower()

    return sorted(call.lineno for call, _ in method_calls(loop, "step")
                  if named(call.func.value) or (hint == "optim" and named(
                      call.args[0] if call.args else None)))


def _zeroes_gradients(loop: ast.AST) -> bool:
    """``optimizer.zero_grad()``/``model.zero_grad()``, or ``p.grad = None``/``p.grad.zero_()``."""
    if any(True for _ in method_calls(loop, "zero_grad")):
        return True
    return any(
        (isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "grad"
                                              for t in node.targets))
        or (isinstance(node, ast.Attribute) and node.attr == "zero_"
            and isinstance(node.value, ast.Attribute) and node.value.attr == "grad")
        for node in ast.walk(loop))


@check("missing-zero-grad", "O4", ERROR)
def missing_zero_grad(module: Module):
    """A training loop (backward and optimizer.step() in it) that never zeroes the gradients."""
    optimizers, _ = _roles(module)
    training = [loop for loop in training_loops(module) if _steps(loop, optimizers, "optim")]
    for loop in innermost(training):
        if not _zeroes_gradients(loop):
            call, tensor = backward_tensors(loop)[0]
            step = _steps(loop, optimizers, "optim")[0]
            yield call.lineno, (f"{tensor}.backward() adds into .grad on every pass of this loop "
                                f"(line {loop.lineno}) and nothing in it calls zero_grad(): "
                                f"optimizer.step() (line {step}) applies the sum of all earlier "
                                "steps' gradients")


@check("scheduler-order", "O8")
def scheduler_order(module: Module):
    """In a loop, the scheduler steps before the optimizer does."""
    optimizers, schedulers = _roles(module)
    reported = set()
    for loop in loops(module.tree):
        optimizer_steps = _steps(loop, optimizers, "optim")
        scheduler_steps = _steps(loop, schedulers, "sched")
        if optimizer_steps and scheduler_steps and scheduler_steps[0] < optimizer_steps[0] \
                and scheduler_steps[0] not in reported:
            reported.add(scheduler_steps[0])
            yield scheduler_steps[0], (f"scheduler.step() (line {scheduler_steps[0]}) runs before "
                                       f"optimizer.step() (line {optimizer_steps[0]})")


def _accumulating_ifs(loop: ast.AST, optimizers: set[str]):
    """``if step % N == 0: optimizer.step()`` blocks inside ``loop``."""
    for node in ast.walk(loop):
        modulo = isinstance(node, ast.If) and any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(node.test))
        if modulo and _steps(node, optimizers, "optim"):
            yield node


def _scaled(loop: ast.AST, loss: ast.AST) -> bool:
    """The loss handed to backward() is divided: inline, by assignment, or with ``/=``."""
    if isinstance(loss, ast.Call) and loss.args:  # scaler.scale(loss).backward()
        loss = loss.args[0]
    if isinstance(loss, ast.BinOp) and isinstance(loss.op, ast.Div):
        return True
    name = dotted(loss)
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Div) \
                and dotted(node.target) == name:
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp) \
                and isinstance(node.value.op, ast.Div) \
                and name in (dotted(t) for t in node.targets):
            return True
    return False


@check("accumulation-scaling", "O9")
def accumulation_scaling(module: Module):
    """Gradient accumulation (step every N micro-batches) with an undivided loss."""
    optimizers, _ = _roles(module)
    reported = set()
    for loop in loops(module.tree):
        gated = list(_accumulating_ifs(loop, optimizers))
        inside = {id(n) for block in gated for n in ast.walk(block)}
        for call, _ in method_calls(loop, "backward") if gated else ():
            if id(call) in inside or call.lineno in reported or _scaled(loop, call.func.value):
                continue
            reported.add(call.lineno)
            yield call.lineno, ("optimizer steps every N micro-batches (line "
                                f"{gated[0].lineno}) but the loss given to backward() is "
                                "not divided by N: gradients are N times too large")
