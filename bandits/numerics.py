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


def argmax_lowest_columns(values: np.ndarray, finite: bool = False) -> np.ndarray:
    """:func:`argmax_lowest` of every column of ``values`` (arms by trials: a batch of trials,
    one column each), in numpy: the same maximum, cut and lowest index at or above the cut, so
    the same arm as the compiled rule for each column of numbers (NaN aside). Arms are the rows
    so that each step is one operation on contiguous rows of trials (numpy reduces a short last
    axis, ``axis=1`` of ``(n_trials, 5)``, many times more slowly). ``finite=True`` promises
    values finite and below 1e300 in size (a policy that marks an untried arm with 1e300
    rather than inf): the same arms, a little faster."""
    # array methods and abs(), not np.max / np.argmax / np.abs: a batch of 100 trials runs this
    # every round, and the module functions' dispatch costs about as much as the work (make bench)
    m = values.max(0)  # positional: numpy parses keywords more slowly, and this runs every round
    if finite:  # the caller's promise: every value finite and below 1e300 in size, so no cap is needed
        cut = m - TIE_TOL * np.maximum(abs(m), 1.0)  # the same numbers as below; clip costs more (a Python wrapper)
    else:
        # |m| capped at 1e300 (no value of a bandit index comes near): an infinite maximum then cuts at
        # inf - 1e288 = inf, the compiled rule's "lowest infinite index", without an inf - inf
        cut = m - TIE_TOL * abs(m).clip(1.0, 1e300)
    hit = values >= cut
    K = values.shape[0]
    if values.shape[1] < 256 or K > 127:
        return hit.argmax(0)  # the first True: the lowest arm at or above the cut
    # many trials: numpy's argmax over axis 0 copies and works column by column; the largest of
    # (K - arm) over the arms at or above the cut is the same arm, in two row-wise int8 operations
    return K - (hit * np.arange(K, 0, -1, dtype=np.int8)[:, None]).max(axis=0).astype(np.int64)


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
