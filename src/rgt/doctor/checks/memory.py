"""Memory checks: a training loop that keeps every step's autograd graph alive (M20)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import check
from rgt.doctor.checks.astutil import (
    Module,
    assigned_from,
    backward_tensors,
    dotted,
    scope_walk,
    training_loops,
)

COLLECT = ("append", "extend", "insert")
# What turns a loss into a number or a graph-free tensor: methods, and builtins.
DETACHING_METHODS = ("item", "detach", "tolist")
DETACHING_BUILTINS = ("float", "int")


def _detached(value: ast.AST) -> bool:
    """``loss.item()``, ``loss.detach().cpu()``, ``float(loss)``."""
    while isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name):
            return value.func.id in DETACHING_BUILTINS
        if not isinstance(value.func, ast.Attribute):
            return False
        if value.func.attr in DETACHING_METHODS:
            return True
        value = value.func.value
    return False


def _kept(node: ast.AST, graphs: set[str]) -> tuple[str, str] | None:
    """``(what, tensor)`` when ``node`` stores a backward()-ed tensor beyond its step:
    ``losses.append(loss)`` or ``total += loss``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in COLLECT and node.args:
        tensor = dotted(node.args[-1])
        if tensor in graphs:
            return ast.unparse(node), tensor
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
            and dotted(node.value) in graphs and dotted(node.target) not in graphs:
        return ast.unparse(node), dotted(node.value)
    return None


@check("loss-graph-kept", "M20")
def loss_graph_kept(module: Module):
    """In a loop that calls backward(), the loss tensor itself is appended to a list or summed
    into an accumulator: each step's graph (and the activations it holds) stays alive."""
    reported = set()
    for loop in training_loops(module):
        detached = assigned_from(loop, _detached)
        graphs = {tensor for _, tensor in backward_tensors(loop)} - set(detached)
        for node in scope_walk(loop):
            if (kept := _kept(node, graphs)) and node.lineno not in reported:
                reported.add(node.lineno)
                what, tensor = kept
                yield node.lineno, (f"{what} keeps {tensor}'s autograd graph, and every "
                                    "activation it holds, alive for every step: memory grows "
                                    f"until it runs out; store {tensor}.item() instead")
