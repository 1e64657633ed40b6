"""Data-pipeline checks: worker seeding (DP1) and the ``__main__`` guard (DP6/U44)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import ERROR, check
from rgt.doctor.checks.astutil import Module, is_zero, keyword

RANDOM_MODULES = ("numpy.random.", "random.")
# Seeded explicitly, or fresh OS entropy per call: not a copy of the parent's state.
SAFE_RANDOM = ("numpy.random.default_rng", "numpy.random.Generator", "numpy.random.SeedSequence",
               "random.Random", "random.SystemRandom")
SAMPLE_METHODS = ("__getitem__", "__iter__", "__getitems__")
PROCESS_STARTERS = ("Process", "Pool", "spawn", "start_processes")


def worker_loaders(module: Module):
    """DataLoader calls that start worker processes (``num_workers`` given and not 0)."""
    for call, name in module.calls():
        if name.endswith("DataLoader"):
            workers = keyword(call, "num_workers")
            if workers is not None and not is_zero(workers.value):
                yield call


def _random_draws(module: Module) -> list[tuple[str, str, int]]:
    """(class, random call, line) for global-RNG draws inside a dataset's sample methods."""
    draws = []
    for cls in ast.walk(module.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for method in cls.body:
            if isinstance(method, ast.FunctionDef) and method.name in SAMPLE_METHODS:
                for call, name in module.calls(method):
                    if name.startswith(RANDOM_MODULES) and not name.startswith(SAFE_RANDOM):
                        draws.append((cls.name, name, call.lineno))
    return draws


@check("worker-seeding", "DP1", ERROR)
def worker_seeding(module: Module):
    """numpy/random drawn in a Dataset while a DataLoader forks workers without reseeding."""
    draws = _random_draws(module)
    if not draws:
        return
    cls, name, line = draws[0]
    for call in worker_loaders(module):
        if keyword(call, "worker_init_fn") is None:
            workers = ast.unparse(keyword(call, "num_workers").value)
            yield call.lineno, (f"DataLoader(num_workers={workers}) without worker_init_fn, while "
                                f"{cls} draws from {name}() (line {line}): every worker repeats "
                                "the same random sequence")


def _has_main_guard(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) \
                and "__main__" in ast.unparse(node.test):
            return True
    return False


def _top_level_work(tree: ast.Module) -> ast.stmt | None:
    """The first module-level statement that runs work on import (a call, a loop, a with)."""
    for node in tree.body:
        if isinstance(node, (ast.For, ast.While, ast.With, ast.AsyncFor)):
            return node
        if isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign)) and any(
                isinstance(child, ast.Call) for child in ast.walk(node)):
            return node
    return None


def _starts_processes(module: Module) -> bool:
    if any(True for _ in worker_loaders(module)):
        return True
    return any(name.startswith(("multiprocessing.", "torch.multiprocessing."))
               and name.rsplit(".", 1)[-1] in PROCESS_STARTERS for _, name in module.calls())


@check("main-guard", "DP6")
def main_guard(module: Module):
    """Worker processes started by a script that runs its work at import, without the guard."""
    if _has_main_guard(module.tree) or not _starts_processes(module):
        return
    work = _top_level_work(module.tree)
    if work is not None:
        yield work.lineno, ("this file starts worker processes and runs its work at module level "
                            "without `if __name__ == \"__main__\":`; under spawn every worker "
                            "re-runs it")
