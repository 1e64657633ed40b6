"""Background checkpoint writes under fire, on real `rgt train` processes (tests/drills.py):
SIGKILL while a write is torn halfway, SIGTERM while one is in flight. Both end bit-identical
to an uninterrupted run. The CUDA variants (fp32) run with ``--run-gpu`` on a GPU host, with a
plain kill-and-resume on CUDA (its CPU twin is in test_train_drills.py)."""

from __future__ import annotations

import pytest

import drills

pytestmark = pytest.mark.integration
DEVICES = [pytest.param("cpu", id="cpu"), pytest.param("cuda", id="cuda", marks=pytest.mark.gpu)]


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict:
    """Uninterrupted runs, one per device, trained on first use."""
    cache: dict[str, dict] = {}

    def of(device: str) -> dict:
        if device not in cache:
            cache[device] = drills.reference(tmp_path_factory.mktemp(f"ref-{device}"), device)
        return cache[device]

    return of


@pytest.mark.parametrize("device", DEVICES)
def test_sigkill_during_a_background_write_resumes_bit_identical(tmp_path, references,
                                                                   device):
    seen = drills.kill_during_write(tmp_path, device, references(device))
    assert seen["resumed_from"] == seen["held_step"] - drills.EVERY_STEPS
    assert seen["trained_to_while_held"] >= seen["held_step"] + 3  # the write did not block


@pytest.mark.parametrize("device", DEVICES)
def test_sigterm_during_a_background_write_lands_it_then_exits_75(tmp_path, references,
                                                                    device):
    seen = drills.term_during_write(tmp_path, device, references(device))
    assert seen["preempted_at"] >= seen["held_step"]


@pytest.mark.gpu
def test_sigkill_at_steps_then_resume_on_cuda_is_bit_identical(tmp_path, references):
    seen = drills.kill_and_resume(tmp_path, "cuda", references("cuda"))
    assert seen["killed_at"] == [37, 90]


@pytest.mark.gpu
def test_a_cuda_state_is_snapshotted_into_pinned_host_memory():
    assert drills.snapshot_on("cuda")["pinned"]
