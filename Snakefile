"""remote-gpu-trainer: RUN -> VERIFY -> DELIVER, one stage per rule file, in order.

    snakemake --profile local                          # the bundled CPU example
    snakemake --profile local --configfile my.yaml     # another experiment (the Snakemake way)
    snakemake --profile local --config config_file=my.yaml   # the same
"""

from snakemake.utils import min_version

min_version("9.19")


include: "rules/common.smk"


# For `--software-deployment-method apptainer`: the image built from envs/Dockerfile.
container: CONTAINER


# Everything but training is cheap and stays on this machine, whatever the executor (and
# `evaluate`, the built-in trainer's: rules/evaluate.smk).
localrules:
    all,
    smoke,
    verify,
    aggregate,
    figure_config,
    source_data,
    figure,
    metrics,
    claims,
    evidence,
    promote,


include: "rules/smoke.smk"  # CPU smoke gate: a broken model or config fails here, fast
include: "rules/train.smk"  # train/resume each run; checkpoints are never outputs
include: "rules/evaluate.smk"  # val/test metrics + per-sample predictions
include: "rules/verify.smk"  # effect, noise, underpowered, confounded or suspect-bug?
include: "rules/deliver.smk"  # results -> source data -> figures with provenance
include: "rules/evidence.smk"  # claims <-> evidence, then the delivery put in place


# The delivery files (verify/report.json, evidence/, figures/) are put in place by `promote`.
rule all:
    input:
        paths.DELIVERY_PROMOTED,
