"""Verify a pull bundle on disk against its ``PULL_MANIFEST.json``: every problem, by kind.

Pure local checks (no host): the manifest's shape and paths, each file's presence, size and
sha256, files the manifest does not list, symlinks, the run id, the files a sealed run must have,
and every checkpoint (``*.pt``) loaded with ``torch.load(weights_only=True)`` with finite
floating tensors. torch is imported only when there is a ``.pt`` file to load.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from rgt.base.hashing import sha256_file
from rgt.pull.manifest import MANIFEST, SCHEMA, SOURCES, UNSAFE_NAME, manifest_sha256

VERIFIED = "PULL_VERIFIED.json"
VERIFIED_SCHEMA = "rgt/pull-verified/v1"
REASON = "REASON.json"
RESERVED = (MANIFEST, VERIFIED, REASON)
KINDS = ("missing", "extra", "size", "hash", "unloadable", "nonfinite", "unsafe", "symlink",
         "escape", "empty", "run_id_mismatch", "manifest_invalid")
PREFIXES = tuple(prefix for prefix, _ in SOURCES)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a bundle: the path it concerns, its kind (``KINDS``), the detail."""

    path: str
    kind: str
    detail: str

    def as_dict(self) -> dict:
        return asdict(self)


def path_problem(rel: object) -> str | None:
    """Why a manifest path is not a safe relative bundle path, or None when it is."""
    if not isinstance(rel, str) or not rel:
        return "not a non-empty string"
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or pure.as_posix() != rel:
        return "absolute, '..'-bearing or not normalised"
    if UNSAFE_NAME.search(rel) or pure.parts[0] not in PREFIXES or len(pure.parts) < 2:
        return f"not under {'/, '.join(PREFIXES)}/ or holds a control character"
    return None


def _entry_problem(entry: object) -> str | None:
    if not isinstance(entry, dict) or set(entry) != {"path", "bytes", "sha256"}:
        return f"entry {entry!r} is not {{path, bytes, sha256}}"
    size, digest = entry["bytes"], entry["sha256"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return f"{entry['path']}: bytes = {size!r} is not a size"
    if not (isinstance(digest, str) and len(digest) == 64
            and all(c in "0123456789abcdef" for c in digest)):
        return f"{entry['path']}: sha256 = {digest!r} is not a hex sha256"
    return None


def manifest_problems(manifest: object) -> list[Problem]:
    """Problems of a parsed manifest's shape (``manifest_invalid``), paths (``escape``) and
    emptiness (``empty``); an empty list means it can be trusted as a file list."""
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        return [Problem(MANIFEST, "manifest_invalid", f"not a {SCHEMA} manifest")]
    if not isinstance(manifest.get("run_id"), str) or not isinstance(manifest.get("files"), list):
        return [Problem(MANIFEST, "manifest_invalid", "run_id or files missing")]
    problems = [Problem(MANIFEST, "manifest_invalid", why) for why in
                filter(None, map(_entry_problem, manifest["files"]))]
    if problems:
        return problems
    paths = [entry["path"] for entry in manifest["files"]]
    if len(set(paths)) != len(paths) or paths != sorted(paths):
        problems.append(Problem(MANIFEST, "manifest_invalid", "paths are repeated or unsorted"))
    problems += [Problem(str(rel), "escape", why) for rel in paths
                 if (why := path_problem(rel))]
    if not paths:
        problems.append(Problem(MANIFEST, "empty", "the manifest lists no files"))
    return problems


def read_verified(bundle: Path) -> dict | None:
    """A bundle's ``PULL_VERIFIED.json`` record, or None when absent, torn or of another kind."""
    try:
        record = json.loads((Path(bundle) / VERIFIED).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("schema") != VERIFIED_SCHEMA:
        return None
    return record


def read_manifest(bundle: Path) -> tuple[dict | None, list[Problem]]:
    """The bundle's parsed manifest (None when unusable) and the problems found reading it."""
    try:
        manifest = json.loads((Path(bundle) / MANIFEST).read_text())
    except FileNotFoundError:
        return None, [Problem(MANIFEST, "manifest_invalid", f"no {MANIFEST} in {bundle}")]
    except (OSError, ValueError) as error:
        return None, [Problem(MANIFEST, "manifest_invalid", f"unreadable: {error}")]
    problems = manifest_problems(manifest)
    usable = not any(p.kind == "manifest_invalid" for p in problems)
    return (manifest if usable else None), problems


def expected_run_id(bundle: Path) -> str:
    """The run id a bundle's directory name stands for (``<id>`` or quarantine ``<id>--N``)."""
    return Path(bundle).name.split("--")[0]


def verify_bundle(bundle: Path, run_id: str | None = None,
                  allow_unsafe_pickle: bool = False) -> list[Problem]:
    """Every problem of the bundle at ``bundle``; empty when it fully holds.

    Args:
        bundle: the bundle directory (holding ``PULL_MANIFEST.json``).
        run_id: the id it must be; default: its directory name (see ``expected_run_id``).
        allow_unsafe_pickle: accept checkpoints whose pickle names globals beyond plain
            tensors and containers (they are then never unpickled, so not checked for NaN/Inf).
    """
    bundle = Path(bundle)
    manifest, problems = read_manifest(bundle)
    if manifest is None:
        return problems
    problems += run_id_problems(bundle, manifest, run_id or expected_run_id(bundle))
    problems += stamp_problems(bundle, manifest)
    listed = {e["path"]: e for e in manifest["files"] if not path_problem(e["path"])}
    problems += [p for rel, entry in listed.items() if (p := file_problem(bundle, entry))]
    problems += unlisted_problems(bundle, set(listed))
    problems += required_problems(set(listed), bool(manifest.get("weights_only")))
    present = [rel for rel in listed if rel.endswith(".pt") and _is_file(bundle / rel)]
    problems += checkpoint_problems(bundle, present, allow_unsafe_pickle)
    return problems


def stamp_problems(bundle: Path, manifest: dict) -> list[Problem]:
    """A ``PULL_VERIFIED.json`` that vouches for another manifest than the bundle's (``hash``)."""
    try:
        stamp = json.loads((bundle / VERIFIED).read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        return [Problem(VERIFIED, "unloadable", f"not JSON: {error}")]
    if not isinstance(stamp, dict) or stamp.get("manifest_sha256") != manifest_sha256(manifest):
        return [Problem(VERIFIED, "hash", "vouches for another manifest than PULL_MANIFEST.json")]
    return []


def run_id_problems(bundle: Path, manifest: dict, expected: str) -> list[Problem]:
    """``run_id_mismatch`` when the manifest's or ``run/run.json``'s id is not ``expected``."""
    problems = []
    if manifest["run_id"] != expected:
        problems.append(Problem(MANIFEST, "run_id_mismatch",
                                f"manifest run_id {manifest['run_id']!r} != {expected!r}"))
    try:
        recorded = json.loads((bundle / "run" / "run.json").read_text()).get("run_id")
    except FileNotFoundError:
        return problems
    except (OSError, ValueError, AttributeError) as error:
        return problems + [Problem("run/run.json", "unloadable", f"not a JSON object: {error}")]
    if recorded != expected:
        problems.append(Problem("run/run.json", "run_id_mismatch",
                                f"run.json run_id {recorded!r} != {expected!r}"))
    return problems


def _is_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def file_problem(bundle: Path, entry: dict) -> Problem | None:
    """A listed file's problem: ``escape``, ``symlink``, ``missing``, ``size`` or ``hash``."""
    rel = entry["path"]
    path = bundle / rel
    if path.is_symlink():
        return Problem(rel, "symlink", f"is a symlink to {os.readlink(path)}")
    if not path.resolve().is_relative_to(bundle.resolve()):
        return Problem(rel, "escape", "resolves outside the bundle")
    if not path.is_file():
        return Problem(rel, "missing", "listed in the manifest, not in the bundle")
    size = path.stat().st_size
    if size != entry["bytes"]:
        return Problem(rel, "size", f"{size} bytes, manifest says {entry['bytes']}")
    digest = sha256_file(path)
    if digest != entry["sha256"]:
        return Problem(rel, "hash", f"sha256 {digest[:12]}…, manifest says "
                                    f"{entry['sha256'][:12]}…")
    return None


def unlisted_problems(bundle: Path, listed: set[str]) -> list[Problem]:
    """Files (``extra``) and symlinks (``symlink``) in the bundle that the manifest lacks."""
    problems = []
    for directory, dirnames, filenames in os.walk(bundle):
        for name in sorted(dirnames + filenames):
            path = Path(directory) / name
            rel = path.relative_to(bundle).as_posix()
            if path.is_symlink() and rel not in listed:
                problems.append(Problem(rel, "symlink", f"unlisted symlink to {os.readlink(path)}"))
            elif name in filenames and rel not in listed and rel not in RESERVED:
                problems.append(Problem(rel, "extra", "in the bundle, not in the manifest"))
    return problems


def required_problems(listed: set[str], weights_only: bool = False) -> list[Problem]:
    """A sealed run (one with ``run/run.json``) must bring its weights and a checkpoint (a
    weights-only bundle: a checkpoint's marker, which the gate matches with the mirror)."""
    if "run/run.json" not in listed:
        return []
    problems = []
    if "run/model.pt" not in listed:
        problems.append(Problem("run/model.pt", "missing", "a sealed run must have its weights"))
    wanted = ".json" if weights_only else ".pt"
    if not any(rel.startswith("checkpoints/step-") and rel.endswith(wanted) for rel in listed):
        what = "a checkpoint's marker (step-*.json)" if weights_only else "a checkpoint (*.pt)"
        problems.append(Problem("checkpoints/", "missing",
                                f"a sealed run must have at least {what}"))
    return problems


def newest_marker(bundle: Path) -> dict | None:
    """The newest checkpoint marker a bundle holds (``checkpoints/step-*.json``), or None."""
    markers = sorted(Path(bundle, "checkpoints").glob("step-*.json"))
    for path in reversed(markers):
        try:
            body = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(body, dict) and isinstance(body.get("sha256"), str):
            return body
    return None


def checkpoint_problems(bundle: Path, rels: list[str], allow_unsafe: bool) -> list[Problem]:
    """Load every ``rels`` file with ``weights_only=True``: ``unsafe``, ``unloadable`` or
    ``nonfinite`` problems."""
    if not rels:
        return []
    import torch  # deferred (~1.4 s): `rgt status` imports this module through the grid

    problems = []
    for rel in rels:
        try:
            state = torch.load(bundle / rel, weights_only=True, map_location="cpu")
        except Exception as error:  # noqa: BLE001 - any load failure is a finding, not a crash
            problems += _load_failure(bundle / rel, rel, error, allow_unsafe)
            continue
        problems += [Problem(rel, "nonfinite", f"{key} holds NaN or Inf")
                     for key in nonfinite_keys(state)]
    return problems


def _load_failure(path: Path, rel: str, error: Exception, allow_unsafe: bool) -> list[Problem]:
    """Tell a valid pickle that needs more than tensors (``unsafe``) from a broken file."""
    from torch import serialization

    scan = getattr(serialization, "get_unsafe_globals_in_checkpoint", None)
    try:
        extra = scan(path) if scan is not None else []
    except Exception:  # noqa: BLE001 - not a readable checkpoint at all
        extra = []
    if extra:
        return [] if allow_unsafe else [Problem(
            rel, "unsafe", f"its pickle needs {', '.join(extra)} beyond tensors and containers "
                           "(pass --allow-unsafe-pickle only if you trust it)")]
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return [Problem(rel, "unloadable", f"{type(error).__name__}: {first[:200]}")]


def nonfinite_keys(value: object, key: str = "") -> list[str]:
    """Dotted keys of floating tensors holding NaN or Inf, searched through dicts and lists.

    Plain Python floats are not tensors: a ``selection`` best value may be ``inf`` by design.
    """
    import torch  # deferred, as above

    if isinstance(value, torch.Tensor):
        if value.is_floating_point() or value.is_complex():
            return [] if bool(torch.isfinite(value).all()) else [key or "(top)"]
        return []
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return []
    return [found for name, item in items
            for found in nonfinite_keys(item, f"{key}.{name}" if key else str(name))]
