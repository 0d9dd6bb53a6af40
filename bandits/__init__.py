"""Bandits in changing environments: algorithms and environments.

Algorithms live in :mod:`bandits.algorithms`, environments in
:mod:`bandits.environments`. Both follow one convention (scikit-learn's):
constructors only store parameters, ``check_params()`` validates them before any
work starts, and state computed for a run ends in ``_``.
"""

from bandits import _numba_cache
from bandits.version import __version__  # noqa: F401 -- the package's version

_numba_cache.configure()  # before any kernel module is imported


def __getattr__(name):
    """``from bandits import simulate``: the runner's Python API (:mod:`bandits.experiments.api`),
    imported on first use so that the library itself never depends on the runner; ``from bandits
    import check``: the conformance suite on a policy of your own (:mod:`bandits.conformance`)."""
    if name == "simulate":
        from bandits.experiments.api import simulate
        return simulate
    if name == "check":
        from bandits.conformance import check
        return check
    raise AttributeError(f"module 'bandits' has no attribute {name!r}")
