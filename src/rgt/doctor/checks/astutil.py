"""AST helpers shared by the checks: import-aware names, scopes, loops and calls."""

from __future__ import annotations

import ast
from collections.abc import Iterator

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
NO_GRAD = ("torch.no_grad", "torch.inference_mode")
# Who takes the loss as backward's argument (Accelerate, DeepSpeed, Fabric, torch.autograd).
BACKWARD_OWNERS = ("accelerator", "engine", "fabric", "autograd")


class Module:
    """A parsed file, the names its imports bind (``np`` → ``numpy``), and the torch version it
    runs with (``(major, minor)``, None when unknown: version-dependent defaults)."""

    def __init__(self, tree: ast.Module, torch_version: tuple[int, int] | None = None):
        self.tree = tree
        self.torch_version = torch_version
        self.nodes = list(ast.walk(tree))  # walked once: every check reads the whole file
        self.aliases = _aliases(tree)
        self._kept: dict[str, object] = {}

    def once(self, key: str, compute):
        """``compute(self)``, computed on the first request only (several checks share it)."""
        if key not in self._kept:
            self._kept[key] = compute(self)
        return self._kept[key]

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
        for node in self.nodes if root is None else ast.walk(root):
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


def assigned_anywhere(module: Module, predicate) -> dict[str, ast.AST]:
    """``assigned_from`` over the module and every function (``self.net = …`` included)."""
    found: dict[str, ast.AST] = {}
    for node in module.nodes:
        if isinstance(node, ast.Assign) and predicate(node.value):
            for target in node.targets:
                if (name := dotted(target)) is not None:
                    found[name] = node.value
    return found


def loops(root: ast.AST) -> Iterator[ast.AST]:
    """Every ``for``/``while`` under ``root``, outer loops first."""
    return (node for node in ast.walk(root) if isinstance(node, LOOPS))


def innermost(nodes: list[ast.AST]) -> list[ast.AST]:
    """The nodes of ``nodes`` that contain none of the others (the inner loop of a nest)."""
    inner = []
    for node in nodes:
        below = {id(child) for child in ast.walk(node) if child is not node}
        if not any(id(other) in below for other in nodes):
            inner.append(node)
    return inner


def is_no_grad(module: Module, node: ast.AST) -> bool:
    """``torch.no_grad()`` / ``torch.inference_mode()`` (a ``with`` item or a decorator)."""
    target = node.func if isinstance(node, ast.Call) else node
    return (module.qualified(target) or "") in NO_GRAD


def training_loops(module: Module) -> list[ast.AST]:
    """Loops that call ``backward()`` (directly, not through a function), in line order."""
    if not any(called_name(node) == "backward" for node in module.nodes):
        return []  # most files train nothing: skip walking every loop
    return sorted((loop for loop in loops(module.tree) if backward_tensors(loop)),
                  key=lambda loop: loop.lineno)


def backward_tensors(root: ast.AST) -> list[tuple[ast.Call, str]]:
    """``(call, tensor)`` for every backward under ``root``: ``loss.backward()``,
    ``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``."""
    found = []
    for call, receiver in method_calls(root, "backward"):
        tensor = call.func.value
        if call.args and receiver.lower().endswith(BACKWARD_OWNERS):
            tensor = call.args[0]
        elif isinstance(tensor, ast.Call) and tensor.args:  # scaler.scale(loss)
            tensor = tensor.args[0]
        found.append((call, dotted(tensor) or receiver or ast.unparse(tensor)))
    return found


def strip_methods(node: ast.AST, methods: tuple[str, ...]) -> ast.AST:
    """``Net()`` for ``Net().to(device).train()``: peel the trailing calls named in ``methods``."""
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr in methods):
        node = node.func.value
    return node


def called_name(node: ast.AST) -> str:
    """The name a call calls (``save`` for ``torch.save(…)``, ``item`` for ``x.item()``)."""
    if not isinstance(node, ast.Call):
        return ""
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return dotted(node.func) or ""


def latest_value(scope: ast.AST, name: str, line: int) -> ast.Assign | None:
    """The last ``name = value`` of ``scope`` above ``line`` (the value ``name`` holds there)."""
    earlier = [node for node in scope_walk(scope) if isinstance(node, ast.Assign)
               and node.lineno < line and name in (dotted(t) for t in node.targets)]
    return max(earlier, key=lambda node: node.lineno, default=None)
