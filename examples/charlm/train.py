"""Train a small character-level language model on data/input.txt, in the shape of nanoGPT's
train.py: a script whose training loop runs at module level, with its own options, its own
package (charlm/) and its own output directory. The nine lines ending in an ``rgt`` comment
are all it takes to make it resumable, preemptible and auditable (``rgt.start``: no ``with``
block, so the loop keeps its indentation); the script's own ``torch.save(..., out_dir/ckpt.pt)``
went, since rgt's checkpoint holds the same state. By hand: ``RGT_RUN_ID=try python train.py``;
as an experiment: ``rgt init --script train.py`` (README, "Use rgt in your own project").
"""

import argparse
import os
import time

import torch
from charlm.data import CharData
from charlm.model import CharMLP

import rgt  # rgt

parser = argparse.ArgumentParser(description="a character-level MLP language model")
parser.add_argument("--context", type=int, default=8)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--dropout", type=float, default=0.0)
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--max_iters", type=int, default=300)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--eval_interval", type=int, default=100)
parser.add_argument("--seed", type=int, default=1337)
parser.add_argument("--out_dir", default="out")
parser.add_argument("--sleep", type=float, default=0.0, help="seconds per step (drills)")
args = parser.parse_args()

os.makedirs(args.out_dir, exist_ok=True)
torch.manual_seed(args.seed)
data = CharData("data/input.txt", args.context)
model = CharMLP(data.vocab_size, args.context, args.hidden, args.dropout)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)


@torch.no_grad()
def estimate_loss(batches: int = 10) -> dict:
    model.eval()
    out = {split: torch.stack([model(*data.batch(split, args.batch_size))[1]
                               for _ in range(batches)]).mean().item()
           for split in ("train", "val")}
    model.train()
    return out


run = rgt.start(total_steps=args.max_iters)  # rgt
run.resume(model=model, optimizer=optimizer)  # rgt: the newest checkpoint, RNG included
iter_num = run.step  # rgt: 0 on a first launch (was: iter_num = 0)
t0 = time.time()
while iter_num < args.max_iters:
    if iter_num % args.eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    inputs, targets = data.batch("train", args.batch_size)
    logits, loss = model(inputs, targets)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    iter_num += 1
    time.sleep(args.sleep)
    run.log(iter_num, loss=loss.item())  # rgt
    if run.checkpoint_due(iter_num):  # rgt: its cadence, or SIGTERM/SIGUSR1 (then exit 75)
        run.save(iter_num, model=model, optimizer=optimizer)  # rgt
print(f"trained {iter_num} steps in {time.time() - t0:.1f} s")

model.eval()
with torch.no_grad():
    inputs, targets = data.every_window("val")
    nll = torch.nn.functional.cross_entropy(model(inputs)[0], targets, reduction="none")
    sample = data.decode(model.generate(inputs[0], 200))
with open(os.path.join(args.out_dir, "samples.txt"), "w") as handle:
    handle.write(sample + "\n")
print(f"val loss {nll.mean().item():.4f}; a sample in {args.out_dir}/samples.txt")
run.finish({"loss": {"value": nll.mean().item(), "split": "val", "direction": "lower"}},  # rgt
           per_sample={"val": {"nll": nll.numpy()}}, weights=model.state_dict())  # rgt
