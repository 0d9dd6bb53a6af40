"""Command-line entry in a checkout: ``python run.py algo=bob env=sinusoid``,
``python run.py -m ...``, ``python run.py +experiment=fig2a``. The same as the
installed ``drift-bandits`` command (:mod:`bandits.experiments.cli`)."""

from bandits.experiments.cli import main

if __name__ == "__main__":
    main()
