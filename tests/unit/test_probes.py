"""Run-time probes on real torch models: one planted defect per probe, and a clean model."""

from __future__ import annotations

import torch
from torch import nn

from rgt.train import probes


class Net(nn.Module):
    """A small MLP with optional planted defects."""

    def __init__(self, unused: bool = False, dead: bool = False, nan: bool = False):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)
        self.side = nn.Linear(8, 3) if (unused or dead) else None
        self.dead, self.nan = dead, nan

    def forward(self, x):
        out = self.head(self.body(x))
        if self.dead:
            out = out + 0.0 * self.side(x)
        if self.nan:
            out = torch.log(out - 1e6)
        return out


def batch(n: int = 32):
    generator = torch.Generator().manual_seed(0)
    return torch.randn(n, 8, generator=generator), torch.randint(0, 3, (n,), generator=generator)


def adam(model, lr=0.01):
    return torch.optim.Adam(model.parameters(), lr=lr)


def test_clean_model_passes_every_probe_and_is_left_untouched():
    torch.manual_seed(0)
    model = Net()
    optimizer = adam(model, lr=0.05)
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    rng = torch.get_rng_state()
    results = probes.run_probes(model, optimizer, batch(16), configured_lr=0.05)
    assert all(result["ok"] for result in results.values()), results
    assert set(results) == {"no-grad-params", "optimizer-coverage", "nonfinite-module",
                            "applied-lr", "update-ratio", "overfit-one-batch"}
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())
    assert torch.equal(rng, torch.get_rng_state())
    assert not optimizer.state  # the real optimizer took no step
    assert results["applied-lr"]["lr"] == [0.05]


def test_unused_layer_gets_no_gradient():
    result = probes.gradient_coverage(Net(unused=True), batch())
    assert not result["ok"]
    assert result["none"] == ["side.weight", "side.bias"] and result["zero"] == []


def test_layer_multiplied_by_zero_gets_an_all_zero_gradient():
    result = probes.gradient_coverage(Net(dead=True), batch())
    assert result["zero"] == ["side.weight", "side.bias"] and result["none"] == []


def test_parameter_missing_from_optimizer_and_frozen_one_inside():
    model = Net()
    optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)
    result = probes.optimizer_coverage(model, optimizer)
    assert result["missing"] == ["head.weight", "head.bias"] and not result["ok"]
    model.body[0].bias.requires_grad_(False)
    assert probes.optimizer_coverage(model, optimizer)["frozen"] == ["body.0.bias"]


def test_first_nonfinite_module_is_named():
    assert probes.first_nonfinite_module(Net(), batch()[0])["module"] is None
    model = nn.Sequential(nn.Linear(8, 4), nn.Softplus(), nn.Linear(4, 3))
    with torch.no_grad():
        model[2].weight[0, 0] = float("inf")
    result = probes.first_nonfinite_module(model, batch()[0])
    assert result == {"probe": "nonfinite-module", "ok": False, "module": "2"}


def test_zero_learning_rate_fails_overfit_update_ratio_and_applied_lr():
    model = Net()
    optimizer = adam(model, lr=0.0)
    assert not probes.overfit_one_batch(model, optimizer, batch())["ok"]
    ratio = probes.update_ratios(model, optimizer, batch())
    assert ratio["ratios"] == [0.0] and not ratio["ok"]
    assert not probes.applied_lr(optimizer, 0.01)["ok"]


def test_overfit_succeeds_on_a_learnable_batch():
    torch.manual_seed(0)
    model = Net()
    result = probes.overfit_one_batch(model, adam(model, lr=0.05), batch(16))
    assert result["ok"] and result["best_loss"] <= 0.5 * result["initial_loss"]


def test_oversized_step_is_flagged_by_the_update_ratio():
    model = Net()
    ratio = probes.update_ratios(model, torch.optim.SGD(model.parameters(), lr=1e4), batch())
    assert ratio["ratios"][0] > probes.MAX_UPDATE_RATIO and not ratio["ok"]


class _SlowDigits(torch.utils.data.Dataset):
    """A dataset whose every item takes ``delay`` seconds, like slow decoding."""

    def __init__(self, delay: float):
        self.delay = delay

    def __len__(self):
        return 64

    def __getitem__(self, index):
        import time

        time.sleep(self.delay)
        return torch.full((8,), float(index)), index % 2


def _linear_step(model):
    def step(batch):
        model(batch[0]).sum().backward()
    return step


def test_a_starving_data_loader_is_caught_and_a_fed_one_passes():
    model = nn.Linear(8, 2)
    slow = torch.utils.data.DataLoader(_SlowDigits(0.01), batch_size=8)
    fast = torch.utils.data.DataLoader(_SlowDigits(0.0), batch_size=8)
    starving = probes.data_starvation(slow, _linear_step(model), steps=4)
    fed = probes.data_starvation(fast, _linear_step(model), steps=4)
    assert not starving["ok"] and starving["wait_fraction"] > 0.5 and starving["steps"] == 4
    assert fed["wait_fraction"] < starving["wait_fraction"]
    assert probes.data_starvation([], _linear_step(model))["steps"] == 0


def test_probes_are_opt_in_through_the_environment(monkeypatch):
    monkeypatch.delenv(probes.PROBES_ENV, raising=False)
    assert not probes.probes_enabled()
    monkeypatch.setenv(probes.PROBES_ENV, "1")
    assert probes.probes_enabled()
    monkeypatch.setenv(probes.PROBES_ENV, "0")
    assert not probes.probes_enabled()
