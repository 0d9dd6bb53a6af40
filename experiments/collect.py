"""Merge finished cells into the experiment's table and report what a sweep still lacks.

    python -m experiments.collect +experiment=fig2a [results_dir=...] [any run.py override]

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
from pathlib import Path

from hydra import compose, initialize_config_dir

from bandits.errors import ConfigError
from experiments.runner import gather, make_plan

CONF = Path(__file__).resolve().parent.parent / "conf"


def collect(overrides: list[str]) -> int:
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    plan = make_plan(cfg)
    for bad in plan.corrupt:
        print(f"corrupted or partial cell moved aside: {bad}")
    rows = gather(plan)
    print(f"[{plan.experiment}] {len(rows)} cells gathered into {plan.table_path}; {len(plan.todo)} missing")
    for cell in plan.todo:
        print(f"  missing: algo={cell.algo_name} T={cell.T} trial={cell.trial}")
    return 0 if not plan.todo else 3


def main() -> None:
    try:
        sys.exit(collect(sys.argv[1:]))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
