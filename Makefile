# make install | make test | make figures [SCALE=quick] | make bench
PYTHON ?= python
SCALE ?= full
EXPERIMENTS := fig2a fig2b fig2b_sensitivity fig3 fig4 fig5
# Sweeps over random instances (one root seed each): are the Fig. 3/4 claims instance-specific?
INSTANCE_EXPERIMENTS := fig3_instances fig4_instances
SEEDS := range(10)

ifeq ($(SCALE),quick)
# Smoke-test scale: 5 trials, three horizons, separate folder so shipped results stay intact.
RESULTS := results/quick
SCALE_ARGS := trials=5 results_dir=$(RESULTS)
SEEDS := range(3)
else
RESULTS := results
SCALE_ARGS :=
endif

.PHONY: install test figures experiments plots bench clean-runs

install:
	$(PYTHON) -m pip install -e ".[dev,vw]"

test:
	$(PYTHON) -m pytest

experiments:
	@for exp in $(EXPERIMENTS); do \
		$(PYTHON) run.py +experiment=$$exp $(SCALE_ARGS) || exit $$?; \
	done
	$(PYTHON) run.py -m +experiment=ctx_baselines env.n_pieces=1,5 $(SCALE_ARGS)
	@for exp in $(INSTANCE_EXPERIMENTS); do \
		$(PYTHON) run.py -m +experiment=$$exp "seed=$(SEEDS)" $(SCALE_ARGS) || exit $$?; \
	done

plots:
	$(PYTHON) -m experiments.figures --results $(RESULTS)

figures: experiments plots

bench:
	$(PYTHON) scripts/bench.py

clean-runs:
	rm -rf results/runs results/tables results/hydra results/quick
