import argparse

import torch


def restore(model, optimizer):
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    start = 0
    if args.resume:  # doctor: resume-unconditional
        state = torch.load("checkpoints/last.pt", weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"]
    return start
