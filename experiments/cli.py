"""The command line: ``drift-bandits algo=bob env=sinusoid`` (installed) or, in a
checkout, ``python run.py ...``; multirun sweeps with ``-m``. Hands the composed config
to :func:`experiments.runner.run`. Bad input prints one paragraph and exits 2 (the
run's folder is removed: nothing ran); Ctrl-C exits 130 with every finished cell kept.

A module in the current directory is importable as a policy or environment
(``algo._target_=my_policies.MyPolicy``), as ``python -m`` would allow.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

import bandits
from bandits.errors import ConfigError

CONF = str(Path(bandits.__file__).resolve().parent / "conf")


def _forget_run_folder() -> None:
    """A single run that stopped on bad input (or a dry run) leaves no timestamped folder
    behind. A multirun job's folder stays: its launcher (submitit, say) still writes there."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    try:
        hc = HydraConfig.get()
    except ValueError:
        return
    if hc.mode != RunMode.RUN:
        return
    out = Path(hc.runtime.output_dir)
    import logging
    logging.shutdown()  # release run.log before removing it
    shutil.rmtree(out, ignore_errors=True)


@hydra.main(version_base="1.3", config_path=CONF, config_name="config")
def main(cfg: DictConfig) -> None:
    from experiments.runner import run

    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # joblib's workers inherit sys.path
    try:
        run(cfg)
        if cfg.get("dry_run"):
            _forget_run_folder()  # nothing ran: nothing to record
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        _forget_run_folder()
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
