"""remote-gpu-trainer: RUN -> VERIFY -> DELIVER for deep-learning experiments.

For your own training loop: ``with rgt.run() as run: ...``, or ``run = rgt.start()`` for a loop
at a script's module level (``rgt.train.plain_loop``). A project's Snakefile brings in rgt's
workflow with ``include: rgt.workflow()``.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    # `import rgt` stays light (the CLI imports it): torch loads with the plain-loop API only.
    if name in ("run", "start"):
        from rgt.train import plain_loop

        return getattr(plain_loop, name)
    if name == "epoch_order":
        from rgt.train.determinism import epoch_order

        return epoch_order
    raise AttributeError(f"module 'rgt' has no attribute {name!r}")


def workflow() -> str:
    """The path of rgt's Snakefile in the installed package, for ``include:`` in a project's
    own Snakefile (``rgt init`` writes one)."""
    from rgt.base.shipped import workflow_snakefile

    return workflow_snakefile()
