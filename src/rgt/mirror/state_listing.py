"""What a host holds for one run's state directory: its checkpoint markers and heartbeat.

``survey_command`` builds the one command that asks (run with the host's interpreter); it
also writes the checkpoint ceiling the mirror plans (``cadence.json``, read by the trainer) when
that changed, so planning the cadence costs no extra round trip. ``parse_survey`` reads the
reply. Nothing here talks to a host.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rgt.train.cadence import CADENCE_SCHEMA
from rgt.train.checkpoint import SCHEMA as CHECKPOINT_SCHEMA

SURVEY_SCHEMA = "rgt/mirror-survey/v1"
SMALL_FILES = ("train.log", "status.json", "heartbeat.json", "probes.json")
_SURVEY = r"""
import json, os, re, sys, time
d, schema, cadence, small = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
out = {"schema": schema, "exists": os.path.isdir(d), "markers": [], "files": {},
       "now": time.time()}
if cadence != "-" and out["exists"]:
    path = os.path.join(d, "cadence.json")
    try:
        same = json.load(open(path)) == json.loads(cadence)
    except Exception:
        same = False
    if not same:
        with open(path + ".tmp", "w") as handle:
            handle.write(cadence)
        os.replace(path + ".tmp", path)
names = sorted(os.listdir(d)) if out["exists"] else []
for name in names:
    path = os.path.join(d, name)
    if re.fullmatch(r"step-\d+\.json", name):
        try:
            body = json.load(open(path))
            pt = os.path.join(d, body["file"])
            body["pt_bytes"] = os.path.getsize(pt) if os.path.isfile(pt) else None
            out["markers"].append(body)
        except Exception:
            pass
    elif name in small and os.path.isfile(path):
        out["files"][name] = os.path.getsize(path)
for name in ("heartbeat.json", "status.json"):
    try:
        out[name.split(".")[0]] = json.load(open(os.path.join(d, name)))
    except Exception:
        out[name.split(".")[0]] = None
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Marker:
    """A checkpoint's completion marker as the host holds it."""

    step: int
    file: str
    bytes: int
    sha256: str
    created_at: str
    body: dict
    """The marker exactly as the host wrote it."""

    @property
    def marker_file(self) -> str:
        return self.file.removesuffix(".pt") + ".json"


@dataclass(frozen=True)
class StateSurvey:
    """One run's state directory on a host."""

    exists: bool
    complete: list[Marker]
    """Checkpoints whose file has the marker's size, newest first."""
    small_files: dict[str, int]
    heartbeat: dict | None
    status: dict | None
    now: float | None = None
    """The host's clock when it answered (Unix seconds)."""

    @property
    def newest(self) -> Marker | None:
        return self.complete[0] if self.complete else None

    @property
    def remote_step(self) -> int | None:
        """The host's newest training step: its heartbeat, else its status, else None."""
        for record in (self.heartbeat, self.status):
            if record and isinstance(record.get("step"), int):
                return record["step"]
        return None


def survey_command(python: str, state_dir: str, ceiling_seconds: float | None = None,
                   planned_by: str = "") -> list[str]:
    """The argv that prints the survey of ``state_dir`` as one JSON line, first writing
    ``cadence.json`` there (when the directory exists and it changed) with ``ceiling_seconds``:
    the trainer then checkpoints at least that often (``rgt.train.cadence``)."""
    cadence = "-" if ceiling_seconds is None else json.dumps(
        {"schema": CADENCE_SCHEMA, "max_seconds": round(ceiling_seconds, 3), "by": planned_by},
        sort_keys=True)
    return [python, "-c", _SURVEY, state_dir, SURVEY_SCHEMA, cadence, *SMALL_FILES]


def parse_survey(text: str) -> StateSurvey:
    """The survey reply; ValueError when it is not one."""
    body = json.loads(text.strip().splitlines()[-1])
    if not isinstance(body, dict) or body.get("schema") != SURVEY_SCHEMA:
        raise ValueError(f"not a {SURVEY_SCHEMA} reply")
    markers = [Marker(m["step"], m["file"], m["bytes"], m["sha256"], m.get("created_at", ""),
                      {key: value for key, value in m.items() if key != "pt_bytes"})
               for m in body["markers"] if _is_complete(m)]
    return StateSurvey(bool(body["exists"]), sorted(markers, key=lambda m: -m.step),
                       dict(body["files"]), body.get("heartbeat"), body.get("status"),
                       body.get("now"))


def _is_complete(marker: dict) -> bool:
    try:
        return (marker["schema"] == CHECKPOINT_SCHEMA
                and marker["file"] == f"step-{int(marker['step']):09d}.pt"
                and marker["pt_bytes"] == marker["bytes"] and len(marker["sha256"]) == 64)
    except (KeyError, TypeError, ValueError):
        return False
