"""rgt as a user gets it: an sdist and a wheel built from this tree, and a fresh venv holding
torch's CPU build and the pinned dependencies (envs/local.txt), but not rgt itself: the test
installs the wheel with the README's own `pip install` (every dependency is then satisfied, so
nothing is downloaded, and the wheel's declared dependencies are checked against the lock).

The build copies only what it reads (pyproject.toml, setup.py, MANIFEST.in, README.md, src/ and
the shipped workflow) into a scratch folder, so it never writes build/ into the repository; the
wheel is built from the sdist, as an index serves it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rgt.base.shipped import SHIPPED

ROOT = Path(__file__).resolve().parents[1]
BUILD_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "src", *SHIPPED)
TORCH = "torch==2.13.0"  # the CPU build (a local file here and in CI), never the CUDA one
TIMEOUT = 900


@dataclass(frozen=True)
class WheelVenv:
    """The built artefacts and the fresh environment, with the seconds the venv took."""

    sdist: Path
    wheel: Path
    venv: Path
    seconds: float

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"


def run(args: list, cwd: Path | None = None) -> str:
    done = subprocess.run([str(arg) for arg in args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def build(scratch: Path) -> tuple[Path, Path]:
    """The sdist of a copy of this tree, and the wheel built from that sdist."""
    tree, dist = scratch / "tree", scratch / "dist"
    for name in BUILD_FILES:
        source = ROOT / name
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns(
                "__pycache__", "*.egg-info", "*.pyc"))
        else:
            shutil.copy2(source, target)
    sdist = run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                 f"print(build_meta.build_sdist({str(dist)!r}))"], tree).strip().splitlines()[-1]
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", dist, dist / sdist], scratch)
    return dist / sdist, next(dist.glob("*.whl"))


def fresh_venv(path: Path) -> None:
    """A venv with torch's CPU build and the pinned lock, everything without resolving."""
    run([sys.executable, "-m", "venv", path])
    pip = [path / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check",
           "--no-deps"]
    run([*pip, TORCH])
    run([*pip, "--require-hashes", "-r", ROOT / "envs" / "local.txt"])


def with_venv(dist: tuple[Path, Path], path: Path) -> WheelVenv:
    """The built ``(sdist, wheel)`` and a fresh venv at ``path``, timed."""
    started = time.monotonic()
    fresh_venv(path)
    return WheelVenv(*dist, path, time.monotonic() - started)
