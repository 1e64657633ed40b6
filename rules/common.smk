# Config load and validation (once, here), the run plan, and the paths every rule shares.
# The config: config/config.yaml, or `--configfile FILE` (the Snakemake way), or the project's
# own `--config config_file=FILE` (rgt.plan.snakefile.config_source).
import os
import sys

from rgt.deliver import staging
from rgt.deliver.registry import figure_files
from rgt.plan import paths, runplan, sealed, snakefile
from rgt.verify.settings import settings_from_config

CONFIG_FILE, CFG = snakefile.load_or_exit(
    workflow.overwrite_configfiles, workflow.config_settings.config
)
PLAN = runplan.plan_runs(CFG)
PLANNED_IDS = " ".join(run.run_id for run in PLAN)
RUNS, CHECKPOINTS = CFG.paths.runs, CFG.paths.checkpoints
# Your own training command (defaults.job) seals its results itself: no evaluate step.
JOBS = CFG.defaults.job is not None
RESULTS = f"{RUNS}/{{run_id}}/results.json"
# A sealed run is final (trained here, pulled from a host or brought from the DVC remote): the
# train rule makes only the planned runs not sealed yet, so no job ever deletes or retrains one.
TO_TRAIN = sealed.training_pattern(
    [run.run_id for run in PLAN], RUNS, sealed.JOB_FILES if JOBS else sealed.BUILT_IN_FILES
)
# Deploying the software with Snakemake (`--software-deployment-method conda` or `apptainer`,
# envs/README.md): each rule runs in envs/conda.yaml or the image of envs/Dockerfile (build it,
# name it in RGT_CONTAINER), and `python -m rgt` there runs this project's own code. Otherwise
# the jobs run with this interpreter (the project's venv).
# (relative to rules/; none in a copy of the workflow without envs/)
CONDA_ENV = "../envs/conda.yaml" if os.path.exists("envs/conda.yaml") else None
CONTAINER = os.environ.get("RGT_CONTAINER", "docker://rgt-train:latest")
if workflow.deployment_settings.deployment_method:
    RGT = f"PYTHONPATH={os.path.abspath('src')} python -m rgt"
else:
    RGT = f"{sys.executable} -m rgt"
FIGURE_FILES = snakefile.or_exit(figure_files, CFG)  # a bad figure: its message, no traceback
# Delivery is built in WORK and put in place by the last rule; PLAN_STAMP is dated now only
# when what WORK holds is another plan's delivery (rgt.deliver.staging).
WORK = paths.DELIVERY_WORK
UP = os.path.relpath(".", WORK)  # back to the project from WORK (logs stay in logs/)
work = paths.work_path
PLAN_STAMP = paths.DELIVERY_PLAN
staging.stamp_plan(
    [RESULTS.format(run_id=run.run_id) for run in PLAN],
    settings_from_config(CFG.verify).to_dict(),
)
staging.forget_promotion_if_disturbed()


wildcard_constraints:
    run_id="[0-9a-f]{16}",
    smoke_id="[0-9a-f]{16}",
    fig="[a-z0-9_]+",
