# Audit every comparison of the plan: effect, noise, underpowered, confounded or suspect-bug.
# The smoke records carry the run-time probe results (no-grad-params, optimizer-coverage).
import os

SMOKE_RECORDS = sorted({paths.smoke_record(run.smoke_id) for run in PLAN})


rule verify:
    input:
        results=expand(rules.evaluate.output.results, run_id=[run.run_id for run in PLAN]),
        smoke=SMOKE_RECORDS,
    output:
        json=paths.VERIFY_JSON,
        md=paths.VERIFY_MD,
    params:
        smoke_dir=lambda wildcards, input: (
            os.path.dirname(input.smoke[0]) if input.smoke else "smoke"
        ),
    log:
        "logs/verify.log",
    shell:
        "{RGT} verify --runs {RUNS} --only {PLANNED_IDS} --smoke-dir {params.smoke_dir} "
        "--json {output.json} --md {output.md} > {log} 2>&1"
