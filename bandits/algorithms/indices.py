"""The arm indices of the K-armed UCB family, each defined once and shared by the
compiled kernels and the literal transcriptions (``bandits/reference``).

Rewards here are already mapped to [0, 1] (:func:`bandits.algorithms.common.reward_scale`).
An arm with no observation has an infinite index, so every arm is tried once first
(Auer et al. 2002, Fig. 1, "play each machine once"; Garivier & Cappé 2011, Alg. 1).

Also here: THE argmax of the kl-UCB indices (:func:`klucb_argmax`), exact but without
solving most indices, shared by every kl-UCB kernel (kl-UCB, the oracle restart with
``index: kl_ucb``, GLR-klUCB), and its helpers.
"""

from __future__ import annotations

import math

from numba import njit

from bandits.numerics import KL_EPS, TIE_TOL, argmax_lowest, kl_bernoulli, klucb_bernoulli


@njit(cache=True)
def ucb1_index(total, n, log_t, c):
    """UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Fig. 1): mean + sqrt(c log t / n), with
    c = 2 in the paper (``log_t`` is log t, or the log of the rounds since a restart)."""
    if n <= 0:
        return math.inf
    return total / n + math.sqrt(c * log_t / n)


@njit(cache=True)
def klucb_index(total, n, level):
    """kl-UCB (Garivier & Cappé 2011, Alg. 1): max{q : n kl(mean, q) <= level}, with
    level = log t + c log log t in the paper (c = 0 is their recommended practice)."""
    if n <= 0:
        return math.inf
    return klucb_bernoulli(total / n, level / n)


# ----------------------------------------------------------------------------- the kl-UCB argmax

@njit(cache=True)
def klucb_upper_bound(mean, lv):
    """A closed-form upper bound on the kl-UCB index klucb_bernoulli(mean, lv) (a bracket for
    pruning and a Newton start, not a solver: the one solver is
    :func:`bandits.numerics.klucb_bernoulli`), by three lower bounds on
    kl(p, q) for q > p: 2 (q - p)^2 (Pinsker), (q - p)^2 / (2 q) and (q - p)^2 / (2 (1 - p)). At
    the clipped mean, plus 1e-9 (above Newton's stopping error and the 1.0 returned at the top)."""
    p = min(max(mean, KL_EPS), 1.0 - KL_EPS)
    lv = max(lv, 0.0)
    gap = min(math.sqrt(0.5 * lv), lv + math.sqrt(2.0 * p * lv + lv * lv), math.sqrt(2.0 * (1.0 - p) * lv))
    return p + gap + 1e-9


@njit(cache=True)
def surely_below(mean, lv, x):
    """True when the kl-UCB index klucb_bernoulli(mean, lv) is surely below x - 1e-12: its
    upper bound is below x, or kl(mean, x) > lv (kl(mean, .) increases above the mean, so the
    root is below x). Callers pass x with a 1e-9 margin over Newton's stopping error."""
    if klucb_upper_bound(mean, lv) < x:
        return True
    return x > mean and kl_bernoulli(mean, x) > lv


@njit(cache=True)
def newton_guess(mean, lv, q):
    """Two Newton steps on kl(mean, q) = lv from q (kept in (mean, 1)): a close guess of the
    kl-UCB index when q is the arm's index of a recent round (only a guess: it is verified)."""
    top = 1.0 - KL_EPS
    pc = min(max(mean, KL_EPS), top)
    q = min(max(q, pc + 1e-12), top)
    for _ in range(2):
        if q <= pc:
            break
        q -= (kl_bernoulli(mean, q) - lv) * q * (1.0 - q) / (q - pc)
        q = min(max(q, pc + 1e-12), top)
    return q


@njit(cache=True)
def klucb_argmax(totals, counts, levels, first, guess, index):
    """argmax_lowest over arms k of the kl-UCB indices klucb_index(totals[k], counts[k],
    levels[k]) (Garivier & Cappé 2011, Alg. 1; a level per arm, for kernels that restart arms
    separately), solving Newton's method (~250 ns; one kl evaluation ~15 ns) for at most one
    arm in most rounds. THE kl-UCB argmax of every kl-UCB kernel (kl-UCB, the oracle restart,
    GLR-klUCB). ``first``: the arm tried first (the last one played, usually the leader);
    ``guess``: each arm's last index (nan: none), a Newton starting point only, updated here;
    ``index``: scratch space.

    Exact: the same arm as argmax_lowest of all K indices (tests: random states with ties
    and unseen arms, whole trajectories, the literal transcriptions). Write v_k for the
    computed index, M = max_k v_k and cut(m) = m - TIE_TOL max(1, |m|), so argmax_lowest
    returns the lowest k with v_k >= cut(M); cut is non-decreasing.

    (0) An unseen arm has index +inf: the lowest one is returned, as argmax_lowest does.
    (1) Certificate. y = q - 1e-7, q a Newton guess of the index of ``first``
    (:func:`newton_guess`). If y > mean and kl(mean, y) <= level / n, the root is >= y
    (kl(mean, .) increases above the mean), so v_first >= y up to rounding (Newton's iterates
    decrease to the root from above; the top returns 1.0). Every other arm a with
    :func:`surely_below` at y - 1e-9 has v_a < y - 1e-9 (the 1e-9 dwarfs Newton's stopping
    error). Then M = v_first and cut(M) >= y - 1e-12 - rounding > v_a: ``first`` is the only
    arm in the tie band, and is returned. (2) Otherwise ``first`` is solved, then each other
    arm in turn is solved unless surely below cut(b) - 1e-9, b the largest index solved so
    far; a skipped arm is below cut(b) <= cut(M) (b <= M), outside the final tie band, so
    argmax_lowest over the solved indices (-inf for the skipped) returns the same arm."""
    K = counts.shape[0]
    for a in range(K):
        if counts[a] == 0:
            return a
    mean = totals[first] / counts[first]
    lv = levels[first] / counts[first]
    g = guess[first]
    if not g > mean:
        g = klucb_upper_bound(mean, lv)
    q = newton_guess(mean, lv, g)
    guess[first] = q
    y = q - 1e-7
    certified = y > mean and kl_bernoulli(mean, y) <= lv
    if certified:
        for a in range(K):
            if a != first and not surely_below(totals[a] / counts[a], levels[a] / counts[a], y - 1e-9):
                certified = False
                break
    if certified:
        return first
    for a in range(K):
        index[a] = -math.inf
    best = klucb_index(totals[first], counts[first], levels[first])
    index[first] = best
    guess[first] = best
    for a in range(K):
        if a == first:
            continue
        if surely_below(totals[a] / counts[a], levels[a] / counts[a], best - TIE_TOL * max(1.0, abs(best)) - 1e-9):
            continue
        index[a] = klucb_index(totals[a], counts[a], levels[a])
        guess[a] = index[a]
        best = max(best, index[a])
    return argmax_lowest(index)


@njit(cache=True)
def ucb_alg7_index(total, n, log_term, c):
    """UCB1 as Wei & Luo (COLT 2021) write it for MASTER (App. I.1, Alg. 7, eq. (33)):
    r_hat + c sqrt(log(T / delta) / N+) with N+ = max(1, N) and r_hat = total / N+, so an
    arm never pulled has the finite index c sqrt(log(T / delta)) (``log_term`` = log(T / delta))."""
    n_plus = max(1.0, n)
    return total / n_plus + c * math.sqrt(log_term / n_plus)
