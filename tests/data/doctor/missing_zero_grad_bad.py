import torch


def train(model, loader, loss_fn, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    optimizer.zero_grad()
    for _ in range(epochs):
        for inputs, labels in loader:
            loss = loss_fn(model(inputs), labels)
            loss.backward()  # doctor: missing-zero-grad
            optimizer.step()
