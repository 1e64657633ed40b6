"""A user's Lightning script (an MLP on synthetic data, validated each epoch), made resumable with
the Lightning adapter. Environment knobs for the tests: ADAPTER_STEPS (optimizer steps),
ADAPTER_SLEEP (seconds per step, so a drill can kill it mid-run), ADAPTER_EVERY (checkpoint every
N steps), ADAPTER_SHUFFLE=1 (a plain shuffling loader, which the adapter refuses)."""

import os
import time

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, TensorDataset

import rgt
from rgt.adapters.lightning import ResumableSampler, RgtCheckpoint

STEPS = int(os.environ.get("ADAPTER_STEPS", "30"))
SLEEP = float(os.environ.get("ADAPTER_SLEEP", "0"))
EVERY = int(os.environ.get("ADAPTER_EVERY", "4"))
SHUFFLE = os.environ.get("ADAPTER_SHUFFLE") == "1"


def dataset(seed: int, size: int) -> TensorDataset:
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(size, 8, generator=generator)
    return TensorDataset(inputs, (inputs.sum(dim=1) > 0).long())


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                       torch.nn.Dropout(0.3), torch.nn.Linear(16, 2))

    def training_step(self, batch, batch_idx):
        inputs, labels = batch
        loss = torch.nn.functional.cross_entropy(self.net(inputs), labels)
        accuracy = (self.net(inputs).argmax(dim=1) == labels).float().mean()
        return {"loss": loss, "accuracy": accuracy}

    def on_train_batch_end(self, outputs, batch, batch_idx):
        time.sleep(SLEEP)

    def validation_step(self, batch, batch_idx):
        inputs, labels = batch
        self.log("val_loss", torch.nn.functional.cross_entropy(self.net(inputs), labels))

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=0.01)
        return [optimizer], [torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)]


def main() -> None:
    pl.seed_everything(1, verbose=False)
    torch.use_deterministic_algorithms(True)
    train, val = dataset(0, 96), dataset(1, 64)
    model = Classifier()
    with rgt.run(every_steps=EVERY) as run:
        sampler = None if SHUFFLE else ResumableSampler(train, seed=1)
        loader = DataLoader(train, batch_size=16, sampler=sampler, shuffle=SHUFFLE)
        trainer = pl.Trainer(max_steps=STEPS, callbacks=[RgtCheckpoint(run, seed=1)],
                             accelerator="cpu", logger=False, enable_progress_bar=False,
                             enable_model_summary=False, deterministic=True)
        trainer.fit(model, loader, DataLoader(val, batch_size=32), ckpt_path="last")
        model.eval()
        with torch.no_grad():
            inputs, labels = val.tensors
            nll = torch.nn.functional.cross_entropy(model.net(inputs), labels, reduction="none")
        run.finish({"loss": {"value": nll.mean().item(), "split": "val", "direction": "lower",
                             "n": len(labels)}},
                   per_sample={"val": {"label": labels.numpy(), "nll": nll.numpy()}},
                   weights=model.state_dict())


if __name__ == "__main__":
    main()
