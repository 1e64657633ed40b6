"""``evidence/data.json``: the data and split every planned run trains on, pinned by sha256.

``make repro`` checks a fresh clone's data against the committed pins before training, so a
changed dataset (a new scikit-learn release, a user's edited data module) stops the
reproduction with the experiment and both hashes instead of yielding quietly different numbers.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from rgt.base.files import write_bytes, write_json
from rgt.config import Config
from rgt.data import load_dataset, make_split
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


def export_data(config: Config, out_dir: str | Path) -> list[Path]:
    """The data and split of every planned run as plain files, for DVC to version and push:
    ``<out_dir>/<name>-<data sha256[:12]>/{inputs,labels,ids}.npy`` and
    ``split-<split sha256[:12]>.json`` (the sample ids of each split). Deterministic bytes,
    so a rebuild from the same data changes nothing. Returns the directories written."""
    written = {}
    for data, spec in {spec.settings.data: spec for spec in plan_runs(config)}.items():
        dataset = load_dataset(data)
        folder = Path(out_dir) / f"{dataset.name}-{spec.data_sha256[:12]}"
        for field in ("inputs", "labels", "ids"):
            write_bytes(folder / f"{field}.npy", _npy(getattr(dataset, field)))
        split = {name: sorted(int(i) for i in ids)
                 for name, ids in make_split(dataset, data.split).items()}
        write_json(folder / f"split-{spec.split_sha256[:12]}.json", split)
        written[folder] = None
    return list(written)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


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
