"""Seeding and RNG capture, so a resumed run replays exactly what an uninterrupted one does.

RNG states are stored as tensors and lists (not numpy objects) so checkpoints load with
``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

from rgt.train.platform import fix_threads

# cuBLAS is deterministic under ``use_deterministic_algorithms(True)`` only with a fixed
# workspace (CUDA >= 10.2); without it some torch/CUDA versions raise at the first matmul.
CUBLAS_WORKSPACE_ENV = "CUBLAS_WORKSPACE_CONFIG"
CUBLAS_WORKSPACE = ":4096:8"


def configure(threads: int, environ: dict | None = None) -> dict:
    """Fix thread counts (torch intra-op and inter-op, OpenMP, MKL: ``rgt.train.platform``)
    and deterministic kernels; return the settings for the run record.

    Sets ``CUBLAS_WORKSPACE_CONFIG`` in this process's environment when it is unset (it must
    be, before cuBLAS starts: this runs before any model is built); a value already set is
    kept, and the record says which.
    """
    env = os.environ if environ is None else environ
    inherited = env.get(CUBLAS_WORKSPACE_ENV)
    if inherited is None:
        env[CUBLAS_WORKSPACE_ENV] = CUBLAS_WORKSPACE
    in_force = fix_threads(threads)
    torch.use_deterministic_algorithms(True)
    return {"threads": threads, "thread_settings": in_force, "deterministic_algorithms": True,
            "cublas_workspace_config": env[CUBLAS_WORKSPACE_ENV],
            "cublas_workspace_config_set_by": "environment" if inherited is not None else "rgt"}


def seed_everything(seed: int) -> None:
    """Seed python, numpy and torch (CPU and, when present, CUDA) from one integer."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def capture_rng() -> dict:
    """The state of every RNG a training step may draw from."""
    version, internal, gauss = random.getstate()
    name, keys, position, has_gauss, cached = np.random.get_state()
    state = {
        "python": [version, list(internal), gauss],
        "numpy": {"name": name, "keys": torch.from_numpy(keys.astype(np.int64)),
                  "position": int(position), "has_gauss": int(has_gauss),
                  "cached_gaussian": float(cached)},
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict) -> None:
    """Put every RNG back to a state captured by ``capture_rng``."""
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    numpy_state = state["numpy"]
    np.random.set_state((numpy_state["name"], numpy_state["keys"].numpy().astype(np.uint32),
                         numpy_state["position"], numpy_state["has_gauss"],
                         numpy_state["cached_gaussian"]))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def epoch_order(num_samples: int, seed: int, epoch: int) -> torch.Tensor:
    """The sample order of one epoch: a pure function of (seed, epoch), so no sampler state
    needs saving — the data position is just (epoch, batch index)."""
    generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    return torch.randperm(num_samples, generator=generator)


def step_seed(seed: int, epoch: int, batch: int) -> int:
    """The seed of one training batch: a well-mixed function of the three numbers."""
    return int(np.random.SeedSequence([seed, epoch, batch]).generate_state(1)[0])


def seed_step(seed: int, epoch: int, batch: int) -> None:
    """Reseed python, numpy and torch for one training batch (dropout, noise, sampling)."""
    seed_everything(step_seed(seed, epoch, batch))
