"""What a script brought to rgt keeps of its own, and what a bit-identical resume needs that the
checkpoint lacks: its own checkpoint ``torch.save`` beside ``run.save`` (RG3), its own resume
from its own file beside ``run.resume()`` (RG4), and values carried from one step to the next
(a prefetched batch) that no checkpoint holds (RG5)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import check
from rgt.doctor.checks.astutil import (
    Module,
    assigned_anywhere,
    called_name,
    dotted,
    latest_value,
    scope_walk,
    scopes,
    training_loops,
)
from rgt.doctor.checks.checkpoint import PLAIN_LOOP, RNG_RESTORES, checkpoint_saves, holds_optimizer

BATCH_CALLS = ("batch", "next")  # what fetches a batch: get_batch(...), next(iterator)
ASSIGNS = (ast.Assign, ast.AugAssign, ast.AnnAssign)


def rgt_runs(module: Module) -> set[str]:
    """Names bound to a plain-loop run: ``run = rgt.start()``, ``with rgt.run() as run``."""
    def opens_run(value: ast.AST) -> bool:
        return isinstance(value, ast.Call) and module.qualified(value.func) in PLAIN_LOOP

    names = set(assigned_anywhere(module, opens_run))
    names.update(dotted(node.optional_vars) for node in module.nodes
                 if isinstance(node, ast.withitem) and opens_run(node.context_expr)
                 and node.optional_vars is not None)
    return names - {None}


def rgt_saves(module: Module) -> list[ast.Call]:
    """The ``run.save(...)`` calls of the file's plain-loop runs."""
    runs = module.once("rgt-runs", rgt_runs)
    return [call for call, _ in module.calls() if called_name(call) == "save"
            and dotted(getattr(call.func, "value", None)) in runs]


@check("own-checkpoint-beside-rgt", "RG3")
def own_checkpoint_beside_rgt(module: Module):
    """A checkpoint the script still saves itself in a file that checkpoints through rgt."""
    through_rgt = rgt_saves(module)
    if not through_rgt:
        return
    for call in checkpoint_saves(module):
        if all(call is not save for save in through_rgt):
            yield call.lineno, (f"the script still writes its own checkpoint "
                                f"({ast.unparse(call.func)}(...)) beside run.save (line "
                                f"{through_rgt[0].lineno}): a second copy that no resume reads, "
                                "on a path every run of the command shares unless it is per run")


@check("own-resume-beside-rgt", "RG4")
def own_resume_beside_rgt(module: Module):
    """A resume from the script's own file (``torch.load`` then an optimizer's
    ``load_state_dict``) in a file that runs through ``rgt.run()``/``rgt.start()``."""
    if not module.once("rgt-runs", rgt_runs):
        return
    loads = assigned_anywhere(module, lambda value: isinstance(value, ast.Call)
                              and module.qualified(value.func) == "torch.load")
    rng = ("restores the RNG but not rgt's step and history"
           if any(called_name(call) in RNG_RESTORES for call, _ in module.calls())
           else "restores no RNG state, nor rgt's step and history")
    reported = set()
    for name, load in _optimizer_restores(module, loads):
        if id(load) not in reported:
            reported.add(id(load))
            yield load.lineno, (f"the script resumes from its own file too ({name} = "
                                f"{ast.unparse(load)}) beside run.resume(): that path {rng}, so "
                                "a run resumed there trains on from another state than rgt's "
                                "resume, and is sealed as if it were")


def _optimizer_restores(module: Module, loads: dict[str, ast.AST]):
    """``(name, torch.load call)`` for each ``load_state_dict`` of an optimizer fed from a
    name bound to a ``torch.load``."""
    for call, _ in module.calls():
        if called_name(call) != "load_state_dict" or not call.args:
            continue
        root = _root_name(call.args[0])
        if root in loads and (holds_optimizer(call.func) or holds_optimizer(call.args[0])):
            yield root, loads[root]


def _root_name(node: ast.AST) -> str | None:
    """``checkpoint`` for ``checkpoint['optimizer']`` or ``checkpoint.optimizer``."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@check("state-not-in-checkpoint", "RG5")
def state_not_in_checkpoint(module: Module):
    """A batch fetched ahead of the step that uses it (before the loop, then again inside it
    for the next step) that the loop's checkpoint does not hold."""
    saves = checkpoint_saves(module) + rgt_saves(module)
    for loop, scope in _checkpointing_loops(module, saves):
        loop_saves = [save for save in saves if any(save is node for node in ast.walk(loop))]
        held = set().union(*(_saved_names(scope, save) for save in loop_saves))
        carried = {name: line for name, line in _carried_batches(loop).items()
                   if name not in held and _fetched_before(scope, name, loop.lineno)}
        if carried:
            names = ", ".join(sorted(carried))
            yield _fetched_before(scope, min(carried), loop.lineno), (
                f"{names}: fetched ahead of the step that uses {_them(carried)} (here, then at "
                f"line {min(carried.values())} for the next step) and carried from one step to "
                f"the next, but the checkpoint (line {loop_saves[0].lineno}) does not hold "
                f"{_them(carried)}: a resumed run fetches another batch from the restored RNG "
                "and departs from the uninterrupted run at its first step")


def _them(names: dict) -> str:
    return "them" if len(names) > 1 else "it"


def _checkpointing_loops(module: Module, saves: list[ast.Call]):
    """``(loop, scope)`` for the outermost training loops that contain a checkpoint save."""
    found = [loop for loop in training_loops(module)
             if any(save is node for save in saves for node in ast.walk(loop))]
    for loop in found:
        if not any(other is not loop and loop in ast.walk(other) for other in found):
            yield loop, next(scope for scope in scopes(module.tree)
                             if any(loop is node for node in scope_walk(scope)))


def _fetched_before(scope: ast.AST, name: str, line: int) -> int | None:
    """The line of the last batch fetch into ``name`` (``X, Y = get_batch(...)``) in ``scope``
    above ``line``, or None."""
    lines = [node.lineno for node in scope_walk(scope)
             if isinstance(node, ast.Assign) and node.lineno < line and _fetches_batch(node)
             and any(isinstance(target, ast.Name) and target.id == name
                     for assigned in node.targets for target in ast.walk(assigned))]
    return max(lines, default=None)


def _saved_names(scope: ast.AST, save: ast.Call) -> set[str]:
    """Names and string keys in what ``save`` stores (a dict built earlier by name too)."""
    parts = [*save.args, *(keyword.value for keyword in save.keywords)]
    parts += [value.value for arg in save.args if isinstance(arg, ast.Name)
              and (value := latest_value(scope, arg.id, save.lineno)) is not None]
    return {node.id if isinstance(node, ast.Name) else node.value
            for part in parts for node in ast.walk(part)
            if isinstance(node, ast.Name) or (isinstance(node, ast.Constant)
                                              and isinstance(node.value, str))}


def _carried_batches(loop: ast.AST) -> dict[str, int]:
    """Names the loop reads before it assigns them in an iteration and then assigns from a
    batch fetch: ``{name: line of that fetch}``."""
    first, fetched = {}, {}
    for _, name, loaded, statement in sorted(_name_events(loop), key=lambda event: event[0]):
        first.setdefault(name, loaded)
        if statement is not None and _fetches_batch(statement):
            fetched.setdefault(name, statement.lineno)
    return {name: line for name, line in fetched.items() if first[name]}


def _name_events(loop: ast.AST):
    """``(position, name, loaded, assignment or None)`` for every use of a name in the loop;
    an assignment's targets take effect where the statement ends (after its value is read)."""
    parents = {id(child): node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(loop):
        if not isinstance(node, ast.Name):
            continue
        statement = parents.get(id(node))
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = parents.get(id(statement))
        loaded = isinstance(node.ctx, ast.Load)
        if not loaded and isinstance(statement, ASSIGNS):
            yield (statement.end_lineno, statement.end_col_offset), node.id, False, statement
        else:
            yield (node.lineno, node.col_offset), node.id, loaded, None


def _fetches_batch(statement: ast.stmt) -> bool:
    value = getattr(statement, "value", None)
    return isinstance(value, ast.Call) and any(word in called_name(value).lower()
                                               for word in BATCH_CALLS)
