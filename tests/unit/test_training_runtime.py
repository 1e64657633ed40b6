"""Precision, accumulation, clipping and the batch sources: each keeps the trainer's promise
(stop anywhere, reload, continue, bit-identical), and bad settings or changed data are clear
errors."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from rgt.base.errors import ConfigError, DataError
from rgt.base.hashing import state_dict_sha256
from rgt.config import load_config
from rgt.data import Dataset, checked_dataset, make_split
from rgt.train.determinism import configure
from rgt.train.precision import check_supported
from rgt.train.trainer import Trainer

SAMPLES, CLASSES = 160, 4


def _blobs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    labels = np.arange(SAMPLES) % CLASSES
    inputs = rng.normal(size=(CLASSES, 1, 8, 8))[labels] + rng.normal(size=(SAMPLES, 1, 8, 8))
    return inputs.astype(np.float32), labels.astype(np.int64), np.arange(SAMPLES) * 7 + 3


class _Samples(torch.utils.data.Dataset):
    def __init__(self, inputs):
        self.inputs = inputs

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        return self.inputs[index]


class _Stream(torch.utils.data.IterableDataset):
    """(id, input) pairs in an order of its own that depends on the epoch."""

    def __init__(self, inputs, ids):
        self.inputs, self.ids, self.epoch, self.skip = inputs, ids, 0, set()

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        order = np.random.default_rng(self.epoch).permutation(len(self.ids))
        for row in order:
            if int(self.ids[row]) not in self.skip:
                yield int(self.ids[row]), self.inputs[row]


def _dataset(kind: str, tmp_path) -> Dataset:
    inputs, labels, ids = _blobs()
    if kind == "memmap":
        np.save(tmp_path / "inputs.npy", inputs)
        inputs = np.load(tmp_path / "inputs.npy", mmap_mode="r")
    elif kind == "samples":
        inputs = _Samples(inputs)
    elif kind == "stream":
        inputs = _Stream(inputs, ids)
    return checked_dataset(Dataset("blobs", inputs, labels, ids, CLASSES,
                                   None if kind in ("array", "memmap") else "v1"), "blobs")


def _settings(tiny_config, dropout: float = 0.3, **train):
    tiny_config["defaults"]["train"].update(**{"batch_size": 16, **train})
    tiny_config["defaults"]["model"]["dropout"] = dropout  # > 0: the torch RNG matters
    return load_config(tiny_config).run_settings("tiny", "plain", 0)


def _trainer(settings, dataset) -> Trainer:
    configure(1)
    return Trainer(settings, dataset, make_split(dataset, settings.data.split), 0)


def _interrupted_equals_reference(settings, dataset, stop_at: int) -> Trainer:
    reference = _trainer(settings, dataset)
    while not reference.finished:
        reference.train_step()
    interrupted = _trainer(settings, dataset)
    for _ in range(stop_at):
        interrupted.train_step()
    buffer = io.BytesIO()
    torch.save(interrupted.state_dict(), buffer)
    interrupted.batches.close()
    buffer.seek(0)
    torch.manual_seed(999)  # the restarted process's RNGs start elsewhere
    resumed = _trainer(settings, dataset)
    resumed.load_state_dict(torch.load(buffer, weights_only=True))
    while not resumed.finished:
        resumed.train_step()
    assert state_dict_sha256(resumed.model.state_dict()) == state_dict_sha256(
        reference.model.state_dict())
    assert resumed.history == reference.history
    return reference


@pytest.mark.parametrize("train", [
    pytest.param({"precision": "bf16", "accumulate": 2, "clip_grad_norm": 0.5}, id="bf16-acc"),
    pytest.param({"precision": "fp16", "clip_grad_norm": 1.0}, id="fp16-scaler"),
    pytest.param({"channels_last": True}, id="channels-last"),
])
def test_precision_accumulation_and_clipping_resume_bit_identical(tiny_config, tmp_path, train):
    settings = _settings(tiny_config, **train)
    reference = _interrupted_equals_reference(settings, _dataset("array", tmp_path), stop_at=5)
    state = reference.state_dict()
    assert state["precision"]["precision"] == train.get("precision", "fp32")
    assert ("scaler" in state["precision"]) == (train.get("precision") == "fp16")


@pytest.mark.parametrize("kind,workers", [("memmap", 1), ("samples", 0), ("stream", 0)])
def test_every_source_resumes_bit_identical_mid_epoch(tiny_config, tmp_path, kind, workers):
    settings = _settings(tiny_config, loader_workers=workers, accumulate=2)
    _interrupted_equals_reference(settings, _dataset(kind, tmp_path), stop_at=3)


def test_a_data_loader_reads_the_same_steps_as_the_in_memory_path(tiny_config, tmp_path):
    weights = []
    for workers, kind in ((None, "array"), (0, "memmap")):  # one after the other: one RNG
        trainer = _trainer(_settings(tiny_config, loader_workers=workers),
                           _dataset(kind, tmp_path))
        for _ in range(4):
            trainer.train_step()
        weights.append(state_dict_sha256(trainer.model.state_dict()))
    assert weights[0] == weights[1]


def test_accumulated_micro_batches_give_the_gradient_of_the_whole_batch(tiny_config, tmp_path):
    whole = _trainer(_settings(tiny_config, 0.0, batch_size=32), _dataset("array", tmp_path))
    halves = _trainer(_settings(tiny_config, 0.0, batch_size=16, accumulate=2),
                      _dataset("array", tmp_path))
    assert whole.steps_per_epoch == halves.steps_per_epoch and halves.effective_batch == 32
    for trainer in (whole, halves):
        trainer._forward_backward()  # the gradients of the first step, not yet applied
    for a, b in zip(whole.model.parameters(), halves.model.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-5, atol=1e-6)


def test_a_stream_whose_length_changed_is_refused_with_the_fix(tiny_config, tmp_path):
    dataset = _dataset("stream", tmp_path)
    trainer = _trainer(_settings(tiny_config), dataset)
    trainer.train_step()
    dataset.inputs.skip = {int(sample_id) for sample_id in trainer.batches.train_ids[:3]}
    with pytest.raises(DataError, match="its length changed") as caught:
        while not trainer.finished:
            trainer.train_step()
    assert "fingerprint" in caught.value.fix


def test_a_torch_dataset_whose_length_changed_is_refused_with_the_fix(tmp_path):
    inputs, labels, ids = _blobs()
    with pytest.raises(DataError, match="160 ids are declared: its length changed") as caught:
        checked_dataset(Dataset("blobs", _Samples(inputs[:150]), labels, ids, CLASSES, "v1"),
                        "blobs")
    assert "restore the data" in caught.value.fix


def test_a_checkpoint_over_data_of_another_length_is_refused(tiny_config, tmp_path):
    settings = _settings(tiny_config)
    state = _trainer(settings, _dataset("array", tmp_path)).state_dict()
    inputs, labels, ids = _blobs()
    shorter = Dataset("blobs", inputs[:120], labels[:120], ids[:120], CLASSES)
    with pytest.raises(DataError, match="resume is refused") as caught:
        _trainer(settings, shorter).load_state_dict(state)
    assert "restore the data" in caught.value.fix


def test_bf16_on_a_gpu_without_it_names_the_field_and_the_fix():
    with pytest.raises(ConfigError, match="train.precision = bf16") as caught:
        check_supported("bf16", torch.device("cuda"), bf16_supported=lambda: False)
    assert "fp16" in caught.value.fix
    check_supported("bf16", torch.device("cpu"))  # the CPU autocasts bf16


def test_channels_last_on_inputs_that_are_not_images_is_a_config_error(tiny_config):
    rng = np.random.default_rng(0)
    flat = Dataset("flat", rng.normal(size=(40, 6)).astype(np.float32),
                   np.arange(40) % 2, np.arange(40), 2)
    with pytest.raises(ConfigError, match="channels_last"):
        _trainer(_settings(tiny_config, channels_last=True), flat)


def test_the_new_keys_enter_the_run_identity_only_when_set(tiny_config):
    plain = _settings(tiny_config).to_dict()["train"]
    assert not {"precision", "accumulate", "clip_grad_norm", "compile", "channels_last",
                "loader_workers"} & set(plain)
    assert _settings(tiny_config, accumulate=2).to_dict()["train"]["accumulate"] == 2
