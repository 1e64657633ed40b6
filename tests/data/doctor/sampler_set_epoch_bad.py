from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def train(model, dataset, optimizer, epochs):
    sampler = DistributedSampler(dataset)  # doctor: sampler-set-epoch
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for _ in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            model(inputs, labels).backward()
            optimizer.step()
