"""Pieces shared by the contextual algorithms: reading the problem, checking rewards,
and playing a smoothed policy distribution."""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits.contextual.policy_class import FinitePolicyClass
from bandits.errors import ConfigError


def contextual_problem(name: str, rewards: np.ndarray, info: dict) -> FinitePolicyClass:
    """The finite policy class of a contextual environment; rewards must lie in [0, 1]."""
    if info.get("policy_actions") is None:
        raise ConfigError(f"{name} needs a contextual environment with a policy class (env=drifting_contextual).")
    if rewards.size and (rewards.min() < 0 or rewards.max() > 1):
        raise ConfigError(f"{name} needs rewards in [0, 1] (the ada paper's setting); got "
                          f"[{rewards.min():g}, {rewards.max():g}].")
    return FinitePolicyClass(info["policy_actions"], rewards.shape[1])


@njit(cache=True)
def play_smoothed(pred, support, weights, nu, rewards, u, start, stop, actions, probs):
    """Rounds [start, stop): a_t ~ Q^nu(. | x_t) = nu + (1 - K nu) Q(. | x_t); store a_t and
    p_t(a_t). Q is sparse: ``support`` policies with ``weights``."""
    K = rewards.shape[1]
    p = np.empty(K)
    for t in range(start, stop):
        for a in range(K):
            p[a] = nu
        for i in range(support.shape[0]):
            p[pred[t, support[i]]] += (1.0 - K * nu) * weights[i]
        acc = 0.0
        a_t = K - 1
        for a in range(K):
            acc += p[a]
            if u[t] < acc:
                a_t = a
                break
        actions[t] = a_t
        probs[t] = p[a_t]


@njit(cache=True)
def play_mixture(pred, supports, weights, offsets, nus, rewards, u, start, stop, actions, probs):
    """Rounds [start, stop): p_t = mean over the active distributions m of
    Q_m^{nu_m}(. | x_t) (ada §4's mixture when replays are on; one distribution
    otherwise); a_t ~ p_t with one uniform; store a_t and p_t(a_t). Distribution m is
    supports[offsets[m]:offsets[m+1]] with weights alike."""
    K = rewards.shape[1]
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
        acc = 0.0
        a_t = K - 1
        for a in range(K):
            acc += p[a]
            if u[t] < acc:
                a_t = a
                break
        actions[t] = a_t
        probs[t] = p[a_t]
