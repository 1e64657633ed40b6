"""What a training script says about itself, read with ``ast`` (never run): its command-line
options (argparse, or nanoGPT's module-level settings overridden by ``configurator.py``), the
metrics its ``run.finish(...)`` reports, and the modules and files it names."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import RgtError

CONFIGURATOR = "configurator"  # nanoGPT's `exec(open('configurator.py').read())`
PLAIN_LOOP = ("rgt.run", "rgt.start")


@dataclass(frozen=True)
class Option:
    """One setting the command line can change: ``--lr 0.1`` (argparse) or ``--lr=0.1``
    (a module-level setting a configurator overrides)."""

    name: str  # as the script reads it (argparse's dest)
    flag: str  # as it is typed: --max_iters, --max-iters
    default: object  # a literal, or None when the default is no literal
    separator: str  # " " for argparse, "=" for a configurator


@dataclass(frozen=True)
class ScriptFacts:
    """What ``read_script`` found."""

    path: Path
    options: tuple[Option, ...]
    metrics: dict[str, dict]  # name -> {direction, split} of run.finish's literal dict
    uses_rgt: bool
    imports: tuple[str, ...]  # top-level module names
    names: tuple[str, ...]  # string constants: candidate paths of the project


def read_script(path: Path) -> ScriptFacts:
    """Read ``path``; a missing or unparseable script is an error naming it."""
    if not path.is_file():
        raise RgtError(f"rgt init: no training script at {path}",
                       "name yours: rgt init --script path/to/train.py")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError) as error:
        raise RgtError(f"rgt init: cannot parse {path}: {error}",
                       f"fix it first (python -m py_compile {path})") from None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return ScriptFacts(path, _argparse_options(calls) or _configurator_options(tree),
                       _finish_metrics(calls), any(_name(c.func) in PLAIN_LOOP for c in calls),
                       _imports(tree), _strings(tree))


def _name(node: ast.AST) -> str:
    return ast.unparse(node) if isinstance(node, ast.Name | ast.Attribute) else ""


def _literal(node: ast.AST | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def _argparse_options(calls: list[ast.Call]) -> tuple[Option, ...]:
    options = []
    for call in calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
            continue
        flags = [arg.value for arg in call.args if isinstance(arg, ast.Constant)
                 and isinstance(arg.value, str) and arg.value.startswith("--")]
        if flags:
            keywords = {kw.arg: kw.value for kw in call.keywords}
            dest = _literal(keywords.get("dest")) or flags[0][2:].replace("-", "_")
            options.append(Option(dest, flags[0], _literal(keywords.get("default")), " "))
    return tuple(options)


def _configurator_options(tree: ast.Module) -> tuple[Option, ...]:
    """nanoGPT's settings: the module-level ``name = literal`` lines above the ``exec`` of
    ``configurator.py``, each overridden by ``--name=value``."""
    options = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and CONFIGURATOR in ast.unparse(node):
            return tuple(options)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value)
            if isinstance(value, bool | int | float | str):
                name = node.targets[0].id
                options.append(Option(name, f"--{name}", value, "="))
    return ()  # no configurator: module-level names are no options


def _finish_metrics(calls: list[ast.Call]) -> dict[str, dict]:
    """``{name: {direction, split}}`` of the first ``<run>.finish({...})`` with a dict literal."""
    for call in calls:
        if isinstance(call.func, ast.Attribute) and call.func.attr == "finish" and call.args \
                and isinstance(call.args[0], ast.Dict):
            return {key.value: _declaration(value)
                    for key, value in zip(call.args[0].keys, call.args[0].values, strict=True)
                    if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return {}


def _declaration(node: ast.AST) -> dict:
    spec = {}
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in ("direction", "split"):
                spec[key.value] = _literal(value)
    return {key: value for key, value in spec.items() if isinstance(value, str)}


def _imports(tree: ast.Module) -> tuple[str, ...]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return tuple(sorted(names))


def _strings(tree: ast.Module) -> tuple[str, ...]:
    return tuple(sorted({node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                         and isinstance(node.value, str) and 0 < len(node.value) < 200}))
