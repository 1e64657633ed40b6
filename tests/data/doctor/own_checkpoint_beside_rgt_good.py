"""The same loop with rgt's checkpoint alone (it holds the model, the optimizer and the RNG)."""
import torch

import rgt


def main(model, optimizer, batches):
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
        run.finish({"loss": {"value": loss.item(), "split": "val", "direction": "lower"}})
