# Two commands do all the set-up on a fresh clone:
#   make run    create the venv, install rgt and the profiles, run `snakemake --profile local`
#   make test   the same set-up, then the test suite
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
PROFILES_HOME := $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/snakemake
PROFILES := $(notdir $(patsubst %/,%,$(wildcard profiles/*/)))
# torch is pinned to the CPU build for local work; on a rented GPU the image's torch is used.
TORCH ?= torch==2.13.0

.PHONY: run test setup profiles lint clean-runs bench

run: setup
	. $(VENV)/bin/activate && snakemake --profile local

test: setup
	$(PY) -m pytest -q

setup: $(VENV)/.installed profiles

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check $(TORCH) 2>&1 | grep -v "is ignored" || true
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]' 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import rgt, torch, snakemake" && touch $@

# Snakemake looks for `--profile NAME` in ~/.config/snakemake/NAME, not in ./profiles.
profiles:
	@mkdir -p $(PROFILES_HOME)
	@for p in $(PROFILES); do rm -rf $(PROFILES_HOME)/$$p; cp -r profiles/$$p $(PROFILES_HOME)/$$p; done
	@echo "profiles installed in $(PROFILES_HOME): $(PROFILES)"

lint: setup
	$(VENV)/bin/ruff check src tests bench

bench: setup
	$(PY) bench/checkpoint.py
	$(PY) bench/overhead.py

clean-runs:
	@echo "runs/ and checkpoints/ are results: move them aside by hand if you mean it"
