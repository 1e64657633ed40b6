"""Resolved-config diffs: which dotted keys differ between runs, and which were declared."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

_MISSING = object()
# The run's identity (``run: {exp_id, variant, seed}``) differs between any two runs by design;
# a bare top-level ``seed`` is accepted too, for configs written by other tools.
IDENTITY_KEYS = ("run", "seed")


def flatten(mapping: Mapping, prefix: str = "") -> dict[str, object]:
    """Nested mappings as ``{"dotted.path": leaf}``; lists and empty mappings are leaves."""
    flat: dict[str, object] = {}
    for key, value in mapping.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, prefix=f"{path}."))
        else:
            flat[path] = value
    return flat


def declared_keys(variant_overrides: Mapping) -> list[str]:
    """The dotted keys a variant declares it changes (its ``variant_overrides``)."""
    return sorted(flatten(variant_overrides))


def differing_keys(configs: Iterable[Mapping]) -> list[str]:
    """Dotted keys whose value is not the same in every config; identity keys are ignored.

    A key present in some configs and absent from others differs.
    """
    flats = [flatten(_without_identity(config)) for config in configs]
    keys = sorted(set().union(*flats)) if flats else []
    return [key for key in keys if _varies([flat.get(key, _MISSING) for flat in flats])]


def _without_identity(config: Mapping) -> dict:
    return {key: value for key, value in config.items() if key not in IDENTITY_KEYS}


def undeclared_differences(configs: Iterable[Mapping], declared: Iterable[str]) -> list[str]:
    """Keys that differ across ``configs`` and are not (under) one of the ``declared`` keys."""
    declared = list(declared)
    return [key for key in differing_keys(configs) if not _is_declared(key, declared)]


def _is_declared(key: str, declared: list[str]) -> bool:
    # An override may replace a whole sub-tree, so keys below a declared key are declared too.
    return any(key == name or key.startswith(f"{name}.") for name in declared)


def _varies(values: list) -> bool:
    first = values[0]
    return any(value is not first and value != first for value in values[1:])
