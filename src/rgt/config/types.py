"""The building blocks of the config's models: a frozen section, and the value types a key can
have (a number that keeps YAML's int or float, a name of a given form, a frozen mapping).

Values keep the type YAML gave them (``5`` stays an int in a number key): the run id hashes the
resolved config, so ``heartbeat_seconds: 5`` must hash as it always has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    WrapSerializer,
)
from pydantic_core import PydanticCustomError


class Section(BaseModel):
    """A frozen part of the config: unknown keys are rejected and nothing is coerced."""

    # defer_build: a section's own validator is built when it is first used on its own (most
    # never are: the config's validator covers them), not for every section at each start.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)

    def to_dict(self) -> dict:
        """Plain data, as a file would hold it: defaults filled in, optional keys the file left
        out still left out."""
        return self.model_dump(mode="python")


def _number(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("number_type", "expected a number")
    return value


# YAML's int or float, kept as given (bounds go in Field: ``Annotated[Number, Field(gt=0)]``).
Number = Annotated[int | float, PlainValidator(_number)]


def described(accepts: Callable[[Any], bool], meaning: str) -> Any:
    """A value ``accepts`` takes; an error says ``meaning`` (the user's words for the form)."""

    def check(value: object) -> object:
        if not accepts(value):
            raise PydanticCustomError("described", "expected {meaning}", {"meaning": meaning})
        return value

    return Annotated[Any, PlainValidator(check)]


def described_text(pattern: str, meaning: str) -> Any:
    """A string matching ``pattern`` (a name of a given form)."""
    compiled = re.compile(pattern)
    return described(lambda value: isinstance(value, str) and bool(compiled.fullmatch(value)),
                     meaning)


class FrozenMap(Mapping):
    """A read-only, hashable mapping (unlike ``MappingProxyType``, it copies and pickles)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping | None = None):
        self._items = dict(items or {})

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))


def freeze(value: Any) -> Any:
    """A read-only copy: mappings become ``FrozenMap``, lists tuples, all the way down."""
    if isinstance(value, Mapping):
        return FrozenMap({key: freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """Plain ``dict``/``list`` data again (what YAML, JSON and hashing take)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="python")
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


def frozen_map(mapping_type: Any, **bounds: Any) -> Any:
    """``mapping_type`` (e.g. ``dict[str, Section]``) validated, then read-only."""
    return Annotated[mapping_type, Field(**bounds), AfterValidator(freeze),
                     WrapSerializer(lambda value, _: thaw(value))]


def empty_map() -> Mapping:
    """The default of an optional mapping key."""
    return FrozenMap()


def _unique(values: list) -> list:
    if len(set(values)) != len(values):
        raise PydanticCustomError("duplicates", "repeats a value")
    return values


def unique_list(item_type: Any, **bounds: Any) -> Any:
    """A list of ``item_type`` without repeats, held as a tuple."""
    return Annotated[list[item_type], Field(**bounds), AfterValidator(_unique),
                     AfterValidator(tuple), WrapSerializer(lambda value, _: list(value))]


def leave_out_when_unset(value: object) -> bool:
    """``exclude_if`` of an optional key without a default: absent stays absent."""
    return value is None


def leave_out_when_empty(value: object) -> bool:
    """``exclude_if`` of an optional collection added later: left empty, it is absent from
    the resolved config, so the run ids of configs without it do not change."""
    return not value
