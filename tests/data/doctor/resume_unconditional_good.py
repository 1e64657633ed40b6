import os

import torch


def restore(model, optimizer, path="checkpoints/last.pt"):
    start = 0
    if os.path.exists(path):  # every start resumes when a checkpoint is there
        state = torch.load(path, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"]
    return start
