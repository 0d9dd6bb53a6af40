"""Merge finished cells into the experiment's table and report what a sweep still lacks.

    python -m bandits.experiments.collect +experiment=fig2a [results_dir=...] [any run.py override]

The command composes the same config as ``run.py`` with the same overrides, lists
every cell of the declared sweep, checks each stored cell file (a partial or
corrupted file is moved aside and reported, never read), gathers the valid cells
into ``results/tables/<experiment>.parquet`` and prints the missing cells. Exit
code 0 when the sweep is complete, 3 when cells are missing (re-running the same
``run.py`` command computes exactly those). Cells may come from any number of
processes or hosts writing into the same results folder.
"""

from __future__ import annotations

import sys

from bandits.errors import ConfigError
from bandits.experiments.compose.composition import hydra_error, unknown_key
from bandits.experiments.compose.registry import compose
from bandits.experiments.outcomes import BAD_INPUT, MISSING_CELLS, OK
from bandits.experiments.run.gathering import gather
from bandits.experiments.run.planning import plan_config
from bandits.experiments.setup.setups import scenario_configs


def collect(overrides: list[str]) -> int:
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    try:
        cfg = compose(overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise (unknown_key(exc, overrides) or hydra_error(exc)) from None
    missing = 0
    for one in scenario_configs(cfg):
        plan = plan_config(one)
        for bad in plan.corrupt:
            print(f"corrupted or partial cell moved aside: {bad}")
        rows = gather(plan)
        if rows.empty:
            print(f"[{plan.experiment}] no finished cell of this sweep in {plan.setup.results_dir}: no table "
                  f"written; {len(plan.todo)} missing")
        else:
            print(f"[{plan.experiment}] {len(rows)} cells gathered into {plan.table_path}; {len(plan.todo)} missing")
        for cell in plan.todo:
            print(f"  missing: algo={cell.algo_name} T={cell.T} trial={cell.trial}")
        missing += len(plan.todo)
    return OK if not missing else MISSING_CELLS


def main() -> None:
    try:
        sys.exit(collect(sys.argv[1:]))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(BAD_INPUT)


if __name__ == "__main__":
    main()
