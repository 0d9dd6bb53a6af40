"""``python -m experiments.docs``: the docs stage of :mod:`bandits.experiments.docs.render`."""

if __name__ == "__main__":
    import sys

    from bandits.experiments.docs.render import main

    sys.exit(main())
