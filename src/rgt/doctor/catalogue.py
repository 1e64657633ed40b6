"""The catalogue (catalogue.yaml): symptom → cause → fix entries from skill-inventory §5/§6."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

TAGS = ("static", "run-time", "advice")


@dataclass(frozen=True)
class Entry:
    """One catalogue entry; ``symptom``/``cause``/``fix`` fall back to the inventory's text."""

    id: str
    source: str
    tags: tuple[str, ...]
    text: str
    symptom: str
    cause: str
    fix: str
    curated: bool


@dataclass(frozen=True)
class LogCause:
    """What ``rgt doctor --log`` says for one ``rgt.watch.classify`` cause."""

    advice: str
    entries: tuple[str, ...]


@dataclass(frozen=True)
class Catalogue:
    """Every entry by id, and what each log cause points at."""

    entries: dict[str, Entry]
    log_causes: dict[str, LogCause]

    def entry(self, ident: str) -> Entry:
        """The entry ``ident`` (KeyError names it: a check pointing nowhere is a bug)."""
        return self.entries[ident]


def _entry(raw: dict) -> Entry:
    curated = all(key in raw for key in ("symptom", "cause", "fix"))
    text = raw["text"]
    return Entry(raw["id"], raw["source"], tuple(raw["tags"]), text, raw.get("symptom", text),
                 raw.get("cause", text), raw.get("fix", text), curated)


@cache
def load_catalogue() -> Catalogue:
    """The packaged catalogue, parsed once per process."""
    text = resources.files("rgt.doctor").joinpath("catalogue.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    entries = {item["id"]: _entry(item) for item in raw["entries"]}
    causes = {name: LogCause(item["advice"], tuple(item["entries"]))
              for name, item in raw["log_causes"].items()}
    return Catalogue(entries, causes)
