"""remote-gpu-trainer: RUN -> VERIFY -> DELIVER for deep-learning experiments."""

__version__ = "0.1.0"
