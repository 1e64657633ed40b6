"""Convergence checks on the model and the loss: eval mode (O5) and double softmax (O12)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import ERROR, check
from rgt.doctor.checks.astutil import (
    LOOPS,
    Module,
    assigned_anywhere,
    assigned_from,
    dotted,
    is_no_grad,
    latest_value,
    method_calls,
    scope_walk,
    scopes,
    strip_methods,
)

DATA_WORDS = ("loader", "data", "batch", "val", "test", "eval")
CROSS_ENTROPY = ("torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss")
MOVES = ("to", "cuda", "cpu", "double", "float", "half", "train")
RESHAPES = ("view", "reshape", "flatten", "squeeze", "contiguous", "float")


def _over_data(node: ast.AST) -> bool:
    """A ``for`` over batches (``loader``, ``dataset``, ``batches``…), not over parameters: an
    optimizer's or EMA's ``no_grad`` loop over tensors is not an evaluation."""
    return isinstance(node, LOOPS[:2]) and any(
        word in ast.unparse(node.iter).lower() for word in DATA_WORDS)


def _evaluation_loops(module: Module, scope: ast.AST):
    """Loops over data under no_grad/inference_mode: a ``with`` block, or a decorated function."""
    if isinstance(scope, ast.FunctionDef) and any(is_no_grad(module, d)
                                                  for d in scope.decorator_list):
        yield from (n for n in scope_walk(scope) if _over_data(n))
    for node in scope_walk(scope):
        if isinstance(node, ast.With) and any(is_no_grad(module, item.context_expr)
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


def _layer_softmax(module: Module, value: ast.AST, classes: dict) -> ast.AST | None:
    """The softmax that the module built by ``value`` ends in: ``nn.Softmax(…)``,
    ``nn.Sequential(…, nn.Softmax(…))``, or a class whose ``forward`` returns a softmax."""
    value = strip_methods(value, MOVES)
    if not isinstance(value, ast.Call):
        return None
    name = module.qualified(value.func) or ""
    if name.endswith(".Softmax"):
        return value
    if name.endswith("Sequential") and value.args:
        return _layer_softmax(module, value.args[-1], classes)
    return classes.get(dotted(value.func) or "")


def _softmax_layers(module: Module, units, classes: dict) -> dict[str, ast.AST]:
    """Names bound in ``units`` (scopes) to modules that end in a softmax → that softmax."""
    layers = {}
    for unit in units:
        for name, value in assigned_from(
                unit, lambda v: _layer_softmax(module, v, classes) is not None).items():
            layers[name] = _layer_softmax(module, value, classes)
    return layers


def _softmax_output(module: Module, scope: ast.AST, node: ast.AST, line: int,
                    layers: dict) -> ast.AST | None:
    """The softmax ``node`` (an expression at ``line``) is the output of: a softmax call, a
    call of a softmax-ending layer or model, or a variable last assigned one of those."""
    node = strip_methods(node, RESHAPES)
    if _softmax(module, node):
        return node
    if isinstance(node, ast.Call):
        return layers.get(dotted(node.func) or "")
    assign = latest_value(scope, dotted(node) or "", line)
    return _softmax_output(module, scope, assign.value, assign.lineno, layers) if assign else None


def _forward_softmax(module: Module, cls: ast.ClassDef, classes: dict) -> ast.AST | None:
    """The softmax a module class's ``forward`` returns, if it returns one."""
    methods = [node for node in cls.body if isinstance(node, ast.FunctionDef)]
    layers = _softmax_layers(module, methods, classes)
    for forward in (method for method in methods if method.name == "forward"):
        for node in scope_walk(forward):
            if isinstance(node, ast.Return) and node.value is not None and (
                    found := _softmax_output(module, forward, node.value, node.lineno, layers)):
                return found
    return None


def _softmax_classes(module: Module) -> dict[str, ast.AST]:
    """Module classes whose forward returns a softmax → that softmax (a class may be built
    from another, hence the passes)."""
    classdefs = [node for node in ast.walk(module.tree) if isinstance(node, ast.ClassDef)]
    classes: dict[str, ast.AST] = {}
    for _ in classdefs:
        found = {cls.name: softmax for cls in classdefs
                 if (softmax := _forward_softmax(module, cls, classes)) is not None}
        if found.keys() == classes.keys():
            break
        classes = found
    return classes


def _is_cross_entropy(module: Module, value: ast.AST) -> bool:
    """``nn.CrossEntropyLoss(…)`` (moved or not), or ``F.cross_entropy`` itself."""
    value = strip_methods(value, MOVES)
    target = value.func if isinstance(value, ast.Call) else value
    name = module.qualified(target) or ""
    return name.endswith("CrossEntropyLoss") or name in CROSS_ENTROPY


def _losses(module: Module, scope: ast.AST, criteria: set[str]):
    """Cross-entropy calls in ``scope``: ``F.cross_entropy(...)`` or one of the ``criteria``
    (names bound to a CrossEntropyLoss)."""
    for node in scope_walk(scope):
        if isinstance(node, ast.Call) and node.args and (
                (module.qualified(node.func) or "") in CROSS_ENTROPY
                or ast.unparse(node.func) in criteria):
            yield node


@check("double-softmax", "O12", ERROR)
def double_softmax(module: Module):
    """Softmax outputs fed to cross-entropy, which applies log_softmax itself: a softmax call,
    or the output of an ``nn.Sequential``/module whose last step is a softmax."""
    layers = _softmax_layers(module, scopes(module.tree), _softmax_classes(module))
    criteria = set(assigned_anywhere(module, lambda v: _is_cross_entropy(module, v)))
    for scope in scopes(module.tree):
        for loss in _losses(module, scope, criteria):
            first = loss.args[0]
            softmax = _softmax_output(module, scope, first, loss.lineno, layers)
            if softmax is not None:
                where = "" if softmax is first else (f" (line {softmax.lineno}: "
                                                     f"{ast.unparse(softmax)})")
                yield loss.lineno, (f"cross-entropy on {ast.unparse(first)}, a softmax "
                                    f"output{where}: the loss applies log_softmax again")
