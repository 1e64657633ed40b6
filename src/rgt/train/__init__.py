"""The training contract, usable from a user's own training script too.

- ``CheckpointStore``: atomic full-state checkpoints, newest complete one loaded at start.
- ``preemption_flag``: SIGTERM/SIGUSR1 set a flag; checkpoint at the next step boundary and
  exit with ``EXIT_PREEMPTED``.
- ``capture_rng`` / ``restore_rng`` / ``seed_everything``: bit-identical resume.
- ``Cadence``: Young/Daly checkpoint interval from the measured save cost and the MTBF.

Submodules import torch; import what you need from them directly.
"""
