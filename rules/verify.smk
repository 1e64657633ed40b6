# Audit every comparison of the plan: effect, noise, underpowered, confounded or suspect-bug.
rule verify:
    input:
        expand(rules.evaluate.output.results, run_id=[run.run_id for run in PLAN]),
    output:
        json=paths.VERIFY_JSON,
        md=paths.VERIFY_MD,
    log:
        "logs/verify.log",
    shell:
        "{RGT} verify --runs {RUNS} --only {PLANNED_IDS} --json {output.json} --md {output.md} "
        "> {log} 2>&1"
