# results.json -> evidence/results.json -> figures/<fig>/source_data.csv -> figure + provenance,
# built in WORK (.rgt/delivery/, the project's layout). source-data, figure and evidence run
# inside WORK with the very arguments of dvc.yaml's stages, so both write the same bytes.
# The aggregate also keeps what the config's curve figures draw from each run's train.csv.
rule aggregate:
    input:
        expand(RESULTS, run_id=[run.run_id for run in PLAN]),
        plan=PLAN_STAMP,  # a changed plan re-delivers
        config=CONFIG_FILE,
    output:
        work(paths.AGGREGATE),
    log:
        "logs/deliver/aggregate.log",
    conda:
        CONDA_ENV
    shell:
        "{RGT} aggregate --runs {RUNS} --only {PLANNED_IDS} --config {input.config} "
        "--out {output} > {log} 2>&1"


# The figures are drawn as the config (config/config.yaml or --configfile) declares them; a copy
# at config/config.yaml inside WORK lets the commands be dvc.yaml's, word for word.
rule figure_config:
    input:
        CONFIG_FILE,
    output:
        work("config/config.yaml"),
    log:
        "logs/deliver/figure_config.log",
    shell:
        "cp {input} {output} 2> {log}"


rule source_data:
    input:
        work(paths.AGGREGATE),
        work("config/config.yaml"),
    output:
        work("figures/{fig}/source_data.csv"),
    log:
        "logs/deliver/{fig}.source_data.log",
    conda:
        CONDA_ENV
    shell:
        "cd {WORK} && {RGT} source-data --aggregate evidence/results.json --fig {wildcards.fig} "
        "--config config/config.yaml --out figures/{wildcards.fig}/source_data.csv > {UP}/{log} 2>&1"


rule figure:
    input:
        source=rules.source_data.output,
        aggregate=work(paths.AGGREGATE),
        verify=work(paths.VERIFY_JSON),
        config=work("config/config.yaml"),
    output:
        png=work("figures/{fig}/figure.png"),
        pdf=work("figures/{fig}/figure.pdf"),
        provenance=work("figures/{fig}/provenance.json"),
    log:
        "logs/deliver/{fig}.figure.log",
    conda:
        CONDA_ENV
    shell:
        "cd {WORK} && {RGT} figure --fig {wildcards.fig} --config config/config.yaml "
        "--source figures/{wildcards.fig}/source_data.csv --verify verify/report.json "
        "--aggregate evidence/results.json --out-dir figures/{wildcards.fig} > {UP}/{log} 2>&1"


# evidence/metrics/<exp>/<variant>.json: rounded means and spreads, for `dvc metrics show`.
rule metrics:
    input:
        work(paths.AGGREGATE),
    output:
        directory(work(paths.METRICS_DIR)),
    log:
        "logs/deliver/metrics.log",
    conda:
        CONDA_ENV
    shell:
        "cd {WORK} && {RGT} metrics --aggregate evidence/results.json "
        "--out-dir evidence/metrics > {UP}/{log} 2>&1"
