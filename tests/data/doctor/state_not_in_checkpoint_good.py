"""The same prefetching loop with the prefetched batch in its checkpoint."""
import torch

import rgt


def main(model, optimizer, get_batch, steps):
    with rgt.run() as run:
        state = run.resume(model=model, optimizer=optimizer)
        step = run.step
        inputs, labels = (state["inputs"], state["labels"]) if state else get_batch("train")
        while step < steps:
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            inputs, labels = get_batch("train")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            run.log(step, loss=loss.item())
            if run.checkpoint_due(step):
                run.save(step, {"inputs": inputs, "labels": labels}, model=model,
                         optimizer=optimizer)
        run.finish({"loss": {"value": loss.item(), "split": "val", "direction": "lower"}})
