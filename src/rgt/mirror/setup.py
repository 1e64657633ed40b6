"""Wire mirroring into a controller: where a run's mirror lives and the loop's settings."""

from __future__ import annotations

from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.config import Config
from rgt.mirror.loop import MirrorLoop, MirrorSettings
from rgt.mirror.sync import MirrorTarget
from rgt.remote.jobs import RemoteLayout

OFF = "off"
LOCAL = "local"


def mirror_root(setting: str, project: Path, config: Config) -> Path | None:
    """The directory holding ``<run-id>/`` mirrors: ``local`` is the project's checkpoint
    directory (``paths.checkpoints``), ``off`` is None, anything else a directory the user owns
    (a mounted NAS or bucket)."""
    if setting == OFF:
        return None
    if setting == LOCAL:
        return (project / config.paths.checkpoints).resolve()
    root = Path(setting).expanduser()
    if not root.is_absolute():
        raise ConfigError(f"rgt-mirror {setting!r} is neither 'local', 'off' nor an absolute "
                          "directory", "set rgt-mirror: local (the default), off, or /abs/path")
    return root


def mtbf_hours(platform: dict, config: Config) -> float:
    """The platform's mean time between preemptions, else the run config's assumption."""
    facts = (platform.get("preemption") or {}).get("mtbf_hours")
    return float(facts) if facts else float(config.defaults.checkpoint.mtbf_hours)


def target(run_id: str, layout: RemoteLayout, root: Path) -> MirrorTarget:
    """One run's state directory on the host and its mirror under ``root``."""
    return MirrorTarget(run_id, f"{layout.checkpoints}/{run_id}", root / run_id)


def new_loop(connect, python: str, every_seconds: float | None, mtbf: float,
             report) -> MirrorLoop:
    """A mirror loop that opens its own connection with ``connect``."""
    return MirrorLoop(connect, python, MirrorSettings(every_seconds, mtbf), report)
