"""Command-line entry: ``python run.py algo=bob env=sinusoid``, ``python run.py -m ...``,
``python run.py +experiment=fig2a``. Hands the composed config to
:func:`experiments.runner.run`; bad input prints one paragraph and exits 2."""

import sys

import hydra
from omegaconf import DictConfig

from bandits.errors import ConfigError


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    from experiments.runner import run

    try:
        run(cfg)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
