"""The GPU-grade training settings under a real kill: bf16 autocast, gradient accumulation,
clipping and a DataLoader worker reading memory-mapped inputs, SIGKILLed mid-epoch twice, end
bit-identical to the uninterrupted run (tests/drills.py). bf16 autocasts on the CPU too; the
CUDA variant runs with ``--run-gpu``."""

from __future__ import annotations

import pytest

import drills

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("device", [pytest.param("cpu", id="cpu"),
                                    pytest.param("cuda", id="cuda", marks=pytest.mark.gpu)])
def test_bf16_accumulated_loader_run_killed_twice_resumes_bit_identical(tmp_path, device):
    seen = drills.runtime_kill_and_resume(tmp_path, device)
    assert seen["killed_at"] == list(drills.RUNTIME_KILL_STEPS)
