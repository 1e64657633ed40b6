# Score a sealed run's selected weights on val and test (your own job reports its own).
if not JOBS:

    localrules:
        evaluate,

    # ancient: a sealed run's files never change, whatever their times say (a DVC checkout
    # or a pull writes them in any order), so existing results are never recomputed.
    rule evaluate:
        input:
            ancient(rules.train.output.run),
            ancient(rules.train.output.model),
        output:
            results=f"{RUNS}/{{run_id}}/results.json",
            predictions=f"{RUNS}/{{run_id}}/predictions.parquet",
        log:
            "logs/evaluate/{run_id}.log",
        conda:
            CONDA_ENV
        shell:
            "{RGT} evaluate {RUNS}/{wildcards.run_id} > {log} 2>&1"
