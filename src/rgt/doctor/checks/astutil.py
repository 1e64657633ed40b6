"""AST helpers shared by the checks: import-aware names, scopes, loops and calls."""

from __future__ import annotations

import ast
from collections.abc import Iterator

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
LOOPS = (ast.For, ast.AsyncFor, ast.While)


class Module:
    """A parsed file and the names its imports bind (``np`` → ``numpy``)."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.aliases = _aliases(tree)

    def qualified(self, node: ast.AST) -> str | None:
        """The dotted name of ``node`` with its first part resolved through the imports."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        head = self.aliases.get(head, head)
        return f"{head}.{rest}" if rest else head

    def calls(self, root: ast.AST | None = None) -> Iterator[tuple[ast.Call, str]]:
        """Every call under ``root`` (default: the whole file) with its qualified name."""
        for node in ast.walk(root or self.tree):
            if isinstance(node, ast.Call):
                yield node, self.qualified(node.func) or ""


def _aliases(tree: ast.Module) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, None for anything else (calls, subscripts)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    """The keyword argument ``name`` of ``call``, if given."""
    return next((kw for kw in call.keywords if kw.arg == name), None)


def is_zero(node: ast.AST) -> bool:
    """A literal 0 (``num_workers=0``)."""
    return isinstance(node, ast.Constant) and node.value == 0


def method_calls(root: ast.AST, method: str) -> Iterator[tuple[ast.Call, str]]:
    """Calls ``X.method(...)`` under ``root`` with the receiver's dotted name ('' if complex)."""
    for node in ast.walk(root):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == method):
            yield node, dotted(node.func.value) or ""


def scopes(tree: ast.Module) -> Iterator[ast.AST]:
    """The module and every function: the units whose statements run in order."""
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, FUNCTIONS[:2]):
            yield node


def scope_walk(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``scope`` except the bodies of functions nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, FUNCTIONS):
            stack.extend(ast.iter_child_nodes(node))


def assigned_from(scope: ast.AST, predicate) -> dict[str, ast.AST]:
    """Targets (dotted names) of ``X = value`` in ``scope`` whose value satisfies ``predicate``."""
    found: dict[str, ast.AST] = {}
    for node in scope_walk(scope):
        if isinstance(node, ast.Assign) and predicate(node.value):
            for target in node.targets:
                if (name := dotted(target)) is not None:
                    found[name] = node.value
    return found
