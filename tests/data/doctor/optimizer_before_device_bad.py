import torch
from torch import nn


def build(device):
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)  # doctor: optimizer-before-device
    model.to(device)
    return model, optimizer
