"""The knobs of ``rgt verify``: the smallest effect worth detecting per metric, pairing and the
multiple-comparison adjustment, from the config's ``verify:`` section and the command line.

A min effect is written in the metric's own unit (``0.01``), relative to the baseline mean
(``"2%"``) or in seed standard deviations (``"0.5sd"``). A metric that is not listed gets
``DEFAULT_MIN_EFFECT``: a 1% change of its baseline mean, a sensible scale for accuracy (one
point at 95%) as for perplexity (two at 200) or a loss.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from rgt.base.errors import ConfigError

if TYPE_CHECKING:  # its type only: `rgt verify --help` must not import yaml and pydantic
    from rgt.config import VerifySection

PAIRINGS = ("unpaired", "paired")
MULTIPLICITY = ("holm", "bh", "none")
MULTIPLICITY_NAMES = {"holm": "Holm (family-wise error rate)",
                      "bh": "Benjamini-Hochberg (false discovery rate)",
                      "none": "no adjustment"}
_RELATIVE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(%|sd)\s*$")
FORMAT_HINT = 'a number in the metric\'s unit (0.01), a share of the baseline mean ("2%") ' \
              'or seed standard deviations ("0.5sd")'


@dataclass(frozen=True)
class MinEffect:
    """The smallest difference worth detecting for one metric, as written by the user."""

    amount: float
    unit: str = "abs"  # "abs" (the metric's unit), "%" (of |baseline mean|) or "sd" (seed sd)

    def resolve(self, baseline_mean: float | None, seed_sd: float | None) -> float | None:
        """The min effect in the metric's unit; None when its reference is unknown."""
        if self.unit == "abs":
            return self.amount
        if self.unit == "%":
            return None if baseline_mean is None else self.amount / 100 * abs(baseline_mean)
        return None if seed_sd is None else self.amount * seed_sd

    def __str__(self) -> str:
        return {"abs": f"{self.amount:g}", "%": f"{self.amount:g}% of the baseline mean",
                "sd": f"{self.amount:g} seed sd"}[self.unit]


DEFAULT_MIN_EFFECT = MinEffect(1.0, "%")


def parse_min_effect(value: object, where: str) -> MinEffect:
    """A ``MinEffect`` from a config or CLI value; ValueError naming ``where``, value and fix."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value) and value > 0:
            return MinEffect(float(value))
    elif isinstance(value, str):
        match = _RELATIVE.match(value)
        if match and float(match.group(1)) > 0:
            return MinEffect(float(match.group(1)), match.group(2))
        try:
            return parse_min_effect(float(value), where)
        except ValueError:
            pass
    raise ValueError(f"{where} = {value!r} is not a min effect > 0; write {FORMAT_HINT}")


@dataclass(frozen=True)
class Settings:
    """How comparisons are tested and called: min effects, pairing, multiplicity adjustment."""

    min_effects: Mapping[str, MinEffect] = field(default_factory=lambda: MappingProxyType({}))
    pairing: str = "unpaired"
    multiplicity: str = "holm"

    def min_effect_for(self, metric: str) -> MinEffect:
        """The metric's declared min effect, else ``DEFAULT_MIN_EFFECT``."""
        return self.min_effects.get(metric, DEFAULT_MIN_EFFECT)

    def to_dict(self) -> dict:
        """The report's record of the settings (min effects as written)."""
        return {"min_effect": {metric: str(rule) for metric, rule in sorted(
                    self.min_effects.items())},
                "min_effect_default": str(DEFAULT_MIN_EFFECT), "pairing": self.pairing,
                "multiplicity": self.multiplicity}

    def with_overrides(self, overrides: Mapping[str, MinEffect]) -> Settings:
        """These settings with some metrics' min effects replaced (the CLI's --min-effect)."""
        merged = MappingProxyType({**self.min_effects, **overrides})
        return Settings(merged, self.pairing, self.multiplicity)


def settings_from_config(section: VerifySection) -> Settings:
    """``Settings`` from a validated config's ``verify:`` section; ``ConfigError`` on a bad
    min effect."""
    try:
        min_effects = {metric: parse_min_effect(value, f"verify.min_effect.{metric}")
                       for metric, value in section.min_effect.items()}
    except ValueError as error:
        raise ConfigError(str(error), "fix that value in the config's verify section") from None
    return Settings(MappingProxyType(min_effects), section.pairing, section.multiplicity)
