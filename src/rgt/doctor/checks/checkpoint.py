"""Checkpoint checks: ``torch.load`` without ``weights_only`` (RG1), non-atomic saves (C2)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import check
from rgt.doctor.checks.astutil import Module, assigned_from, keyword, scope_walk, scopes

RENAMES = ("os.replace", "os.rename", "shutil.move")


@check("torch-load-weights-only", "RG1")
def torch_load_weights_only(module: Module):
    """``torch.load(...)`` that does not say ``weights_only``."""
    for call, name in module.calls():
        if name == "torch.load" and keyword(call, "weights_only") is None:
            yield call.lineno, ("torch.load without weights_only: a full pickle load that can "
                                "run arbitrary code")


def _renames(module: Module, scope: ast.AST) -> bool:
    """The scope moves a file into place (``os.replace``, or ``Path.replace/rename(target)``)."""
    for node in scope_walk(scope):
        if not isinstance(node, ast.Call):
            continue
        if (module.qualified(node.func) or "") in RENAMES:
            return True
        # str.replace takes two arguments; Path.replace/rename take one.
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ("replace", "rename")
                and len(node.args) == 1):
            return True
    return False


def _safe_targets(module: Module, scope: ast.AST) -> tuple[set[int], set[str]]:
    """Nodes inside ``with <atomic writer>:`` blocks, and names bound to in-memory buffers."""
    inside = set()
    for node in scope_walk(scope):
        if isinstance(node, ast.With) and any(
                "atomic" in (module.qualified(getattr(item.context_expr, "func", item)) or "")
                for item in node.items):
            inside.update(id(n) for n in ast.walk(node))
    buffers = assigned_from(scope, lambda value: isinstance(value, ast.Call) and (
        module.qualified(value.func) or "").endswith(("BytesIO", "SpooledTemporaryFile")))
    return inside, set(buffers)


@check("atomic-save", "C2")
def atomic_save(module: Module):
    """``torch.save`` onto a file path in a function that never moves a temp file into place
    (saves inside an atomic-writer ``with`` block or into a BytesIO are fine)."""
    for scope in scopes(module.tree):
        if _renames(module, scope):
            continue
        inside, buffers = _safe_targets(module, scope)
        for node in scope_walk(scope):
            if id(node) in inside or not isinstance(node, ast.Call):
                continue
            if len(node.args) > 1 and ast.unparse(node.args[1]) in buffers:
                continue
            if module.qualified(node.func) == "torch.save":
                target = ast.unparse(node.args[1]) if len(node.args) > 1 else "the file"
                yield node.lineno, (f"torch.save writes straight onto {target}: a kill or a full "
                                    "disk mid-write leaves a truncated checkpoint")
