"""A loop that prefetches the next step's batch (as nanoGPT's train.py does) and checkpoints
without it."""
import torch

import rgt


def main(model, optimizer, get_batch, steps):
    with rgt.run() as run:
        run.resume(model=model, optimizer=optimizer)
        step = run.step
        inputs, labels = get_batch("train")  # doctor: state-not-in-checkpoint
        while step < steps:
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            inputs, labels = get_batch("train")  # the next step's batch, while this one runs
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            run.log(step, loss=loss.item())
            if run.checkpoint_due(step):
                run.save(step, model=model, optimizer=optimizer)
        run.finish({"loss": {"value": loss.item(), "split": "val", "direction": "lower"}})
