import torch


def save_checkpoint(model, optimizer, step, path):
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    torch.save(state, path)  # doctor: atomic-save
