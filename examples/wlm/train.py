"""Word-level LSTM language model, after pytorch/examples' word_language_model: the user's own
training script, made resumable and auditable with rgt's plain-loop API (the lines marked
``# rgt``). Run it by hand with ``RGT_RUN_ID=try python examples/wlm/train.py``, or as the
training job of an rgt experiment (examples/wlm/config.yaml).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import torch
from torch import nn

import rgt  # rgt

HERE = Path(__file__).resolve().parent


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--emsize", type=int, default=64)
    parser.add_argument("--nhid", type=int, default=128)
    parser.add_argument("--nlayers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5.0)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=20)
    parser.add_argument("--bptt", type=int, default=35)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds per step (drills)")
    return parser.parse_args()


class Corpus:
    """The three splits as tensors of word ids over one vocabulary."""

    def __init__(self, directory: Path):
        self.words: dict[str, int] = {}
        self.train, self.valid, self.test = (self.tokenize(directory / f"{split}.txt")
                                             for split in ("train", "valid", "test"))

    def tokenize(self, path: Path) -> torch.Tensor:
        ids = []
        for line in path.read_text().splitlines():
            for word in line.split() + ["<eos>"]:
                ids.append(self.words.setdefault(word, len(self.words)))
        return torch.tensor(ids, dtype=torch.long)


class LSTMModel(nn.Module):
    """Embedding -> LSTM -> linear decoder, with dropout on both sides of the LSTM."""

    def __init__(self, ntoken: int, ninp: int, nhid: int, nlayers: int, dropout: float):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inputs, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(inputs)), hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, batch: int):
        weight = next(self.parameters())
        shape = (self.rnn.num_layers, batch, self.rnn.hidden_size)
        return weight.new_zeros(shape), weight.new_zeros(shape)


def batchify(data: torch.Tensor, batch: int) -> torch.Tensor:
    columns = data.size(0) // batch
    return data[:columns * batch].view(batch, -1).t().contiguous()


def chunk(source: torch.Tensor, i: int, bptt: int):
    length = min(bptt, len(source) - 1 - i)
    return source[i:i + length], source[i + 1:i + 1 + length].reshape(-1)


def token_nll(model, source: torch.Tensor, bptt: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token NLL and target ids over a batchified split, hidden state carried along."""
    model.eval()
    hidden, losses, targets = model.init_hidden(source.size(1)), [], []
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, bptt):
            inputs, target = chunk(source, i, bptt)
            output, hidden = model(inputs, hidden)
            losses.append(nn.functional.cross_entropy(output.view(-1, output.size(-1)), target,
                                                      reduction="none"))
            targets.append(target)
    return torch.cat(losses), torch.cat(targets)


def main() -> None:
    args = arguments()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    corpus = Corpus(Path(args.data))
    train = batchify(corpus.train, args.batch_size)
    valid, test = batchify(corpus.valid, 10), batchify(corpus.test, 10)
    starts = list(range(0, train.size(0) - 1, args.bptt))
    model = LSTMModel(len(corpus.words), args.emsize, args.nhid, args.nlayers, args.dropout)
    criterion = nn.CrossEntropyLoss()
    lr, best_val, best_weights = args.lr, math.inf, None
    step, hidden = 0, model.init_hidden(args.batch_size)
    with rgt.run(total_steps=args.epochs * len(starts)) as run:  # rgt
        state = run.resume()  # rgt
        if state:  # rgt: everything the loop needs to continue exactly where it stopped
            model.load_state_dict(state["model"])
            step, lr, hidden = state["step"], state["lr"], tuple(state["hidden"])
            best_val, best_weights = state["best_val"], state["best_weights"]
        while step < args.epochs * len(starts):
            epoch, batch = divmod(step, len(starts))
            model.train()
            inputs, targets = chunk(train, starts[batch], args.bptt)
            hidden = tuple(h.detach() for h in hidden)  # truncated BPTT: keep the state only
            model.zero_grad()
            output, hidden = model(inputs, hidden)
            loss = criterion(output.view(-1, len(corpus.words)), targets)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter.add_(parameter.grad, alpha=-lr)
            step += 1
            time.sleep(args.sleep)
            row = {"loss": loss.item(), "lr": lr}
            if step % len(starts) == 0:  # end of an epoch: validate, anneal, keep the best
                val_loss = token_nll(model, valid, args.bptt)[0].mean().item()
                row["val_loss"] = val_loss
                if val_loss < best_val:
                    best_val = val_loss
                    best_weights = {k: v.clone() for k, v in model.state_dict().items()}
                else:
                    lr /= 4.0
                hidden = model.init_hidden(args.batch_size)
            run.log(step, **row)  # rgt
            if run.checkpoint_due(step):  # rgt
                run.save(step, {"model": model.state_dict(), "step": step, "lr": lr,  # rgt
                                "hidden": list(hidden), "best_val": best_val,
                                "best_weights": best_weights})
        model.load_state_dict(best_weights)
        per_split = {split: token_nll(model, source, args.bptt)
                     for split, source in (("val", valid), ("test", test))}
        metrics = {"perplexity": [], "loss": []}
        for split, (nll, _) in per_split.items():
            common = {"split": split, "direction": "lower", "n": len(nll)}
            metrics["perplexity"].append({"value": math.exp(nll.mean().item()), **common})
            metrics["loss"].append({"value": nll.mean().item(), **common})
        run.finish(metrics, weights=best_weights, per_sample={  # rgt
            split: {"label": target.numpy(), "nll": nll.numpy()}
            for split, (nll, target) in per_split.items()})


if __name__ == "__main__":
    main()
