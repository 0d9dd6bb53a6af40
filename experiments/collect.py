"""``python -m experiments.collect +experiment=NAME``: :mod:`bandits.experiments.collect`."""

if __name__ == "__main__":
    from bandits.experiments.collect import main

    main()
