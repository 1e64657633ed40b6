# Two commands do all the set-up on a fresh clone:
#   make run    create the venv, install rgt and the profiles, bring the shared runs
#               (rgt restore), run `snakemake --profile local`
#   make test   the same with the dev extra (test tools, the adapters' frameworks), then the tests
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PROFILES_HOME := $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/snakemake
PROFILES := $(notdir $(patsubst %/,%,$(wildcard profiles/*/)))
# torch is pinned to the CPU build for local work; on a rented GPU the image's torch is used.
TORCH ?= torch==2.13.0

.PHONY: run test setup setup-run profiles lint clean-runs bench repro share lock

# The pipeline builds its delivery in .rgt/delivery/ and puts it in place at the end, so a fresh
# clone (no .rgt/) delivers, and a second run does nothing. The sealed runs shared in the DVC
# remote (runs.dvc) are brought first and reused, never retrained: another machine's CPU gives
# other float rounding, so retraining them would rewrite the committed delivery's numbers.
PIPELINE := snakemake --profile local
RESTORE := $(PY) -m rgt restore --quiet

# `make run EXAMPLE=wlm` runs the example project examples/wlm/ instead (its own config, runs
# and deliverables in that folder); the bundled digits example is the default. An example built
# on a framework also installs rgt's extra for it, from its lock (envs/<extra>.txt).
EXAMPLE ?=
EXTRA_lit := lightning
EXTRA := $(EXTRA_$(EXAMPLE))
run: setup-run $(if $(EXTRA),$(VENV)/.installed-$(EXTRA))
	. $(VENV)/bin/activate && $(RESTORE) $(if $(EXAMPLE),--directory examples/$(EXAMPLE)) \
	  && $(PIPELINE) $(if $(EXAMPLE),--snakefile Snakefile --directory examples/$(EXAMPLE))

test: setup
	$(PY) -m pytest -q

# `setup` (what `make test`, `make lint` and CI use) installs the dev extra; `setup-run` (what
# `make run` uses) installs rgt alone, without the test tools and the adapters' frameworks.
setup: $(VENV)/.installed profiles

setup-run: $(VENV)/.installed-run profiles

# pip's own lines show the progress (one per package); only the noise is filtered out.
PIP := $(PY) -m pip install --disable-pip-version-check --progress-bar off
QUIET := grep -v -E "is ignored|^Requirement already satisfied|^Using cached|^  (Obtaining|Preparing|Building|Created|Stored|Getting|Installing build)"

$(VENV)/.torch:
	@echo "set-up 1/2: a venv in $(VENV) and $(TORCH) (CPU build, ~200 MB)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) $(TORCH) 2>&1 | $(QUIET) || true
	$(PY) -c "import torch" && touch $@

# Everything but torch comes from a pinned, hashed lock (envs/, made by `make lock`): --no-deps,
# so nothing is resolved at install time and no requirement can replace the CPU build of torch.
$(VENV)/.installed-run: pyproject.toml envs/local.txt | $(VENV)/.torch
	@echo "set-up 2/2: rgt and its pinned dependencies (envs/local.txt)"
	$(PIP) --require-hashes --no-deps -r envs/local.txt 2>&1 | $(QUIET) || true
	$(PIP) --no-deps -e . 2>&1 | $(QUIET) || true
	$(PY) -c "import rgt, torch, snakemake" && touch $@

$(VENV)/.installed: pyproject.toml envs/dev.txt | $(VENV)/.torch
	@echo "set-up 2/2: rgt, its pinned dependencies and the dev extra (envs/dev.txt)"
	$(PIP) --require-hashes --no-deps -r envs/dev.txt 2>&1 | $(QUIET) || true
	$(PIP) --no-deps -e . 2>&1 | $(QUIET) || true
	$(PY) -c "import rgt, torch, snakemake, lightning, transformers" && touch $@ $@-run $@-lightning

# rgt's lightning extra for `make run EXAMPLE=lit`: the run lock plus Lightning's packages.
$(VENV)/.installed-lightning: envs/lightning.txt | $(VENV)/.installed-run
	@echo "set-up: the lightning extra (envs/lightning.txt)"
	$(PIP) --require-hashes --no-deps -r envs/lightning.txt 2>&1 | $(QUIET) || true
	$(PY) -c "import lightning" && touch $@

# The locks of envs/ (README there): after changing a dependency in pyproject.toml.
UV := uv==0.13.9
LOCK := $(VENV)/bin/uv pip compile --universal --generate-hashes --override envs/no-torch.txt --quiet
lock: | $(VENV)/.torch
	$(PIP) -q $(UV)
	$(LOCK) pyproject.toml envs/torch-deps.in --python-version 3.11 -o envs/local.txt
	$(LOCK) pyproject.toml envs/torch-deps.in --extra lightning --python-version 3.11 -o envs/lightning.txt
	$(LOCK) pyproject.toml envs/torch-deps.in --extra dev --python-version 3.11 -o envs/dev.txt
	$(LOCK) pyproject.toml --python-version 3.11 -o envs/cluster.txt
	$(LOCK) envs/host.in --python-version 3.10 -o envs/host.txt

# Snakemake looks for `--profile NAME` in ~/.config/snakemake/NAME, not in ./profiles. A profile
# of yours with the same name is never replaced (`--profile profiles/NAME` needs no install).
profiles:
	@$(PYTHON) profiles/install.py $(PROFILES_HOME) $(PROFILES)

# Reproduce the committed evidence, without training: the committed tree is rebuilt in a scratch
# checkout (.rgt/repro/: every stage of `dvc repro`) and every number compared with the committed
# evidence/EVIDENCE.json (rgt repro; nothing of the project is rebuilt in place, and the shared
# runs runs/ lacks are brought, never replacing one). RETRAIN=1 trains every run again first
# (in .rgt/retrain/; runs/ is untouched): on another machine's platform each number is judged
# against the seed spread, and both values are printed.
RETRAIN ?=
repro: setup-run
	. $(VENV)/bin/activate && $(PY) -m rgt repro $(if $(filter 1,$(RETRAIN)),--retrain)

# Put the sealed runs and the data in the DVC remote, for `make repro` elsewhere (README "Share
# results"); then commit runs.dvc, dvc.lock (and dvc-remote/ while it is the default remote).
share: setup-run
	. $(VENV)/bin/activate && dvc repro data && dvc add runs && dvc push

lint: setup
	$(VENV)/bin/ruff check src tests bench ci

bench: setup
	$(PY) bench/checkpoint.py
	$(PY) bench/checkpoint.py --mib 256
	$(PY) bench/overhead.py
	$(PY) bench/gpu_loop.py
	$(PY) bench/transfer.py
	$(PY) bench/data_cache.py
	$(PY) bench/verify.py
	$(PY) bench/verify_calibration.py
	$(PY) bench/mirror.py
	$(PY) bench/fanout.py
	$(PY) bench/reconcile_corpus.py

clean-runs:
	@echo "runs/ and checkpoints/ are results: move them aside by hand if you mean it"
