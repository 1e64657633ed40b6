"""The GPU-grade training settings under a real kill: bf16 autocast, gradient accumulation,
clipping and a DataLoader worker reading memory-mapped inputs, SIGKILLed mid-epoch twice, end
bit-identical to the uninterrupted run (tests/drills.py). bf16 autocasts on the CPU too; the
CUDA variants (one also compiled, channels-last) run with ``--run-gpu``."""

from __future__ import annotations

import pytest

import drills

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("device,compiled", [
    pytest.param("cpu", False, id="cpu"),
    pytest.param("cuda", False, id="cuda", marks=pytest.mark.gpu),
    pytest.param("cuda", True, id="cuda-compiled-channels-last", marks=pytest.mark.gpu),
])
def test_bf16_accumulated_loader_run_killed_twice_resumes_bit_identical(tmp_path, device,
                                                                        compiled):
    seen = drills.runtime_kill_and_resume(tmp_path, device, compiled)
    assert seen["killed_at"] == list(drills.RUNTIME_KILL_STEPS)
    assert seen["runtime"]["precision"] == "bf16"
