import torch


def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for inputs, labels in loader:  # doctor: eval-mode
            correct += (model(inputs).argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)
