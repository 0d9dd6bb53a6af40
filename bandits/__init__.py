"""Bandits in changing environments: algorithms and environments.

Algorithms live in :mod:`bandits.algorithms`, environments in
:mod:`bandits.environments`. Both follow one convention (scikit-learn's):
constructors only store parameters, ``check_params()`` validates them before any
work starts, and state computed for a run ends in ``_``.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from bandits import _numba_cache

_numba_cache.configure()  # before any kernel module is imported

try:
    __version__ = _version("drift-bandits")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"
