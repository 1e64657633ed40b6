#!/bin/sh
# Rebuild this figure from the aggregated results, without training (the venv active, from the
# repository root). The same two commands as the Snakemake rules `source_data` and `figure` and
# the DVC stages `source_data@test_accuracy` and `figure@test_accuracy`; `dvc repro` runs them
# only when an input changed.
set -eu
python -m rgt source-data --aggregate evidence/results.json --fig test_accuracy \
    --config config/config.yaml --out figures/test_accuracy/source_data.csv
python -m rgt figure --fig test_accuracy --config config/config.yaml \
    --source figures/test_accuracy/source_data.csv --verify verify/report.json \
    --aggregate evidence/results.json --out-dir figures/test_accuracy
