"""Shortcut of a checkout: ``python -m experiments.figures`` is ``drift-bandits plots``
(:mod:`bandits.experiments.plots`)."""
