"""Pieces shared by the contextual algorithms: reading the problem, checking rewards,
and playing (mixtures of) smoothed policy distributions."""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits.contextual.policy_class import FinitePolicyClass, PrefixValues
from bandits.errors import ConfigError
from bandits.numerics import sample_categorical


def contextual_problem(name: str, rewards: np.ndarray, info: dict) -> FinitePolicyClass:
    """The finite policy class of a contextual environment, which must guarantee rewards
    in [0, 1] (the ada paper's setting). Only ``info`` is read: a learner never looks at
    rewards it did not choose, not even to check them."""
    if info.get("policy_actions") is None:
        raise ConfigError(f"{name} needs a contextual environment with a policy class (env=drifting_contextual).")
    lo, hi = info.get("reward_range", (-np.inf, np.inf))
    if lo < 0 or hi > 1:
        raise ConfigError(f"{name} needs rewards in [0, 1] (the ada paper's setting); this environment "
                          f"guarantees only [{lo:g}, {hi:g}].")
    return FinitePolicyClass(info["policy_actions"], rewards.shape[1])


def mixture(dists) -> tuple:
    """The distributions in play, a list of ((support, weights), nu), as the compiled
    kernel takes them: (supports, weights, offsets, nus), distribution m being
    supports[offsets[m]:offsets[m+1]] with weights alike, smoothed with nu_m."""
    supports = np.concatenate([np.asarray(q[0], dtype=np.int64) for q, _ in dists])
    weights = np.concatenate([np.asarray(q[1], dtype=np.float64) for q, _ in dists])
    offsets = np.cumsum([0] + [len(q[0]) for q, _ in dists]).astype(np.int64)
    return supports, weights, offsets, np.array([nu for _, nu in dists], dtype=np.float64)


@njit(cache=True)
def play_mixture(pred, mix, K, u, start, stop, actions, probs):
    """Rounds [start, stop): p_t = mean over the active distributions m of
    Q_m^{nu_m}(. | x_t) (ada §4's mixture when replays are on; one distribution
    otherwise); a_t ~ p_t with one uniform; store a_t and p_t(a_t). ``mix`` comes from
    :func:`mixture`."""
    supports, weights, offsets, nus = mix
    M = nus.shape[0]
    p = np.empty(K)
    for t in range(start, stop):
        for a in range(K):
            p[a] = 0.0
        for m in range(M):
            nu = nus[m]
            for a in range(K):
                p[a] += nu / M
            for i in range(offsets[m], offsets[m + 1]):
                p[pred[t, supports[i]]] += (1.0 - K * nu) * weights[i] / M
        a_t = sample_categorical(p, u[t])
        actions[t] = a_t
        probs[t] = p[a_t]


def warm_kernels(policy_actions: np.ndarray, K: int) -> None:
    """Compile (or load) the policy class's and the mixture's kernels for this problem's
    array types, on two rounds: the OP, the tests and the replays first call them after
    block 0 (hundreds of rounds), which a 20-round warm-up never reaches, so that without
    this a cold cache's compile time fell into the first cell of an ILTCB-family learner."""
    pclass = FinitePolicyClass(np.asarray(policy_actions)[:2], K)
    rows = np.arange(2, dtype=np.int64)
    pclass.oracle(rows, np.zeros((2, K)))
    pclass.distribution(np.zeros(1, dtype=np.int64), np.ones(1), rows)
    actions, weights = np.zeros(2, dtype=np.int64), np.zeros(2)
    PrefixValues(pclass, actions, weights, stride=1).interval(0, 2)
    play_mixture(pclass.pred, mixture([((np.zeros(1, dtype=np.int64), np.ones(1)), 0.1)]), K, np.zeros(2), 0, 2,
                 actions, np.ones(2))
