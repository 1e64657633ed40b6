import torch


def train(model, loader, loss_fn, accumulate=4):
    optimizer = torch.optim.Adam(model.parameters())
    for index, (inputs, labels) in enumerate(loader):
        loss = loss_fn(model(inputs), labels) / accumulate
        loss.backward()
        if (index + 1) % accumulate == 0:
            optimizer.step()
            optimizer.zero_grad()
