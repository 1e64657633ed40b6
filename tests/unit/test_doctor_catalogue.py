"""The catalogue (src/rgt/doctor/catalogue.yaml): every entry of skill-inventory §5 and §6, each
tagged, and every entry a check, a log cause or a host check points at has its fix."""

from __future__ import annotations

import re
from collections import Counter
from importlib import resources

import yaml

from rgt.doctor.catalogue import TAGS, load_catalogue
from rgt.doctor.checks import all_checks

# Families of skill-inventory §5 (M1-M20, D1-D26, ..., T1-T23 + T18b) and §6 (U1-U44), and
# rgt's own contract (RG1 weights_only loads, RG2 preemption signals).
FAMILY_SIZES = {"M": 20, "D": 26, "P": 19, "T": 24, "C": 18, "L": 10, "V": 7, "DF": 8, "R": 6,
                "X": 5, "O": 26, "DP": 15, "U": 44, "RG": 5}
HOST_ENTRIES = ("U7", "U41", "DP15", "U40", "U8")
CLASSIFIER_CAUSES = ("preempted", "disk_full", "cuda_oom", "host_oom", "nonfinite", "user_error",
                     "code_error", "unknown")


def raw_entries() -> list[dict]:
    text = resources.files("rgt.doctor").joinpath("catalogue.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["entries"]


def test_every_inventory_entry_is_there_once():
    ids = [entry["id"] for entry in raw_entries()]
    assert len(ids) == len(set(ids)) == 233
    families = Counter(re.match(r"[A-Z]+", ident)[0] for ident in ids)
    assert families == FAMILY_SIZES


def test_every_entry_has_a_source_a_known_tag_and_text():
    for entry in load_catalogue().entries.values():
        assert entry.tags and set(entry.tags) <= set(TAGS), entry.id
        assert entry.source.startswith(("skill-inventory §5.", "skill-inventory §6", "issue 8",
                                        "skill-inventory §3.10", "rgt contract"))
        assert entry.text and entry.fix


def test_what_the_tools_point_at_is_curated():
    catalogue = load_catalogue()
    pointed = {check.entry for check in all_checks()} | set(HOST_ENTRIES)
    pointed |= {ident for cause in catalogue.log_causes.values() for ident in cause.entries}
    for ident in pointed:
        entry = catalogue.entry(ident)
        assert entry.curated and entry.fix != entry.text, ident


def test_every_classifier_cause_has_advice():
    causes = load_catalogue().log_causes
    assert set(causes) == set(CLASSIFIER_CAUSES)
    assert all(cause.advice for cause in causes.values())
