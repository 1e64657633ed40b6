"""remote-gpu-trainer: RUN -> VERIFY -> DELIVER, one stage per rule file, in order.

    snakemake --profile local                      # the bundled CPU example
    snakemake --profile local --config config_file=my.yaml
"""

from snakemake.utils import min_version

min_version("9.19")


include: "rules/common.smk"


# Everything but training is cheap and stays on this machine, whatever the executor.
localrules:
    all,
    smoke,
    evaluate,
    verify,
    aggregate,
    source_data,
    figure,
    evidence,


include: "rules/smoke.smk"  # CPU smoke gate: a broken model or config fails here, fast
include: "rules/train.smk"  # train/resume each run; checkpoints are never outputs
include: "rules/evaluate.smk"  # val/test metrics + per-sample predictions
include: "rules/verify.smk"  # effect, noise, underpowered, confounded or suspect-bug?
include: "rules/deliver.smk"  # results -> source data -> figures with provenance
include: "rules/evidence.smk"  # claims <-> evidence


rule all:
    input:
        VERIFY_REPORT,
        FIGURE_FILES,
        EVIDENCE,
