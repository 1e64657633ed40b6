"""What the adapters share, without a framework: an epoch's order from (seed, epoch) that can
start part-way, a seed per training batch, and refusing a launch that ignores the checkpoints."""

from __future__ import annotations

import pytest
import torch

import rgt
from rgt.adapters import refuse_an_unresumed_launch
from rgt.adapters.replay import ResumableSampler
from rgt.base.errors import CheckpointError
from rgt.train.determinism import epoch_order, step_seed


def test_each_epoch_is_a_permutation_fixed_by_seed_and_epoch():
    sampler = ResumableSampler(10, seed=3)
    first = list(sampler)
    assert sorted(first) == list(range(10))
    assert first == epoch_order(10, 3, 0).tolist() == list(ResumableSampler(10, seed=3))
    sampler.set_epoch(1)
    assert list(sampler) != first
    assert list(ResumableSampler(10, seed=4)) != first


def test_a_resumed_epoch_starts_after_the_samples_already_taken_once():
    sampler = ResumableSampler(list("abcdefgh"), seed=0)
    sampler.set_epoch(2)
    whole = list(sampler)
    sampler.resume_at(2, 5)
    assert list(sampler) == whole[5:]
    assert list(sampler) == whole
    assert len(sampler) == 8


def test_a_resume_point_of_another_epoch_skips_nothing():
    sampler = ResumableSampler(8, seed=0)
    sampler.set_epoch(3)
    sampler.resume_at(2, 8)  # the checkpoint ended epoch 2: epoch 3 runs whole
    assert len(list(sampler)) == 8


def test_the_order_is_decided_at_the_first_draw_not_when_the_iterator_is_built():
    sampler = ResumableSampler(8, seed=0)
    iterator = iter(sampler)  # a data loader builds its iterator before the epoch is set
    sampler.set_epoch(1)
    assert list(iterator) == epoch_order(8, 0, 1).tolist()


def test_without_shuffling_the_order_is_the_data_order():
    sampler = ResumableSampler(torch.zeros(6), seed=0, shuffle=False)
    sampler.resume_at(0, 2)
    assert list(sampler) == [2, 3, 4, 5]


def test_each_batch_has_its_own_seed_the_same_on_every_launch():
    seeds = {step_seed(0, epoch, batch) for epoch in range(3) for batch in range(100)}
    assert len(seeds) == 300
    assert step_seed(0, 1, 2) == step_seed(0, 1, 2) != step_seed(1, 1, 2)


def test_a_launch_that_did_not_resume_is_refused_while_checkpoints_exist(tmp_path):
    run = rgt.run(run_id="x", run_dir=tmp_path / "run", checkpoint_dir=tmp_path / "ck")
    refuse_an_unresumed_launch(run, resumed=False, fix="resume")  # a first launch: nothing yet
    run.store.save(3, {"weights": torch.zeros(2)})
    refuse_an_unresumed_launch(run, resumed=True, fix="resume")
    with pytest.raises(CheckpointError, match="up to step 3, but this launch did not resume"):
        refuse_an_unresumed_launch(run, resumed=False, fix="pass ckpt_path='last'")
