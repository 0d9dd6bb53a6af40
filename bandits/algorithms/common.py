"""Small pieces shared by several algorithms: constants known to the learner, and
the compiled helpers for exponential weights."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.errors import ConfigError, require_float, require_int

KNOWN = ("R", "L", "S", "B_T")


def known_constants(algo, info: dict) -> dict:
    """The constants the learner is told: the algorithm's own setting if given,
    else the environment's value (``info``). Missing both is a ConfigError."""
    out = {}
    for name in KNOWN:
        value = getattr(algo, name, None)
        if value is None:
            value = info.get(name)
        if value is None:
            raise ConfigError(f"{type(algo).__name__} needs {name}: set algo.{name} or use an "
                              "environment that reports it.")
        out[name] = float(value)
    out["d"] = int(info.get("d", 0))
    return out


def check_known_overrides(algo) -> None:
    for name in KNOWN:
        require_float(f"algo.{name}", getattr(algo, name, None), minimum=0.0, allow_none=True)


def check_window(window) -> None:
    """A window is an integer >= 1 or one of the tuned names opt / obl."""
    if isinstance(window, str):
        if window not in ("opt", "obl"):
            raise ConfigError(f"algo.window must be an integer >= 1, opt or obl, got {window!r}.")
    else:
        require_int("algo.window", window, minimum=1)


def pick_window(window, stationary: bool, T: int, tuned: dict) -> int:
    """The window to run: T for a stationary counterpart, a tuned one by name, or the integer."""
    if stationary:
        return int(T)
    return int(tuned[window]) if isinstance(window, str) else int(window)


def resolve_delta(delta, T: int) -> float:
    """delta of eq. (3); the default 1/T is what eq. (101) implies (spec §5)."""
    return 1.0 / T if delta is None else float(delta)


def check_delta(delta) -> None:
    if delta is not None:
        d = require_float("algo.delta", delta, minimum=0.0, strict=True)
        if d >= 1.0:
            raise ConfigError(f"algo.delta must lie in (0, 1), got {d}.")


# Indices within this relative distance of the maximum count as tied (spec §1: ties go to
# the lowest action index). Without it, rounding decides "ties" such as the equal bonuses
# of unit-length actions on an empty window, and two exact implementations disagree.
TIE_TOL = 1e-12


@njit(cache=True)
def argmax_lowest(values):
    """Lowest index whose value is within TIE_TOL (relative) of the maximum."""
    n = values.shape[0]
    m = values[0]
    for i in range(1, n):
        if values[i] > m:
            m = values[i]
    if m == np.inf:
        for i in range(n):
            if values[i] == np.inf:
                return i
    cut = m - TIE_TOL * max(1.0, abs(m))
    for i in range(n):
        if values[i] >= cut:
            return i
    return 0


@njit(cache=True)
def sample_categorical(p, u):
    """Index i of the first cumulative probability above u (u ~ U[0, 1))."""
    acc = 0.0
    for i in range(p.shape[0]):
        acc += p[i]
        if u < acc:
            return i
    return p.shape[0] - 1


@njit(cache=True)
def mixed_probabilities(logw, gamma, p):
    """p = (1 - gamma) softmax(logw) + gamma / K, computed from log-weights so that
    weights never overflow (BOB keeps EXP3 weights in log space)."""
    K = logw.shape[0]
    m = logw[0]
    for i in range(1, K):
        if logw[i] > m:
            m = logw[i]
    s = 0.0
    for i in range(K):
        p[i] = math.exp(logw[i] - m)
        s += p[i]
    for i in range(K):
        p[i] = (1.0 - gamma) * p[i] / s + gamma / K

