"""A loop brought to rgt that still writes its own checkpoint beside run.save."""
import os

import torch

import rgt


def main(model, optimizer, batches, out_dir):
    with rgt.run() as run:
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
                state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
                path = os.path.join(out_dir, "ckpt.pt")
                torch.save(state, path + ".tmp")  # doctor: own-checkpoint-beside-rgt
                os.replace(path + ".tmp", path)
        run.finish({"loss": {"value": loss.item(), "split": "val", "direction": "lower"}})
