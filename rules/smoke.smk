# The CPU smoke gate: two optimizer steps per variant before any training job starts.
rule smoke:
    output:
        "smoke/{smoke_id}.json",
    log:
        "logs/smoke/{smoke_id}.log",
    conda:
        CONDA_ENV
    shell:
        "{RGT} smoke --config {CONFIG_FILE} --smoke-id {wildcards.smoke_id} --out {output} "
        "> {log} 2>&1"
