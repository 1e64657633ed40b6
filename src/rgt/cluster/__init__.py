"""Running the training jobs on a cluster through Snakemake's official executor plugins.

- :mod:`rgt.cluster.resources`: the ``cluster:`` config block -> the train rule's resources
  (walltime, CPUs, memory, GPUs, Slurm partition/account, the ``--signal`` warning).
- :mod:`rgt.cluster.kubernetes`: the pieces of a training pod the project relies on (the
  durable checkpoint volume, the grace period, the preStop hook) and their checks;
  ``python -m rgt.cluster.kubernetes_command`` prints the policy that adds them.
- :mod:`rgt.cluster.prestop`: the preStop hook itself: SIGTERM the running trainings by PID and
  wait until their checkpoints are written.
"""
