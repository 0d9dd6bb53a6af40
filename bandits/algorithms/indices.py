"""The arm indices of the K-armed UCB family, each defined once and shared by the
compiled kernels and the literal transcriptions (``bandits/reference``).

Rewards here are already mapped to [0, 1] (:func:`bandits.algorithms.common.reward_scale`).
An arm with no observation has an infinite index, so every arm is tried once first
(Auer et al. 2002, Fig. 1, "play each machine once"; Garivier & Cappé 2011, Alg. 1).
"""

from __future__ import annotations

import math

from numba import njit

from bandits.numerics import klucb_bernoulli


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
