"""The package's import arrows point down (docs/architecture.md): read with ``ast``, never run.

Every import counts, function-local ones and ``importlib.import_module("rgt...")`` literals too.
An area is a top-level entry of ``rgt`` (``rgt/train/``, ``rgt/cli.py``); the executor plugin is
one more area on top. ``LAYERS`` lists them bottom to top: an area may import only areas listed
before it, so no cycle between areas can exist. Verb modules (``command.py``,
``*_command.py``) are imported by the CLI alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
EXECUTOR = "snakemake_executor_plugin_rgt"

LAYERS = {
    "base": ("base",),
    "domain": ("config", "data", "models", "plan", "train", "adapters", "evaluate", "verify",
               "deliver", "evidence", "report"),
    "operations": ("hosts", "platforms", "cluster", "remote", "mirror", "pull", "pool",
                   "controller", "watch", "grid", "down", "doctor", "project"),
    "entry points": ("cli", "__main__", EXECUTOR),
}
ORDER = [area for areas in LAYERS.values() for area in areas]


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def area_of(module: str) -> str | None:
    """The area of a module of ours; None for anything else (the ``rgt`` root included)."""
    parts = module.split(".")
    if parts[0] == EXECUTOR:
        return EXECUTOR
    return parts[1] if parts[0] == "rgt" and len(parts) > 1 else None


def imported_modules(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """Every module (or ``module.name``) an import statement or import_module literal names."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            found += [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif _is_import_module_literal(node):
            found.append(node.args[0].value)
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[:len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _is_import_module_literal(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "import_module" and isinstance(node.args[0].value, str)


def package_imports(src: Path = SRC) -> dict[str, set[str]]:
    """module -> the modules of ours it imports, for both packages under ``src``."""
    paths = {module_name(path, src): path for package in ("rgt", EXECUTOR)
             for path in sorted((src / package).rglob("*.py"))}
    edges = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text())
        named = imported_modules(tree, module, path.name == "__init__.py")
        # ``from rgt.x import y`` names the module rgt.x.y only when that module exists.
        edges[module] = {target for target in named if area_of(target)
                         and (target in paths or target.rsplit(".", 1)[0] not in paths)}
    return edges


def is_verb(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return last == "command" or last.endswith("_command")


def violations(edges: dict[str, set[str]]) -> list[str]:
    """One line per import against the layering; an area missing from ORDER is one too."""
    problems = []
    for module, targets in sorted(edges.items()):
        source = area_of(module)
        if source is None:  # the package's own __init__: its version string, nothing else
            continue
        if source not in ORDER:
            problems.append(f"{module}: area {source!r} is not placed in LAYERS (and the map)")
            continue
        for target in sorted(targets):
            problems += _check_arrow(module, source, target)
    return problems


def _check_arrow(module: str, source: str, target: str) -> list[str]:
    area = area_of(target)
    if is_verb(target) and source != "cli":
        return [f"{module} imports the verb module {target}: only rgt.cli imports verbs"]
    if area == source or area not in ORDER:
        return []
    if ORDER.index(area) > ORDER.index(source):
        return [f"{module} ({source}) imports {target} ({area}), an area above it"]
    return []


def test_every_import_points_down_and_no_library_module_imports_a_verb():
    assert violations(package_imports()) == []


def test_the_checker_sees_an_upward_function_local_import_and_a_verb_import(tmp_path):
    (tmp_path / "rgt" / "train").mkdir(parents=True)
    (tmp_path / "rgt" / "grid").mkdir()
    (tmp_path / EXECUTOR).mkdir()
    (tmp_path / EXECUTOR / "__init__.py").write_text("")
    (tmp_path / "rgt" / "train" / "loop.py").write_text(
        "def f():\n    from rgt.grid.expected import cells\n")
    (tmp_path / "rgt" / "grid" / "expected.py").write_text(
        "import importlib\nimportlib.import_module('rgt.down.command')\n")
    problems = violations(package_imports(tmp_path))
    assert problems == [
        "rgt.grid.expected imports the verb module rgt.down.command: only rgt.cli imports "
        "verbs",
        "rgt.train.loop (train) imports rgt.grid.expected (grid), an area above it",
    ]


@pytest.mark.parametrize("area", ORDER)
def test_the_architecture_page_places_every_area(area):
    assert f"`{area}`" in ARCHITECTURE.read_text(), f"docs/architecture.md does not name {area}"


def test_every_area_of_the_tree_is_placed():
    areas = {path.stem if path.suffix == ".py" else path.name
             for path in (SRC / "rgt").iterdir()
             if path.name not in ("__init__.py", "__pycache__")}
    assert areas <= set(ORDER), f"not placed in LAYERS: {sorted(areas - set(ORDER))}"
