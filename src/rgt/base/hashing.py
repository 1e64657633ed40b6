"""Content hashes: files, canonical JSON, tensors and state dicts."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def canonical_json(obj: object) -> str:
    """JSON with sorted keys and no whitespace: equal values give equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest_json(obj: object) -> str:
    """Hex sha256 of the canonical JSON of ``obj``."""
    return sha256_bytes(canonical_json(obj).encode("ascii"))


def sha256_files(root: Path, files: Iterable[Path]) -> str:
    """Hash a set of files by their path relative to ``root`` and their bytes."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(sha256_file(path).encode() + b"\n")
    return digest.hexdigest()


def state_dict_sha256(state: Mapping) -> str:
    """sha256 over a torch ``state_dict`` in name order: name, dtype, shape and raw bytes.

    Bit-identical weights give equal digests whatever the file format they were saved in.
    """
    import torch  # deferred (~1.4 s): every process imports base, the controller torch-free

    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        # Viewing as bytes works for every dtype, bfloat16 included (numpy has none).
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()
