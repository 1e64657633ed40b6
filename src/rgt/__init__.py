"""remote-gpu-trainer: RUN -> VERIFY -> DELIVER for deep-learning experiments.

For your own training loop: ``with rgt.run() as run: ...`` (``rgt.train.plain_loop``).
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    # `import rgt` stays light (the CLI imports it): torch loads with the plain-loop API only.
    if name == "run":
        from rgt.train.plain_loop import run

        return run
    if name == "epoch_order":
        from rgt.train.determinism import epoch_order

        return epoch_order
    raise AttributeError(f"module 'rgt' has no attribute {name!r}")
