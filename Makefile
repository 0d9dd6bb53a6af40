# make install | make test | make figures [SCALE=quick] [CTX_SCALE=paper] | make bench
PYTHON ?= python
SCALE ?= full
EXPERIMENTS := fig2a fig2b fig2b_sensitivity fig3 fig4 fig5 ext_glb ext_semibandit lower_bound
# Sweeps over random instances (one root seed each): are the Fig. 3/4 claims instance-specific?
INSTANCE_EXPERIMENTS := fig3_instances fig4_instances
SEEDS := range(10)

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
# Smoke-test scale: 5 trials, three horizons, separate folder so shipped results stay intact.
RESULTS := results/quick
SCALE_ARGS := trials=5 results_dir=$(RESULTS)
SEEDS := range(3)
else
RESULTS := results
SCALE_ARGS :=
endif

.PHONY: install test figures experiments plots bench collect clean-runs

install:
	$(PYTHON) -m pip install -e ".[dev,vw,cluster]"

test:
	$(PYTHON) -m pytest

experiments:
	@for exp in $(EXPERIMENTS); do \
		$(PYTHON) run.py +experiment=$$exp $(SCALE_ARGS) || exit $$?; \
	done
	$(PYTHON) run.py -m +experiment=ctx_baselines env.n_pieces=1,5 $(SCALE_ARGS)
	@for exp in $(CTX_EXPERIMENTS); do \
		$(PYTHON) run.py +experiment=$$exp $(CTX_ARGS) $(SCALE_ARGS) || exit $$?; \
	done
	$(PYTHON) run.py -m +experiment=ctx_delay env.shift=0.25,0.5,1.0 $(CTX_DELAY_ARGS) $(SCALE_ARGS)
	@for exp in $(INSTANCE_EXPERIMENTS); do \
		$(PYTHON) run.py -m +experiment=$$exp "seed=$(SEEDS)" $(SCALE_ARGS) || exit $$?; \
	done

plots:
	$(PYTHON) -m experiments.figures --results $(RESULTS)

figures: experiments plots

bench:
	$(PYTHON) scripts/bench.py

# make collect EXP=fig2a: merge finished cells (from any process or host) and list the missing ones
collect:
	$(PYTHON) -m experiments.collect +experiment=$(EXP) $(SCALE_ARGS)

clean-runs:
	rm -rf results/runs results/tables results/hydra results/quick
