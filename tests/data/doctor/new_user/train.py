"""My first classifier: a small MLP on random data, checkpointed every epoch."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()

dataset = TensorDataset(torch.randn(512, 20), torch.randint(0, 3, (512,)))
loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=2)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3), nn.Softmax(dim=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
start = 0
if args.resume:
    state = torch.load("checkpoint.pt")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    start = state["epoch"] + 1

losses = []
for epoch in range(start, args.epochs):
    for inputs, labels in loader:
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    print(f"epoch {epoch}: loss {sum(losses[-len(loader):]) / len(loader):.3f}")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, "checkpoint.pt")
