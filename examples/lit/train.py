"""A small MLP on scikit-learn's bundled breast-cancer data, trained with PyTorch Lightning and made
resumable and auditable with rgt's Lightning adapter (the lines marked ``# rgt``): does
standardising the inputs change its test accuracy? Run it by hand with
``RGT_RUN_ID=try python examples/lit/train.py``, or as the training job of an rgt experiment
(examples/lit/config/config.yaml).
"""

from __future__ import annotations

import argparse
import time
import warnings

import lightning.pytorch as pl
import numpy as np
import torch
from sklearn.datasets import load_breast_cancer
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import rgt  # rgt
from rgt.adapters.lightning import ResumableSampler, RgtCheckpoint  # rgt

# A 30-row table needs no loader workers.
warnings.filterwarnings("ignore", message=r".*does not have many workers.*")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--standardize", type=int, choices=(0, 1), default=1)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds per step (drills)")
    return parser.parse_args()


def splits(standardize: bool) -> dict[str, TensorDataset]:
    """The data's fixed 60/20/20 train/val/test split (the same for every seed), its inputs
    standardised with the training split's mean and deviation, or left raw."""
    inputs, labels = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(labels))
    inputs = torch.tensor(inputs[order], dtype=torch.float32)
    labels = torch.tensor(labels[order], dtype=torch.long)
    val_start, test_start = int(0.6 * len(labels)), int(0.8 * len(labels))
    if standardize:
        train = inputs[:val_start]
        inputs = (inputs - train.mean(dim=0)) / train.std(dim=0)
    bounds = {"train": (0, val_start), "val": (val_start, test_start),
              "test": (test_start, len(labels))}
    return {split: TensorDataset(inputs[start:end], labels[start:end])
            for split, (start, end) in bounds.items()}


class Classifier(pl.LightningModule):
    """Two-layer MLP, cross-entropy, Adam; validation loss each epoch."""

    def __init__(self, features: int, hidden: int, lr: float, sleep: float = 0.0):
        super().__init__()
        self.lr, self.sleep = lr, sleep
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(hidden, 2))

    def training_step(self, batch, batch_idx):
        inputs, labels = batch
        return nn.functional.cross_entropy(self.net(inputs), labels)

    def on_train_batch_end(self, outputs, batch, batch_idx):
        time.sleep(self.sleep)

    def validation_step(self, batch, batch_idx):
        inputs, labels = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(inputs), labels))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def evaluate(model: Classifier, data: TensorDataset) -> dict[str, np.ndarray]:
    """Each sample's label, predicted class and NLL of its label."""
    inputs, labels = data.tensors
    model.eval()
    with torch.no_grad():
        logits = model.net(inputs)
    nll = nn.functional.cross_entropy(logits, labels, reduction="none")
    return {"label": labels.numpy(), "prediction": logits.argmax(dim=1).numpy(),
            "nll": nll.numpy()}


def main() -> None:
    args = arguments()
    pl.seed_everything(args.seed, verbose=False)
    torch.set_num_threads(1)
    data = splits(bool(args.standardize))
    model = Classifier(data["train"].tensors[0].shape[1], args.hidden, args.lr, args.sleep)
    with rgt.run() as run:  # rgt
        sampler = ResumableSampler(data["train"], seed=args.seed)  # rgt: was shuffle=True
        train = DataLoader(data["train"], batch_size=args.batch_size, sampler=sampler)  # rgt
        trainer = pl.Trainer(max_epochs=args.epochs, accelerator="cpu", deterministic=True,
                             logger=False, enable_progress_bar=False,
                             enable_model_summary=False,
                             callbacks=[RgtCheckpoint(run, seed=args.seed)])  # rgt
        trainer.fit(model, train, DataLoader(data["val"], batch_size=256),
                    ckpt_path="last")  # rgt: resume from the newest complete checkpoint
        records = {split: evaluate(model, data[split]) for split in ("val", "test")}
        metrics = {"accuracy": [], "loss": []}  # rgt: each split's value and direction
        for split, rows in records.items():  # rgt
            common = {"split": split, "n": len(rows["label"])}  # rgt
            accuracy = float(np.mean(rows["prediction"] == rows["label"]))  # rgt
            metrics["accuracy"].append({"value": accuracy, "direction": "higher", **common})  # rgt
            loss = float(rows["nll"].mean())  # rgt
            metrics["loss"].append({"value": loss, "direction": "lower", **common})  # rgt
        run.finish(metrics, per_sample=records, weights=model.state_dict())  # rgt


if __name__ == "__main__":
    main()
