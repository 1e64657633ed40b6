"""The same loop resuming through run.resume() alone; pretrained weights may still be loaded."""
import torch

import rgt


def main(model, optimizer, batches, args):
    model.load_state_dict(torch.load(args.pretrained, weights_only=True))  # not a resume
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
