# evidence/EVIDENCE.json: one claim per delivered number, with its disclosures; the user's
# words for the claims (statements, aliases, tolerances) come from evidence/claims.yaml if present.
import os

CLAIMS = "evidence/claims.yaml"


rule evidence:
    input:
        aggregate=paths.AGGREGATE,
        verify=paths.VERIFY_JSON,
        figures=FIGURE_FILES,
        claims=lambda wildcards: [CLAIMS] if os.path.exists(CLAIMS) else [],
    output:
        paths.EVIDENCE,
    params:
        claims=lambda wildcards, input: f" --claims {input.claims}" if input.claims else "",
    log:
        "logs/evidence.log",
    shell:
        "{RGT} evidence --aggregate {input.aggregate} --verify {input.verify} "
        "--figures-dir figures --out {output}{params.claims} > {log} 2>&1"
