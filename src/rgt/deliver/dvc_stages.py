"""``dvc.yaml`` written from the config: the DVC view of a project's delivery.

Each stage runs, word for word, the ``rgt`` command of the Snakemake rule of the same name
(rules/deliver.smk, rules/evidence.smk), once per figure the config declares. The file is
generated rather than hand-kept because a figure added to the config and forgotten in
``dvc.yaml`` would silently never be rebuilt by ``dvc repro``; ``rgt dvc-yaml --check`` says when
the committed file no longer follows the config.
"""

from __future__ import annotations

import textwrap

from rgt.config import Config
from rgt.deliver.registry import figure_specs
from rgt.deliver.spec import FigureSpec

# The file's opening comment, one paragraph per item (wrapped to the page).
HEADER = (
    "DVC view of {what}evidence/results.json (pinned by content hash in dvc.lock) -> "
    "figures/<fig>/source_data.csv -> figure + provenance -> evidence/EVIDENCE.json. "
    "`{repro}` rebuilds every figure and the evidence without training{share}.",
    "Each cmd is, word for word, the `rgt` command the Snakemake rule of the same name runs, so "
    "both write the same bytes; activate the venv first: `. .venv/bin/activate`.",
    "Written from the config's figures by `rgt dvc-yaml --config {config}`: run it again after "
    "changing them (`rgt dvc-yaml --check` says whether this file still follows the config).",
)
# The built-in trainer's data is rgt's to export; a training job's declared data lives in the
# project already (and is hashed into its run ids).
BUILTIN = {"what": "the data and of the delivery stages: the data every planned run trains on "
                   "(data/, pushed to the DVC remote with the sealed runs of runs.dvc); ",
           "repro": "dvc pull && dvc repro", "share": " (`make repro`; README \"Share results\")"}
JOB = {"what": "the delivery stages: ", "repro": "dvc repro", "share": ""}

DATA_STAGE = """\
  # The data and splits of the config's runs, as files DVC versions and pushes, with their
  # sha256 pins (evidence/data.json); Snakemake's runs hash the same data themselves.
  data:
    cmd: >-
      python -m rgt data-pin --config {config} --out evidence/data.json --export data
    deps:
      - {config}
    outs:
      - evidence/data.json:
          cache: false
      - data
"""

DELIVERY_STAGES = """\
  source_data:
    foreach: ${{figures}}
    do:
      cmd: >-
        python -m rgt source-data --aggregate evidence/results.json --fig ${{item}}
        --config {config} --out figures/${{item}}/source_data.csv
      deps:
        - evidence/results.json
      outs:
        - figures/${{item}}/source_data.csv:
            cache: false
  figure:
    foreach: ${{figures}}
    do:
      cmd: >-
        python -m rgt figure --fig ${{item}} --config {config}
        --source figures/${{item}}/source_data.csv --verify verify/report.json
        --aggregate evidence/results.json --out-dir figures/${{item}}
      deps:
        - figures/${{item}}/source_data.csv
        - evidence/results.json
        - verify/report.json
      outs:
        - figures/${{item}}/figure.png:
            cache: false
        - figures/${{item}}/figure.pdf:
            cache: false
        - figures/${{item}}/provenance.json:
            cache: false
  metrics:
    cmd: >-
      python -m rgt metrics --aggregate evidence/results.json --out-dir evidence/metrics
    deps:
      - evidence/results.json
    outs:
      - evidence/metrics:
          cache: false
  evidence:
    cmd: >-
      python -m rgt evidence --aggregate evidence/results.json --verify verify/report.json
      --figures-dir figures --out evidence/EVIDENCE.json{claims_option}
    deps:
      - evidence/results.json
      - verify/report.json
{claims_dep}{figure_deps}
    outs:
      - evidence/EVIDENCE.json:
          cache: false

params:
  - {config}

# One file per variant (rounded means and seed spreads): `dvc metrics show` prints a table.
metrics:
  - evidence/metrics

plots:
{plots}"""

# What `dvc plots show` draws from a figure's source data, by figure kind.
CLAIMS = "evidence/claims.yaml"
PLOT_AXES = {"bar": ("variant", "per run"), "curve": ("step", "per step and run")}


def dvc_yaml(config: Config, config_path: str = "config/config.yaml",
             claims: bool = False) -> str:
    """The text of ``dvc.yaml`` for ``config`` (read from ``config_path``, relative to the
    project): the data stage for the built-in trainer, and the delivery stages of the config's
    figures; ``claims``: the project words its claims in ``evidence/claims.yaml``."""
    specs = figure_specs(config)
    builtin = config.defaults.job is None
    words = {"config": config_path, **(BUILTIN if builtin else JOB)}
    text = "".join(textwrap.fill(item.format(**words), 96, initial_indent="# ",
                                 subsequent_indent="# ", break_on_hyphens=False) + "\n"
                   for item in HEADER)
    text += f"vars:\n  - figures: [{', '.join(specs)}]\n\nstages:\n"
    if builtin:
        text += DATA_STAGE.format(config=config_path)
    return text + DELIVERY_STAGES.format(
        config=config_path, plots="".join(_plot(spec) for spec in specs.values()),
        claims_option=f" --claims {CLAIMS}" if claims else "",
        claims_dep=f"      - {CLAIMS}\n" if claims else "",
        figure_deps="\n".join(f"      - figures/{fig}/figure.png" for fig in specs))


def _plot(spec: FigureSpec) -> str:
    x, per = PLOT_AXES[spec.kind]
    label = f"{spec.split} {spec.metric}".strip()
    return (f"  - figures/{spec.fig_id}/source_data.csv:\n      x: {x}\n      y: value\n"
            f"      template: scatter\n      title: {label} {per} (source data)\n"
            f"  - figures/{spec.fig_id}/figure.png\n")
