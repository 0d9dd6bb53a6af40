"""Numerical building blocks shared by algorithms and environments, each defined once:
the tie rule, the logistic function, categorical sampling and exponential weights."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Indices within this relative distance of the maximum count as tied (spec §1: ties go to
# the lowest action index). Without it, rounding decides "ties" such as the equal bonuses
# of unit-length actions on an empty window, and two exact implementations disagree.
TIE_TOL = 1e-12


@njit(cache=True)
def argmax_lowest(values):
    """The tie rule: the lowest index whose value is within TIE_TOL (relative) of the
    maximum (an infinite maximum: the lowest infinite index)."""
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
def _argmax_lowest_columns(values):
    K, n = values.shape
    m = values[0].copy()
    for i in range(1, K):  # row after row: each column's maximum in the order argmax_lowest takes it
        for j in range(n):
            if values[i, j] > m[j]:
                m[j] = values[i, j]
    out = np.zeros(n, dtype=np.int64)
    for j in range(n):
        # argmax_lowest's cut; an infinite maximum cuts at inf: the lowest infinite index
        cut = np.inf if m[j] == np.inf else m[j] - TIE_TOL * max(1.0, abs(m[j]))
        for i in range(K):
            if values[i, j] >= cut:
                out[j] = i
                break
    return out


def argmax_lowest_columns(values: np.ndarray) -> np.ndarray:
    """:func:`argmax_lowest` of every column of ``values`` (arms by trials: a batch of trials,
    one column each): the same maximum, cut and lowest index at or above the cut, compared in
    the same order, so the same arm as the compiled rule for each column, NaN and infinities
    included (tests/test_batched.py checks it). Compiled, in one call: a batched numpy policy
    runs it every round, and the seven numpy calls it takes in numpy cost about 5 us a round
    whatever the batch (``make bench``, case ``batched``). Arms are the rows, so that each
    pass reads contiguous rows of trials."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"argmax_lowest_columns takes an arms-by-trials array (2 dimensions); it was given "
                         f"{values.ndim} (shape {values.shape}).")
    return _argmax_lowest_columns(values)


def sigmoid(z):
    """The logistic function 1 / (1 + e^-z), on numbers or arrays (for large -z, e^-z is
    inf and the value 0: no NaN). Environments call it with numpy; compiled kernels call
    :data:`sigmoid_jit`, the same definition compiled."""
    return 1.0 / (1.0 + np.exp(-z))


sigmoid_jit = njit(cache=True)(sigmoid)


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


# ----------------------------------------------------------------------------- Bernoulli KL
# Probabilities are kept in [KL_EPS, 1 - KL_EPS] inside the logarithms, so kl(0, q), kl(1, q)
# and kl(p, 1) stay finite (the usual convention of kl-UCB implementations).
KL_EPS = 1e-15


@njit(cache=True)
def kl_bernoulli(p, q):
    """kl(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q)), the Kullback-Leibler
    divergence of Bernoulli(p) from Bernoulli(q) (Garivier & Cappé 2011, eq. (1))."""
    p = min(max(p, KL_EPS), 1.0 - KL_EPS)
    q = min(max(q, KL_EPS), 1.0 - KL_EPS)
    return p * math.log(p / q) + (1.0 - p) * math.log((1.0 - p) / (1.0 - q))


@njit(cache=True)
def klucb_bernoulli(p, level):
    """The kl-UCB upper confidence bound max{q in [p, 1] : kl(p, q) <= level}
    (Garivier & Cappé 2011, with level = exploration / N).

    Newton's method on s = -log(1 - q): kl(p, q(s)) is convex and increasing in s for
    q > p (and nearly linear near q = 1, where Newton in q itself crawls), so started at
    Pinsker's bound q = p + sqrt(level / 2) >= root (kl(p, q) >= 2 (q - p)^2) it
    decreases monotonically to the root. It stops when q moves by less than 1e-13. The
    same function serves the compiled kernels and the literal transcriptions, so both
    see the same number; a test checks it against a bracketing root finder."""
    if level <= 0.0:
        return p
    top = 1.0 - KL_EPS
    if kl_bernoulli(p, top) <= level:
        return 1.0
    pc = min(max(p, KL_EPS), top)
    q = min(pc + math.sqrt(0.5 * level), top)
    s = -math.log1p(-q)
    for _ in range(100):
        f = kl_bernoulli(p, q) - level
        if f <= 0.0:
            return q
        s -= f * q / (q - pc)
        new = -math.expm1(-s)
        if q - new < 1e-13:
            return new
        q = new
    return q


@njit(cache=True)
def bernoulli_trial(x, rng):
    """Agrawal & Goyal's Alg. 2 trial of a reward x in [0, 1]: 1.0 (success) or 0.0; one
    uniform from ``rng`` only when 0 < x < 1."""
    if x >= 1.0:
        return 1.0
    if x <= 0.0:
        return 0.0
    return 1.0 if rng.random() < x else 0.0
