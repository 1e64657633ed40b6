"""JSON Schema errors (hosts and platform files) in the user's words: key, value and fix."""

from __future__ import annotations

import difflib

from jsonschema.exceptions import ValidationError

TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a string",
    "object": "a mapping (key: value lines)",
    "array": "a list",
    "boolean": "true or false",
    "null": "null",
}


def dotted(path) -> str:
    """``['defaults', 'train', 'epochs']`` -> ``defaults.train.epochs`` (``<top>`` when empty)."""
    return ".".join(str(part) for part in path) or "<top level>"


def describe(error: ValidationError) -> tuple[str, str]:
    """(problem, fix) for one schema error, in the user's words rather than the schema's."""
    handler = HANDLERS.get(error.validator, _generic)
    return handler(error, dotted(error.absolute_path))


def _unknown_keys(error: ValidationError, where: str) -> tuple[str, str]:
    allowed = sorted(error.schema.get("properties", {}))
    unknown = sorted(set(error.instance) - set(allowed))
    key = unknown[0]
    location = f"{where}.{key}" if error.absolute_path else key
    guess = difflib.get_close_matches(key, allowed, n=1)
    hint = f"rename it to '{guess[0]}'" if guess else "remove it"
    problem = f"{location}: unknown key '{key}' (allowed here: {', '.join(allowed)})"
    return problem, f"{hint} in the config file"


def _wrong_type(error: ValidationError, where: str) -> tuple[str, str]:
    wanted = error.validator_value
    wanted = wanted if isinstance(wanted, list) else [wanted]
    words = " or ".join(TYPE_WORDS.get(kind, kind) for kind in wanted)
    problem = f"{where}: expected {words}, got {error.instance!r}"
    return problem, f"write {where} as {words}"


def _bound(error: ValidationError, where: str) -> tuple[str, str]:
    relation = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
    }[error.validator]
    bound = f"{relation} {error.validator_value}"
    return f"{where} = {error.instance!r} is impossible: it must be {bound}", (
        f"set {where} to a value {bound}"
    )


def _choice(error: ValidationError, where: str) -> tuple[str, str]:
    choices = error.validator_value
    choices = choices if isinstance(choices, list) else [choices]
    listed = ", ".join(repr(choice) for choice in choices)
    return f"{where} = {error.instance!r} is not allowed (choose from {listed})", (
        f"set {where} to one of {listed}"
    )


def _missing(error: ValidationError, where: str) -> tuple[str, str]:
    missing = [key for key in error.validator_value if key not in error.instance]
    return f"{where}: required key '{missing[0]}' is missing", (
        f"add '{missing[0]}' under {where} (see config/config.yaml for a commented example)"
    )


def _pattern(error: ValidationError, where: str) -> tuple[str, str]:
    description = error.schema.get("description", f"text matching {error.validator_value}")
    return f"{where} = {error.instance!r} is not valid: expected {description}", (
        f"rename {where} to {description}"
    )


def _alternatives(error: ValidationError, where: str) -> tuple[str, str]:
    description = error.schema.get("description", "one of the documented forms")
    return f"{where} = {error.instance!r} is not valid: expected {description}", (
        f"write {where} as {description}"
    )


def _too_few(error: ValidationError, where: str) -> tuple[str, str]:
    return f"{where} is empty", f"give {where} at least one entry"


def _duplicates(error: ValidationError, where: str) -> tuple[str, str]:
    return f"{where} = {error.instance!r} repeats a value", f"list each value of {where} once"


def _generic(error: ValidationError, where: str) -> tuple[str, str]:
    return f"{where}: {error.message}", f"correct {where} (see config/config.yaml)"


HANDLERS = {
    "additionalProperties": _unknown_keys,
    "type": _wrong_type,
    "minimum": _bound,
    "maximum": _bound,
    "exclusiveMinimum": _bound,
    "exclusiveMaximum": _bound,
    "enum": _choice,
    "const": _choice,
    "required": _missing,
    "pattern": _pattern,
    "anyOf": _alternatives,
    "minItems": _too_few,
    "minProperties": _too_few,
    "uniqueItems": _duplicates,
}
