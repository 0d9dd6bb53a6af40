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
EXPERIMENTS := fig2a fig2b fig2b_sensitivity fig3 fig4 fig5 ext_glb ext_semibandit lower_bound ns_benchmark ns_sensitivity fig2_modern modern_sensitivity
# Each baseline against its own paper's published experiment (docs/baselines.md, docs/modern.md)
EXPERIMENTS += glr_thesis glr_thesis_pb4_10k glr_thesis_pb3 glr_thesis_pb5 glr_thesis_ucb glr_journal glr_journal_k5
EXPERIMENTS += dlinucb_abrupt dlinucb_smooth master_geo_unif
EXPERIMENTS += lbsda_paper lbsda_paper_gaussian lbsda_paper_gaussian_varying
# Sweeps over random instances (one root seed each): are the Fig. 3/4 claims instance-specific?
INSTANCE_EXPERIMENTS := fig3_instances fig4_instances
SEEDS := range(10)
# Gerogiannis et al.'s MASTER experiment draws a new instance for every run: a sweep over root seeds.
MASTER_SEEDS := range(50)

# Contextual experiments (C1-C3, ours): quick horizons by default; CTX_SCALE=paper for T up to 1e5.
CTX_EXPERIMENTS := ctx_switch ctx_switch_growing ctx_drift
CTX_SCALE ?= quick
ifeq ($(CTX_SCALE),paper)
CTX_ARGS := "T=[10000,30000,100000]"
CTX_DELAY_ARGS := T=100000
else
CTX_ARGS :=
CTX_DELAY_ARGS :=
endif

ifeq ($(SCALE),quick)
# Every experiment, figure and claim at a tenth of its horizons (a quarter for the contextual
# ones) and 3 trials, into outputs/quick/ (git-ignored): the shipped results stay intact, and
# every figure of a reduced-scale table says so.
RESULTS := outputs/quick
DOCS := outputs/quick/docs
SCALE_ARGS := horizon_scale=0.1 trials=3 results_dir=$(RESULTS)
CTX_SCALE_ARGS := horizon_scale=0.25 trials=3 results_dir=$(RESULTS)
SEEDS := range(2)
MASTER_SEEDS := range(2)
else
# The release: the shipped results/ and docs/ (the only runs that write into them, with
# `make bench UPDATE=1` and the full `make crosscheck`).
RESULTS := results
DOCS := docs
SCALE_ARGS := results_dir=$(RESULTS)
CTX_SCALE_ARGS := results_dir=$(RESULTS)
endif

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

# One process runs every command in turn (`run.py commands`, each quoted command one run.py
# command line), so that Python, its imports, the workers and the kernels they loaded start once;
# a Hydra multirun over experiments runs them one after the other in the same way.
comma := ,
empty :=
space := $(empty) $(empty)
experiments: $(STAMP)
	@mkdir -p $(RESULTS) && rm -f $(RESULTS)/timings.csv
	$(RUN) commands \
		'-m +experiment=$(subst $(space),$(comma),$(strip $(EXPERIMENTS))) $(SCALE_ARGS)' \
		'-m +experiment=ctx_baselines env.n_pieces=1,5 $(SCALE_ARGS)' \
		'-m +experiment=$(subst $(space),$(comma),$(strip $(CTX_EXPERIMENTS))) $(CTX_ARGS) $(CTX_SCALE_ARGS)' \
		'-m +experiment=ctx_delay env.shift=0.25,0.5,1.0 $(CTX_DELAY_ARGS) $(CTX_SCALE_ARGS)' \
		'-m +experiment=ctx_data,ctx_master_sensitivity $(CTX_SCALE_ARGS)' \
		'-m +experiment=$(subst $(space),$(comma),$(strip $(INSTANCE_EXPERIMENTS))) "seed=$(SEEDS)" $(SCALE_ARGS)' \
		'-m +experiment=master_geo "seed=$(MASTER_SEEDS)" $(SCALE_ARGS)'

# make ctx-long: C1-C3 at T up to 1e6 (docs/ada.md, "The long run"; about an hour on 2 cores).
# A release of its own, not part of make figures or CI: the only target that writes the long
# tables' figures, their claims rows and results/ctx_long_run.csv (wall time, peak memory).
CTX_LONG := ctx_switch_long,ctx_switch_growing_long,ctx_drift_long
CTX_LONG_DELAY := ctx_delay_long_shift0.25,ctx_delay_long_shift0.5,ctx_delay_long_shift1.0
ctx-long: $(STAMP)
	$(PYTHON) scripts/ctx_long.py --results results \
		'-m +experiment=$(CTX_LONG) results_dir=results' \
		'-m +experiment=ctx_delay_long env.shift=0.25,0.5,1.0 results_dir=results'
	$(PYTHON) -m bandits.experiments.figures --results results --experiment $(CTX_LONG),$(CTX_LONG_DELAY)
	$(PYTHON) -m bandits.experiments.docs --results results --out docs

# `make plots` redraws the tables that changed since their figures were drawn; `make figures`
# (a release) redraws every figure (--force)
plots: $(STAMP)
	$(PYTHON) -m bandits.experiments.figures --results $(RESULTS) $(TIMED) $(FORCE)

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
