"""`rgt doctor` on a real research script's own checkpoint and resume (nanoGPT's train.py,
captured in tests/data/doctor/nanogpt/): before rgt, and brought to rgt with its own save and
resume left in place; torch's version-dependent defaults (weights_only from 2.6 on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgt.base.errors import RgtError
from rgt.cli import main
from rgt.doctor.static import check_file, torch_version

NANOGPT = Path(__file__).resolve().parents[1] / "data" / "doctor" / "nanogpt"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "charlm" / "train.py"

# check -> the start of each line it must fire on.
ORIGINAL = {
    "resume-unconditional": ["elif init_from == 'resume':", "if init_from == 'resume':"],
    "state-not-in-checkpoint": ["X, Y = get_batch('train') # fetch the very first batch"],
    "preemption-signal": ["while True:"],
    "atomic-save": ["torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))"],
    "rng-in-checkpoint": ["torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))"],
}
WITH_RGT = {
    "resume-unconditional": ["elif init_from == 'resume':", "if init_from == 'resume':"],
    "own-resume-beside-rgt": ["checkpoint = torch.load(ckpt_path, map_location=device)"],
    "state-not-in-checkpoint": ["X, Y = get_batch('train') # fetch the very first batch"],
    "atomic-save": ["torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))"],
    "own-checkpoint-beside-rgt": ["torch.save(checkpoint, os.path.join(out_dir, 'ckpt.pt'))"],
}


def found(path: Path, torch: tuple[int, int] | None) -> dict[str, list[str]]:
    """check -> the stripped lines it fired on."""
    lines = path.read_text().splitlines()
    fired: dict[str, list[str]] = {}
    for finding in check_file(path, torch):
        fired.setdefault(finding.check, []).append(lines[finding.line - 1].strip())
    return fired


@pytest.mark.parametrize(("name", "expected"), [("train.py", ORIGINAL),
                                                ("train_with_rgt.py", WITH_RGT)])
def test_nanogpt_gets_its_true_findings_and_no_weights_only_one_on_torch_2_6(name, expected):
    fired = found(NANOGPT / name, (2, 6))
    assert fired.keys() == expected.keys(), fired
    for check, starts in expected.items():
        assert len(fired[check]) == len(starts), (check, fired[check])
        assert all(line.startswith(start) for line, start in zip(fired[check], starts,
                                                                 strict=True)), fired[check]


def test_before_torch_2_6_or_with_torch_unknown_a_bare_torch_load_is_flagged():
    for torch in ((2, 5), None):
        fired = found(NANOGPT / "train.py", torch)
        assert fired["torch-load-weights-only"] == [
            "checkpoint = torch.load(ckpt_path, map_location=device)"]


def test_the_messages_name_what_a_resume_would_lose(capsys):
    assert main(["doctor", str(NANOGPT / "train_with_rgt.py"), "--torch", "2.6.0",
                 "--json"]) == 0
    messages = {f["check"]: f["message"] for f in json.loads(capsys.readouterr().out)}
    assert "X, Y: fetched ahead of the step" in messages["state-not-in-checkpoint"]
    assert "restores no RNG state" in messages["own-resume-beside-rgt"]
    assert "beside run.save (line" in messages["own-checkpoint-beside-rgt"]


def test_the_example_brought_to_rgt_with_rgt_start_is_clean(capsys):
    assert main(["doctor", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out.strip() == f"rgt doctor {EXAMPLE}: no findings"


def test_the_torch_version_comes_from_the_option_or_the_installed_metadata():
    assert torch_version("2.13.0+cpu") == (2, 13) and torch_version("2.5") == (2, 5)
    installed = torch_version()
    assert installed is not None and installed >= (2, 6)  # the suite's torch (CPU build)
    with pytest.raises(RgtError, match="--torch 'two' is not a torch version"):
        torch_version("two")
