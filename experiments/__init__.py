"""Shortcuts of a checkout (not installed): ``python -m experiments.figures``,
``python -m experiments.docs`` and ``python -m experiments.collect`` run the stages of the
installed runner, :mod:`bandits.experiments` (``drift-bandits plots | docs | collect``)."""
