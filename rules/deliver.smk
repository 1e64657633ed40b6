# results.json -> evidence/results.json -> figures/<fig>/source_data.csv -> figure + provenance.
rule aggregate:
    input:
        expand(RESULTS, run_id=[run.run_id for run in PLAN]),
    output:
        paths.AGGREGATE,
    log:
        "logs/deliver/aggregate.log",
    shell:
        "{RGT} aggregate --runs {RUNS} --only {PLANNED_IDS} --out {output} > {log} 2>&1"


rule source_data:
    input:
        paths.AGGREGATE,
    output:
        "figures/{fig}/source_data.csv",
    log:
        "logs/deliver/{fig}.source_data.log",
    shell:
        "{RGT} source-data --aggregate {input} --fig {wildcards.fig} --config {CONFIG_FILE} "
        "--out {output} > {log} 2>&1"


rule figure:
    input:
        source=rules.source_data.output,
        aggregate=paths.AGGREGATE,
        verify=paths.VERIFY_JSON,
    output:
        png="figures/{fig}/figure.png",
        pdf="figures/{fig}/figure.pdf",
        provenance="figures/{fig}/provenance.json",
    log:
        "logs/deliver/{fig}.figure.log",
    shell:
        "{RGT} figure --fig {wildcards.fig} --config {CONFIG_FILE} --source {input.source} "
        "--verify {input.verify} "
        "--aggregate {input.aggregate} --out-dir figures/{wildcards.fig} > {log} 2>&1"
