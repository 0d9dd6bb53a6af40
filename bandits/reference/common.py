"""What the literal transcriptions share: the spec's tie rule, written once in plain
Python (the compiled kernels use :func:`bandits.numerics.argmax_lowest`, the same rule),
and kl-UCB's upper bound and exploration functions written out from their formulas
(the kernels use :mod:`bandits.algorithms.indices`: Newton's method, a pruned argmax)."""

from __future__ import annotations

import math

from bandits.numerics import TIE_TOL


def lowest_argmax(scores) -> int:
    """The lowest index whose score is within TIE_TOL (relative) of the maximum; with an
    infinite maximum (an arm never tried), the lowest infinite index."""
    scores = [float(v) for v in scores]
    top = max(scores)
    if top == math.inf:
        return scores.index(math.inf)
    return next(i for i, v in enumerate(scores) if v >= top - TIE_TOL * max(1.0, abs(top)))


def bernoulli_kl(p: float, q: float) -> float:
    """kl(p, q) = p ln(p / q) + (1 - p) ln((1 - p) / (1 - q)), with 0 ln 0 = 0."""
    out = 0.0
    if p > 0.0:
        out += math.inf if q <= 0.0 else p * math.log(p / q)
    if p < 1.0:
        out += math.inf if q >= 1.0 else (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


def kl_ucb_bound(total: float, n: float, level: float) -> float:
    """max{q in [0, 1] : n kl(total / n, q) <= level} by bisection on [mean, 1] (kl(mean, .)
    increases there), to the last bit; +inf for an arm without samples; the mean where
    level <= 0 (the set holds no q above the mean: its limit as level -> 0)."""
    if n <= 0:
        return math.inf
    mean = min(1.0, max(0.0, total / n))
    if level <= 0.0:
        return mean
    lo, hi = mean, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if n * bernoulli_kl(mean, mid) <= level:
            lo = mid
        else:
            hi = mid
    return lo


def kl_exploration(u: float, kind: str, c: float) -> float:
    """The exploration function f(u) of a kl-UCB index: 0 for u <= 1, else ln u (``log``),
    ln u + c ln ln u (``log_loglog``) or 3 ln u (``three_log``)."""
    if u <= 1:
        return 0.0
    if kind == "log":
        return math.log(u)
    if kind == "log_loglog":
        return math.log(u) + c * math.log(math.log(u))
    if kind == "three_log":
        return 3.0 * math.log(u)
    raise ValueError(f"unknown kl exploration {kind!r}")
