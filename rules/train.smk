from rgt.cluster.resources import train_resources


# Train (or resume) one run — with the built-in trainer, or your own command (defaults.job).
# Checkpoints live in CHECKPOINTS/<run-id>/, a params path: Snakemake deletes the outputs of
# failed and re-run jobs, so they must never be outputs. Only runs not sealed yet (TO_TRAIN).
# --attach: a trainer a killed Snakemake left running is followed, never doubled.
rule train:
    wildcard_constraints:
        run_id=TO_TRAIN,
    input:
        ancient(lambda wc: runplan.smoke_path(PLAN, wc.run_id)),
    output:
        **runplan.train_outputs(RUNS, JOBS),
    params:
        checkpoints=lambda wc: f"{CHECKPOINTS}/{wc.run_id}",
        config=CONFIG_FILE,
    # Walltime, CPUs, memory, GPUs, partition/account and the pre-kill signal, from the
    # config's `cluster:` block (used by --profile slurm / kubernetes, ignored locally).
    resources:
        train_slots=1,
        **train_resources(CFG),
    conda:
        CONDA_ENV
    shell:
        "{RGT} train --config {CONFIG_FILE} --run-id {wildcards.run_id} --attach"
