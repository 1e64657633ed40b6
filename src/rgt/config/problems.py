"""Turn the config models' validation errors into problems naming the key, the value and the fix.

Each pydantic error has a location (``('defaults', 'train', 'epochs')``), the value found and a
type; the models themselves say what was allowed there (the keys of a section, the choices of
a ``Literal``), so a message can list them.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from rgt.base.errors import ConfigError

MAX_PROBLEMS = 5
KEY = "[key]"  # pydantic's marker for an error in a mapping's key rather than its value
TYPE_WORDS = {
    "int_type": "a whole number",
    "number_type": "a number",
    "string_type": "a string",
    "model_type": "a mapping (key: value lines)",
    "model_attributes_type": "a mapping (key: value lines)",
    "dict_type": "a mapping (key: value lines)",
    "mapping_type": "a mapping (key: value lines)",
    "list_type": "a list",
    "bool_type": "true or false",
}
RELATIONS = {"greater_than_equal": ("ge", ">="), "less_than_equal": ("le", "<="),
             "greater_than": ("gt", ">"), "less_than": ("lt", "<")}


def raise_for(error: ValidationError, root: type[BaseModel], label: str,
              prefix: Sequence[str] = ()) -> None:
    """Raise the ``ConfigError`` describing ``error`` (at most ``MAX_PROBLEMS`` problems)."""
    described = [describe(item, root, prefix) for item in error.errors()[:MAX_PROBLEMS]]
    problems = "\n  ".join(problem for problem, _ in described)
    fixes = "; ".join(dict.fromkeys(fix for _, fix in described))
    raise ConfigError(f"{label} is invalid:\n  {problems}", fixes) from None


def describe(error: Mapping, root: type[BaseModel], prefix: Sequence[str] = ()) -> tuple[str, str]:
    """(problem, fix) for one error of validating ``root``; ``prefix`` is where ``root`` sits."""
    loc = [part for part in error["loc"] if part != KEY]
    problem = Problem(error, root, loc, tuple(prefix), KEY in error["loc"])
    handler = HANDLERS.get(error["type"], _generic)
    if error["type"] in TYPE_WORDS:
        handler = _wrong_type
    return handler(problem)


class Problem:
    """One error with its location, in the file's words and in the model's."""

    def __init__(self, error: Mapping, root: type[BaseModel], loc: list, prefix: tuple,
                 in_key: bool):
        self.error, self.root, self.loc, self.in_key = error, root, loc, in_key
        self.where = dotted([*prefix, *loc])
        self.parent = dotted([*prefix, *loc[:-1]])
        self.value = error.get("input")

    def annotation(self, loc: list | None = None) -> Any:
        """The type the model declares at ``loc`` (default: the error's), or None."""
        current: Any = self.root
        for part in self.loc if loc is None else loc:
            current = _inside(current, part)
            if current is None:
                return None
        return current


def dotted(path: Sequence) -> str:
    """``['defaults', 'train', 'epochs']`` -> ``defaults.train.epochs``."""
    return ".".join(str(part) for part in path) or "<top level>"


def _inside(annotation: Any, part: Any) -> Any:
    """The type one step inside ``annotation``: a model's field, or a mapping's values."""
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            field = member.model_fields.get(part)
            if field is not None:
                return field.annotation
        elif get_origin(member) in (dict, Mapping):
            return get_args(member)[1]
    return None


def _members(annotation: Any) -> list:
    """``annotation`` without ``Annotated`` wrappers, split into its union members."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        return [member for arg in get_args(annotation) for member in _members(arg)]
    return [annotation]


def _unknown_key(problem: Problem) -> tuple[str, str]:
    key = str(problem.loc[-1])
    parent = [m for m in _members(problem.annotation(problem.loc[:-1]))
              if isinstance(m, type) and issubclass(m, BaseModel)]
    allowed = sorted(parent[0].model_fields) if parent else []
    guess = difflib.get_close_matches(key, allowed, n=1)
    hint = f"rename it to '{guess[0]}'" if guess else "remove it"
    return (f"{problem.where}: unknown key '{key}' (allowed here: {', '.join(allowed)})",
            f"{hint} in the config file")


def _wrong_type(problem: Problem) -> tuple[str, str]:
    words = TYPE_WORDS[problem.error["type"]]
    if type(None) in _members(problem.annotation()):
        words += " or null"
    return f"{problem.where}: expected {words}, got {problem.value!r}", (
        f"write {problem.where} as {words}")


def _bound(problem: Problem) -> tuple[str, str]:
    name, relation = RELATIONS[problem.error["type"]]
    bound = f"{relation} {problem.error['ctx'][name]}"
    return (f"{problem.where} = {problem.value!r} is impossible: it must be {bound}",
            f"set {problem.where} to a value {bound}")


def _choice(problem: Problem) -> tuple[str, str]:
    literals = [m for m in _members(problem.annotation()) if get_origin(m) is Literal]
    choices = [choice for literal in literals for choice in get_args(literal)]
    listed = ", ".join(repr(choice) for choice in choices) or problem.error["ctx"]["expected"]
    return (f"{problem.where} = {problem.value!r} is not allowed (choose from {listed})",
            f"set {problem.where} to one of {listed}")


def _missing(problem: Problem) -> tuple[str, str]:
    key = problem.loc[-1]
    return f"{problem.parent}: required key '{key}' is missing", (
        f"add '{key}' under {problem.parent} (see config/config.yaml for a commented example)")


def _described(problem: Problem) -> tuple[str, str]:
    meaning = problem.error["ctx"]["meaning"]
    verb = "rename" if problem.in_key else "write"
    joint = "to" if problem.in_key else "as"
    return (f"{problem.where} = {problem.value!r} is not valid: expected {meaning}",
            f"{verb} {problem.where} {joint} {meaning}")


def _empty(problem: Problem) -> tuple[str, str]:
    return f"{problem.where} is empty", f"give {problem.where} at least one entry"


def _empty_text(problem: Problem) -> tuple[str, str]:
    return f"{problem.where} is empty", f"give {problem.where} a name"


def _duplicates(problem: Problem) -> tuple[str, str]:
    return (f"{problem.where} = {problem.value!r} repeats a value",
            f"list each value of {problem.where} once")


def _generic(problem: Problem) -> tuple[str, str]:
    return f"{problem.where}: {problem.error['msg']}", (
        f"correct {problem.where} (see config/config.yaml)")


HANDLERS = {
    "extra_forbidden": _unknown_key,
    "greater_than_equal": _bound,
    "less_than_equal": _bound,
    "greater_than": _bound,
    "less_than": _bound,
    "literal_error": _choice,
    "missing": _missing,
    "described": _described,
    "too_short": _empty,
    "string_too_short": _empty_text,
    "duplicates": _duplicates,
}
