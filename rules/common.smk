# Config load and validation (once, here), the run plan, and the paths every rule shares.
import sys

from rgt.deliver.registry import figure_files
from rgt.plan import paths, runplan, snakefile

CONFIG_FILE = config.get("config_file", "config/config.yaml")
CFG = snakefile.load_or_exit(CONFIG_FILE, extra_keys=set(config) - {"config_file"})
PLAN = runplan.plan_runs(CFG)
PLANNED_IDS = " ".join(run.run_id for run in PLAN)
RUNS, CHECKPOINTS = CFG.paths.runs, CFG.paths.checkpoints
# Your own training command (defaults.job) seals its results itself: no evaluate step.
JOBS = CFG.defaults.job is not None
RESULTS = f"{RUNS}/{{run_id}}/results.json"
RGT = f"{sys.executable} -m rgt"
VERIFY_REPORT = paths.VERIFY_JSON
FIGURE_FILES = figure_files(CFG)
EVIDENCE = paths.EVIDENCE


wildcard_constraints:
    run_id="[0-9a-f]{16}",
    smoke_id="[0-9a-f]{16}",
    fig="[a-z0-9_]+",
