# evidence/EVIDENCE.json: one claim per delivered number, with its disclosures; the user's
# words for the claims (statements, aliases, tolerances) come from evidence/claims.yaml if
# present (copied into WORK, where the evidence is built with dvc.yaml's arguments).
CLAIMS = "evidence/claims.yaml"


rule claims:
    input:
        CLAIMS,
    output:
        work(CLAIMS),
    log:
        "logs/deliver/claims.log",
    shell:
        "cp {input} {output} 2> {log}"


rule evidence:
    input:
        aggregate=work(paths.AGGREGATE),
        verify=work(paths.VERIFY_JSON),
        figures=[work(path) for path in FIGURE_FILES],
        claims=lambda wildcards: [work(CLAIMS)] if os.path.exists(CLAIMS) else [],
    output:
        work(paths.EVIDENCE),
    params:
        claims=lambda wildcards, input: f" --claims {CLAIMS}" if input.claims else "",
    log:
        "logs/evidence.log",
    conda:
        CONDA_ENV
    shell:
        "cd {WORK} && {RGT} evidence --aggregate evidence/results.json "
        "--verify verify/report.json --figures-dir figures --out evidence/EVIDENCE.json"
        "{params.claims} > {UP}/{log} 2>&1"


# The last step: the complete delivery, copied into place file by file (atomically; identical
# files untouched). Until it runs, the committed delivery files are never touched.
DELIVERED = [
    paths.AGGREGATE,
    paths.VERIFY_JSON,
    paths.VERIFY_MD,
    *sorted({f"{os.path.dirname(path)}/source_data.csv" for path in FIGURE_FILES}),
    *FIGURE_FILES,
    paths.EVIDENCE,
    paths.METRICS_DIR,
]


rule promote:
    input:
        [work(path) for path in DELIVERED],
    output:
        paths.DELIVERY_PROMOTED,
    params:
        paths=DELIVERED,
        plots=lambda wildcards: "verify/plots" if os.path.isdir(work("verify/plots")) else "",
    log:
        "logs/deliver/promote.log",
    conda:
        CONDA_ENV
    shell:
        "{RGT} promote {params.paths} {params.plots} --manifest {output} > {log} 2>&1"
