from torch import optim


def train(model, loader, loss_fn, epochs):
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=10)
    for _ in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss_fn(model(inputs), labels).backward()
            optimizer.step()
        scheduler.step()
