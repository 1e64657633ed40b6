import torch


def restore(model, path):
    state = torch.load(path, map_location="cpu")  # doctor: torch-load-weights-only
    model.load_state_dict(state["model"])
