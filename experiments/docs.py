"""``python -m experiments.docs``: the docs stage of :mod:`bandits.experiments.docs`."""

if __name__ == "__main__":
    import sys

    from bandits.experiments.docs import main

    sys.exit(main())
