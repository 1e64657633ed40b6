"""Convergence checks on the model and the loss: eval mode (O5) and double softmax (O12)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import ERROR, check
from rgt.doctor.checks.astutil import (
    LOOPS,
    Module,
    assigned_from,
    method_calls,
    scope_walk,
    scopes,
)

NO_GRAD = ("torch.no_grad", "torch.inference_mode")
DATA_WORDS = ("loader", "data", "batch", "val", "test", "eval")
CROSS_ENTROPY = ("torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss")


def _no_grad(module: Module, node: ast.AST) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (module.qualified(target) or "") in NO_GRAD


def _over_data(node: ast.AST) -> bool:
    """A ``for`` over batches (``loader``, ``dataset``, ``batches``…), not over parameters: an
    optimizer's or EMA's ``no_grad`` loop over tensors is not an evaluation."""
    return isinstance(node, LOOPS[:2]) and any(
        word in ast.unparse(node.iter).lower() for word in DATA_WORDS)


def _evaluation_loops(module: Module, scope: ast.AST):
    """Loops over data under no_grad/inference_mode: a ``with`` block, or a decorated function."""
    if isinstance(scope, ast.FunctionDef) and any(_no_grad(module, d)
                                                  for d in scope.decorator_list):
        yield from (n for n in scope_walk(scope) if _over_data(n))
    for node in scope_walk(scope):
        if isinstance(node, ast.With) and any(_no_grad(module, item.context_expr)
                                              for item in node.items):
            yield from (n for n in ast.walk(node) if _over_data(n))


@check("eval-mode", "O5")
def eval_mode(module: Module):
    """An evaluation loop (under no_grad) in a function that never calls ``.eval()``."""
    for scope in scopes(module.tree):
        loops = list(_evaluation_loops(module, scope))
        if loops and not any(not call.args for call, _ in method_calls(scope, "eval")):
            yield loops[0].lineno, ("evaluation loop under no_grad/inference_mode without "
                                    "model.eval() in this function: dropout and batch-norm "
                                    "still run in training mode")


def _softmax(module: Module, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = module.qualified(node.func) or ""
    attr = node.func.attr if isinstance(node.func, ast.Attribute) else name
    return attr == "softmax" or name.endswith(".softmax") or name.endswith(".Softmax")


def _losses(module: Module, scope: ast.AST):
    """Cross-entropy calls in ``scope``: ``F.cross_entropy(...)`` or a CrossEntropyLoss object."""
    criteria = set(assigned_from(module.tree, lambda value: isinstance(value, ast.Call) and (
        module.qualified(value.func) or "").endswith("CrossEntropyLoss")))
    for node in scope_walk(scope):
        if isinstance(node, ast.Call) and node.args and (
                (module.qualified(node.func) or "") in CROSS_ENTROPY
                or ast.unparse(node.func) in criteria):
            yield node


@check("double-softmax", "O12", ERROR)
def double_softmax(module: Module):
    """Softmax outputs fed to cross-entropy, which applies log_softmax itself."""
    for scope in scopes(module.tree):
        softmaxed = assigned_from(scope, lambda value: _softmax(module, value))
        for loss in _losses(module, scope):
            first = loss.args[0]
            if _softmax(module, first) or ast.unparse(first) in softmaxed:
                yield loss.lineno, (f"cross-entropy on softmax output ({ast.unparse(first)}): "
                                    "the loss applies log_softmax again")
