import os

import torch


def save_checkpoint(model, optimizer, step, path):
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    temp = f"{path}.tmp"
    with open(temp, "wb") as handle:
        torch.save(state, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
