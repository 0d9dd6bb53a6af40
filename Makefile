# make figures [SCALE=quick] [CTX_SCALE=paper] | make ctx-long | make test | make lint | make plots | make docs | make bench [UPDATE=1]
# make crosscheck: our K-armed baselines against SMPyBandits 0.9.7 in its own venv (not part of test/CI)
# On first use the project is installed (with its extras) into the active virtual or conda
# environment, or else into a local .venv; `make PYTHON=python3 ...` picks an interpreter.
BASE_PYTHON ?= python3
PYTHON ?= $(if $(or $(VIRTUAL_ENV),$(CONDA_PREFIX)),python,.venv/bin/python)
STAMP := .make/installed-$(subst /,_,$(PYTHON))
EXTRAS := dev,vw,cluster,river
RUN := $(PYTHON) run.py

SCALE ?= full
# The experiments each release runs are declared by the studies that ship them
# (bandits/experiments/studies/, each module's EXPERIMENTS): `run.py release --list` prints
# the command lines, `run.py release ctx-long --experiments` the long run's experiments.
# Contextual experiments C1-C3: the config's horizons by default; CTX_SCALE=paper for T up to 1e5.
CTX_SCALE ?= quick

ifeq ($(SCALE),quick)
# Every experiment, figure and claim at a tenth of its horizons (a quarter for the contextual
# ones) and 3 trials, into outputs/quick/ (git-ignored): the shipped results stay intact, and
# every figure of a reduced-scale table says so.
RESULTS := outputs/quick
DOCS := outputs/quick/docs
else
# The release: the shipped results/ and docs/ (the only runs that write into them, with
# `make bench UPDATE=1` and the full `make crosscheck`).
RESULTS := results
DOCS := docs
endif
SCALE_ARGS := results_dir=$(RESULTS)$(if $(filter quick,$(SCALE)), horizon_scale=0.1 trials=3)

ifdef UPDATE
BENCH_OUT := results/bench.csv
else
BENCH_OUT := results/bench/bench-$(shell date +%Y%m%d-%H%M%S).csv
endif

.PHONY: install test lint figures experiments plots docs bench crosscheck collect clean-runs ctx-long

$(STAMP): pyproject.toml
	@if [ "$(PYTHON)" = ".venv/bin/python" ] && [ ! -x .venv/bin/python ]; then \
		echo "creating .venv (set PYTHON=... to use another interpreter)"; $(BASE_PYTHON) -m venv .venv; fi
	$(PYTHON) -m pip install -q -e ".[$(EXTRAS)]"
	@mkdir -p .make && touch $@

install: $(STAMP)

test: $(STAMP)
	$(PYTHON) -m pytest

lint: $(STAMP)
	$(PYTHON) -m ruff check .

# One process runs every command of the release in turn (`run.py release`, which reads the
# experiments from the studies and runs them as `run.py commands` does), so that Python, its
# imports, the workers and the kernels they loaded start once; a Hydra multirun over
# experiments runs them one after the other in the same way.
experiments: $(STAMP)
	@mkdir -p $(RESULTS) && rm -f $(RESULTS)/timings.csv
	$(RUN) release --scale $(SCALE) --ctx-scale $(CTX_SCALE) --results $(RESULTS)

# make ctx-long: C1-C3 at T up to 1e6 (docs/ada.md, "The long run"; about an hour on 2 cores).
# A release of its own, not part of make figures or CI: the only target that writes the long
# tables' figures, their claims rows and results/ctx_long_run.csv (wall time, peak memory).
ctx-long: $(STAMP)
	$(PYTHON) scripts/ctx_long.py --results results --release ctx-long
	$(PYTHON) -m bandits.experiments.plots --results results --experiment $$($(RUN) release ctx-long --experiments)
	$(PYTHON) -m bandits.experiments.docs --results results --out docs

# `make plots` redraws the tables that changed since their figures were drawn; `make figures`
# (a release) redraws every figure (--force)
plots: $(STAMP)
	$(PYTHON) -m bandits.experiments.plots --results $(RESULTS) $(TIMED) $(FORCE)

docs: $(STAMP)
	$(PYTHON) -m bandits.experiments.docs --results $(RESULTS) --out $(DOCS) $(TIMED)

# Only make figures adds its plot and docs stages to $(RESULTS)/timings.csv (docs/speed.md)
figures: TIMED := --timed
figures: FORCE := --force
figures: experiments plots docs

# make bench CASES=batched,per_trial: those cases only (UPDATE=1 CASES=...: their rows replace theirs in results/bench.csv)
bench: $(STAMP)
	$(PYTHON) scripts/bench.py --out $(BENCH_OUT) $(if $(CASES),--only $(CASES) $(if $(UPDATE),--merge))

# Not part of `make test` or CI: creates .crosscheck-venv/ (SMPyBandits 0.9.7, pinned) on first use;
# writes results/crosscheck/smpybandits.csv. CROSSCHECK_ARGS="--T 2000 --trials 3 --large-T 0" for a short run.
crosscheck: $(STAMP)
	$(PYTHON) scripts/crosscheck_smpybandits.py --jobs 2 $(CROSSCHECK_ARGS)

# make collect EXP=fig2a: merge finished cells (from any process or host) and list the missing ones
collect: $(STAMP)
	$(PYTHON) -m bandits.experiments.collect +experiment=$(EXP) $(SCALE_ARGS)

clean-runs:
	rm -rf results/runs results/tables results/hydra results/quick outputs
