import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Jitter(Dataset):
    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        shift = np.random.randint(0, 4)
        return torch.roll(self.images[index], shift)


def loader(images):
    return DataLoader(Jitter(images), batch_size=32, num_workers=4)  # doctor: worker-seeding
