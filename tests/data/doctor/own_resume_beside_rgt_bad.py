"""A loop brought to rgt that still resumes from its own file (restoring no RNG)."""
import os

import torch

import rgt


def main(model, optimizer, batches, args):
    with rgt.run() as run:
        if os.path.exists(args.ckpt):
            checkpoint = torch.load(args.ckpt, weights_only=True)  # doctor: own-resume-beside-rgt
            model.load_state_dict(checkpoint["model"])
            optimizer.load_state_dict(checkpoint["optimizer"])
        run.resume(model=model, optimizer=optimizer)
        step = run.step
        for inputs, labels in batches:
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            run.log(step, loss=loss.item())
            if run.checkpoint_due(step):
                run.save(step, model=model, optimizer=optimizer)
        run.finish({"loss": {"value": loss.item(), "split": "val", "direction": "lower"}})
