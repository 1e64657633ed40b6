import torch


def train(model, optimizer, loader, val_batch, loss_fn):
    losses, val_losses = [], []
    for inputs, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        with torch.no_grad():
            val_loss = loss_fn(model(val_batch[0]), val_batch[1])
            val_losses.append(val_loss)
    return losses, val_losses
