import os
import signal

import torch

STOP = []
signal.signal(signal.SIGTERM, lambda signum, frame: STOP.append(signum))


def train(model, optimizer, batches, loss_fn, steps, path="last.pt"):
    step = 0
    if os.path.exists(path):
        state = torch.load(path, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
    while step < steps:
        optimizer.zero_grad()
        loss_fn(model(batches[step]), step).backward()
        optimizer.step()
        step += 1
        if step % 100 == 0 or STOP:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
            torch.save(state, f"{path}.tmp")  # doctor: rng-in-checkpoint
            os.replace(f"{path}.tmp", path)
        if STOP:
            raise SystemExit(75)
