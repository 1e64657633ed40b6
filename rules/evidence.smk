# evidence/EVIDENCE.json: one claim per delivered number, with its disclosures.
rule evidence:
    input:
        aggregate=paths.AGGREGATE,
        verify=paths.VERIFY_JSON,
        figures=FIGURE_FILES,
    output:
        paths.EVIDENCE,
    log:
        "logs/evidence.log",
    shell:
        "{RGT} evidence --aggregate {input.aggregate} --verify {input.verify} "
        "--figures-dir figures --out {output} > {log} 2>&1"
