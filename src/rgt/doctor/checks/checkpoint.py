"""Checkpoint checks: ``torch.load`` without ``weights_only`` before torch 2.6 (RG1), non-atomic
saves (C2), and the resume contract of a loop that checkpoints: unconditional resume (C3), the
RNG in the checkpoint (C1), preemption signals (RG2). ``rgt.run()`` meets the contract by
construction (what a script keeps of its own beside it: ``resume.py``)."""

from __future__ import annotations

import ast

from rgt.doctor.checks import check
from rgt.doctor.checks.astutil import (
    Module,
    assigned_anywhere,
    assigned_from,
    called_name,
    dotted,
    keyword,
    loops,
    scope_walk,
    scopes,
    training_loops,
)

RENAMES = ("os.replace", "os.rename", "shutil.move")
RESUMES = ("load_state_dict", "load_latest", "resume", "load_checkpoint", "load_from_checkpoint")
PLAIN_LOOP = ("rgt.run", "rgt.start", "rgt.train.plain_loop.run", "rgt.train.plain_loop.start")
# From torch 2.6 on, torch.load defaults to weights_only=True.
WEIGHTS_ONLY_DEFAULT = (2, 6)
# Restoring the RNG from a checkpoint, or reseeding from the step/epoch inside the loop.
RNG_RESTORES = ("set_rng_state", "set_rng_state_all", "setstate", "set_state", "restore_rng")
RESEEDS = ("manual_seed", "seed", "seed_everything")
SIGNAL_WORDS = ("sigterm", "sigusr1", "preempt")


@check("torch-load-weights-only", "RG1")
def torch_load_weights_only(module: Module):
    """``torch.load(...)`` that does not say ``weights_only``, where the torch the code runs
    with is older than 2.6 (or unknown): from 2.6 on the default is ``weights_only=True``."""
    version = module.torch_version
    if version is not None and version >= WEIGHTS_ONLY_DEFAULT:
        return
    under = "unknown torch version" if version is None else f"torch {version[0]}.{version[1]}"
    for call, name in module.calls():
        if name == "torch.load" and keyword(call, "weights_only") is None:
            yield call.lineno, (f"torch.load without weights_only ({under}; before torch 2.6 "
                                "the default): a full pickle load that can run arbitrary code")


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


def holds_optimizer(node: ast.AST) -> bool:
    """An expression naming an optimizer: ``optimizer.state_dict()``, an ``"optimizer"`` key."""
    for child in ast.walk(node):
        text = (child.id if isinstance(child, ast.Name) else
                child.attr if isinstance(child, ast.Attribute) else
                child.value if isinstance(child, ast.Constant) else "")
        if isinstance(text, str) and "optim" in text.lower():
            return True
    return False


def checkpoint_saves(module: Module) -> list[ast.Call]:
    """Saves of a resumable checkpoint: a save call (``torch.save``, ``save_checkpoint(…)``)
    given a state that holds the optimizer, or a ``CheckpointStore``'s ``save``."""
    stores = set(assigned_anywhere(module, lambda v: (
        module.qualified(getattr(v, "func", v)) or "").endswith("CheckpointStore")))
    saves, named = [], []
    for call, _ in module.calls():
        if "save" not in called_name(call).lower():
            continue
        if dotted(getattr(call.func, "value", None)) in stores or any(
                holds_optimizer(arg) for arg in call.args):
            saves.append(call)
        elif any(isinstance(arg, ast.Name) for arg in call.args):
            named.append(call)
    if named:  # torch.save(state, path): what was put in ``state``?
        holders = set(assigned_anywhere(module, holds_optimizer))
        saves += [call for call in named if any(dotted(arg) in holders for arg in call.args)]
    return sorted(saves, key=lambda call: call.lineno)


def _loads(module: Module, root: ast.AST) -> list[ast.Call]:
    """Checkpoint loads under ``root``: ``torch.load``, ``load_state_dict``, ``run.resume()``…"""
    return sorted((call for call, name in module.calls(root)
                   if name == "torch.load" or called_name(call) in RESUMES),
                  key=lambda call: call.lineno)


def _contract_scope(module: Module) -> list[ast.Call]:
    """The checkpoint saves of a training script that handles checkpoints itself (not through
    ``rgt.run()``); empty when the contract checks do not apply."""
    return module.once("contract-saves", _contract_saves)


def _contract_saves(module: Module) -> list[ast.Call]:
    saves = checkpoint_saves(module)
    if not saves or any(name in PLAIN_LOOP for _, name in module.calls()) \
            or not training_loops(module):
        return []
    return saves


def _resume_flags(test: ast.AST) -> list[str]:
    """What in an ``if`` test reads a resume flag: a name (``args.resume``) or a comparison
    with a ``'resume'`` string (``init_from == 'resume'``); a call such as
    ``os.path.exists(args.resume_path)`` checks for a file and is no flag."""
    stack, flags = [test], []
    while stack:
        node = stack.pop()
        name = dotted(node)
        if name is not None and "resume" in name.rsplit(".", 1)[-1].lower():
            flags.append(name)
        elif isinstance(node, ast.Compare) and _names_resume(node):
            flags.append(ast.unparse(node))
        elif not isinstance(node, ast.Call):
            stack.extend(ast.iter_child_nodes(node))
    return flags


def _names_resume(compare: ast.Compare) -> bool:
    return any(isinstance(side, ast.Constant) and isinstance(side.value, str)
               and "resume" in side.value.lower() for side in (compare.left, *compare.comparators))


def _flag_gated_loads(module: Module):
    """``(if, flag, load)`` for checkpoint loads that run only when a resume flag is set."""
    seen = set()
    for node in module.nodes:
        if isinstance(node, (ast.If, ast.IfExp)) and (flags := _resume_flags(node.test)):
            loads = [call for call in _loads(module, node) if call.lineno not in seen]
            seen.update(call.lineno for call in loads)
            if loads:
                yield node, flags[0], loads[0]


@check("resume-unconditional", "C3")
def resume_unconditional(module: Module):
    """A checkpoint load behind a resume flag, or a training loop that writes checkpoints and
    never loads one: a preempted or requeued run starts from scratch."""
    for node, flag, load in _flag_gated_loads(module):
        when = flag if " " in flag else f"{flag} is set"  # a comparison, or a flag's name
        yield node.lineno, (f"the checkpoint is loaded (line {load.lineno}) only when {when}: "
                            "a preempted or requeued run reruns the same command and starts "
                            "from scratch")
    saves = _contract_scope(module)
    if saves and not _loads(module, module.tree):
        yield saves[0].lineno, ("this loop writes checkpoints but the file never loads one: a "
                                "restarted run starts from scratch")


def _restores_rng(module: Module) -> bool:
    if any(called_name(call) in RNG_RESTORES for call, _ in module.calls()):
        return True
    return any(called_name(call) in RESEEDS for loop in loops(module.tree)
               for call, _ in module.calls(loop))


@check("rng-in-checkpoint", "C1")
def rng_in_checkpoint(module: Module):
    """A training loop's checkpoint without the RNG state, and no reseeding in the loop."""
    saves = _contract_scope(module)
    if saves and not _restores_rng(module):
        yield saves[0].lineno, ("checkpoint saved without the RNG state and nothing restores it "
                                "(torch.set_rng_state, random.setstate, np.random.set_state): a "
                                "resumed run draws other batches and dropout masks than an "
                                "uninterrupted one")


def _handles_signals(module: Module) -> bool:
    """The file installs a signal handler or reads a preemption flag."""
    for node in module.nodes:
        name = (module.qualified(node) or "") if isinstance(node, ast.Name | ast.Attribute) else ""
        if name.startswith("signal.") or any(word in name.lower() for word in SIGNAL_WORDS):
            return True
    return False


@check("preemption-signal", "RG2")
def preemption_signal(module: Module):
    """A training loop that checkpoints but never handles SIGTERM/SIGUSR1."""
    saves = _contract_scope(module)
    if saves and not _handles_signals(module):
        trained = training_loops(module)
        loop = next((loop for loop in trained if saves[0] in ast.walk(loop)), trained[0])
        yield loop.lineno, ("this training loop checkpoints (line "
                            f"{saves[0].lineno}) but nothing handles SIGTERM/SIGUSR1: a "
                            "preempted run is killed mid-step and loses everything since its "
                            "last checkpoint")
