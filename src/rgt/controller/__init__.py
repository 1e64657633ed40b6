"""``rgt run``: the Snakemake controller, in the foreground or detached from the terminal.

``record`` is the controller record under ``.rgt/controller/`` and whether its process still
runs; ``detach`` starts and stops a detached controller; ``supervise`` is the wrapper that runs
Snakemake inside the detached session and records its exit code; ``command`` is the verb.
See docs/controller.md.
"""
