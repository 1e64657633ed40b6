# Audit every comparison of the plan: effect, noise, underpowered, confounded or suspect-bug.
# The smoke records carry the run-time probe results (no-grad-params, optimizer-coverage).
import os

from rgt.verify.summary import report_lines

SMOKE_RECORDS = sorted({paths.smoke_record(run.smoke_id) for run in PLAN})


rule verify:
    input:
        results=expand(RESULTS, run_id=[run.run_id for run in PLAN]),
        smoke=SMOKE_RECORDS,
        plan=PLAN_STAMP,  # a changed plan or verify section re-runs the audit
    output:
        json=work(paths.VERIFY_JSON),
        md=work(paths.VERIFY_MD),
    params:
        smoke_dir=lambda wildcards, input: (
            os.path.dirname(input.smoke[0]) if input.smoke else "smoke"
        ),
    log:
        "logs/verify.log",
    conda:
        CONDA_ENV
    shell:
        "{RGT} verify --config {CONFIG_FILE} --runs {RUNS} --only {PLANNED_IDS} "
        "--smoke-dir {params.smoke_dir} "
        "--json {output.json} --md {output.md} > {log} 2>&1"


# The answer where people look: one line per comparison at the end of every successful run.
onsuccess:
    for line in report_lines(paths.VERIFY_JSON):
        print(line)
