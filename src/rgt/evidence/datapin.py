"""``evidence/data.json``: the data and split every planned run trains on, pinned by sha256.

``make repro`` checks a fresh clone's data against the committed pins before training, so a
changed dataset (a new scikit-learn release, a user's edited data module) stops the
reproduction with the experiment and both hashes instead of yielding quietly different numbers.
"""

from __future__ import annotations

from pathlib import Path

from rgt.base.files import write_json
from rgt.config import Config
from rgt.deliver.inputs import DeliveryError, read_document
from rgt.plan.runplan import plan_runs

DATA_PIN_SCHEMA = "rgt/data-pin/v1"
DATA_PIN_PATH = "evidence/data.json"


def data_pins(config: Config) -> dict:
    """The pin document of ``config``: one entry per experiment and variant."""
    pins = {(spec.exp_id, spec.variant): {"exp_id": spec.exp_id, "variant": spec.variant,
                                          "data_sha256": spec.data_sha256,
                                          "split_sha256": spec.split_sha256}
            for spec in plan_runs(config)}
    return {"schema": DATA_PIN_SCHEMA, "data": [pins[key] for key in sorted(pins)]}


def write_pins(config: Config, out: str | Path) -> dict:
    """Compute and write the pins."""
    pins = data_pins(config)
    write_json(out, pins)
    return pins


def check_pins(config: Config, pinned_path: str | Path) -> list[str]:
    """Every difference between today's data and the committed pins, one line each."""
    pinned = read_document(pinned_path, DATA_PIN_SCHEMA, "rgt data-pin")
    expected = {(p["exp_id"], p["variant"]): p for p in pinned.get("data") or []}
    found = {(p["exp_id"], p["variant"]): p for p in data_pins(config)["data"]}
    problems = []
    for key in sorted(set(expected) | set(found)):
        old, new = expected.get(key), found.get(key)
        if old is None or new is None:
            problems.append(f"{'/'.join(key)}: {'not pinned' if old is None else 'not planned'}")
            continue
        for field in ("data_sha256", "split_sha256"):
            if old[field] != new[field]:
                problems.append(f"{'/'.join(key)}: {field} is {new[field]}, pinned {old[field]}")
    return problems


def require_pins(config: Config, pinned_path: str | Path) -> None:
    """Raise a user error listing every difference from the pins."""
    problems = check_pins(config, pinned_path)
    if problems:
        raise DeliveryError(
            f"{pinned_path}: the data differs from the pinned data:\n  " + "\n  ".join(problems),
            fix="restore the pinned data (or, if the change is intended, rerun "
                f"`rgt data-pin --out {pinned_path}` and commit it with new evidence)",
        )
