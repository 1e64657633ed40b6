"""Resolve a built-in name or a user's ``package.module:attribute`` to a callable."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from pathlib import Path

from rgt.base.errors import ConfigError


def resolve(name: str, builtins: Mapping[str, Callable], key: str) -> Callable:
    """Return the built-in called ``name`` or import ``package.module:attribute``."""
    if ":" not in name:
        if name not in builtins:
            raise ConfigError(f"{key} = {name!r} is not a built-in ({', '.join(builtins)})",
                              f"use a built-in or 'package.module:callable' in {key}")
        return builtins[name]
    module_name, attribute = name.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigError(f"{key} = {name!r}: cannot import {module_name} ({error})",
                          "install the package or put it on PYTHONPATH") from None
    if not hasattr(module, attribute):
        raise ConfigError(f"{key} = {name!r}: {module_name} has no attribute {attribute!r}",
                          f"check the spelling of {attribute!r}")
    return getattr(module, attribute)


def source_file(name: str) -> Path | None:
    """The source file of a user's ``package.module:attribute`` (None for built-ins)."""
    if ":" not in name:
        return None
    spec = importlib.util.find_spec(name.split(":", 1)[0])
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None
