"""The "modified EXP3.S" baseline of hedging §9.1 (Besbes, Gur & Zeevi).

The hedging paper calls it "the modified EXP3.S algorithm ... where B_T is known
and the window size is set to optimize the dynamic regret bound". Two readings,
both offered (``variant``):

* ``rexp3`` (default): Rexp3 of Besbes, Gur & Zeevi (2014, 2019), Exp3 restarted
  every Delta_T = ceil((K ln K)^(1/3) (T / V_T)^(2/3)) rounds with
  gamma = min{1, sqrt(K ln K / ((e - 1) Delta_T))}, V_T = B_T. The restart batch
  is the "window size" tuned with the known budget. Exp3 inside a batch is
  Auer et al. (2002), Fig. 1: p_i = (1 - gamma) w_i / sum_j w_j + gamma / K,
  w_a <- w_a exp(gamma xhat_a / K) with xhat_a = x_a / p_a for the pulled arm.
* ``exp3s``: Exp3.S of Auer et al. (2002), Fig. 6, every arm updated as
  w_i <- w_i exp(gamma xhat_i / K) + (e alpha / K) sum_j w_j (the paper's rule:
  share term on every arm, factor e kept), with their tuning for S switches,
  alpha = 1/T, gamma = min{1, sqrt(K (S ln(KT) + e) / ((e - 1) T))}.
  S = ``switches``, by default max(1, ceil(B_T)) -- our reading of "B_T known";
  the exact constants of Besbes et al.'s own Exp3.S runs could not be checked
  against their text here, which is why ``rexp3`` is the default.

EXP3 needs rewards in [0, 1]: the reward fed to the update is
(y - lo) / (hi - lo) with ``reward_range: [lo, hi]`` (default [0, 1], the range of
the sinusoid's means); ``clip_rewards: true`` additionally clips to [0, 1]
(default false: Gaussian noise may leave the range slightly, and the update is
still well defined).

Weights are kept in log space (Rexp3) or renormalised every round (Exp3.S; its
update is homogeneous in w), so they never overflow. One uniform per round from
the algorithm's own stream drives the draw.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_reward_range
from bandits.errors import ConfigError, require_choice, require_float, require_int
from bandits.numerics import mixed_probabilities, sample_categorical


@njit(cache=True)
def rexp3_kernel(rewards, batch, gamma, lo, scale, clip, u, actions):
    T, K = rewards.shape
    logw = np.zeros(K)
    p = np.empty(K)
    for t in range(T):
        if t % batch == 0:
            for i in range(K):
                logw[i] = 0.0
        mixed_probabilities(logw, gamma, p)
        a = sample_categorical(p, u[t])
        actions[t] = a
        x = (rewards[t, a] - lo) * scale
        if clip:
            x = min(1.0, max(0.0, x))
        logw[a] += gamma * x / (p[a] * K)


@njit(cache=True)
def exp3s_kernel(rewards, alpha, gamma, lo, scale, clip, u, actions):
    T, K = rewards.shape
    w = np.full(K, 1.0 / K)
    p = np.empty(K)
    share = math.e * alpha / K
    for t in range(T):
        W = 0.0
        for i in range(K):
            W += w[i]
        for i in range(K):
            p[i] = (1.0 - gamma) * w[i] / W + gamma / K
        a = sample_categorical(p, u[t])
        actions[t] = a
        x = (rewards[t, a] - lo) * scale
        if clip:
            x = min(1.0, max(0.0, x))
        total = 0.0
        for i in range(K):
            if i == a:
                w[i] = w[i] * math.exp(gamma * (x / p[a]) / K) + share * W
            else:
                w[i] = w[i] + share * W
            total += w[i]
        for i in range(K):
            w[i] /= total


def rexp3_parameters(T: int, K: int, V_T: float) -> dict:
    """Besbes et al.'s batch Delta_T and rate gamma (spec §6)."""
    if V_T <= 0:
        batch = T
    else:
        batch = math.ceil((K * math.log(K)) ** (1 / 3) * (T / V_T) ** (2 / 3))
    batch = int(min(max(batch, 1), T))
    gamma = min(1.0, math.sqrt(K * math.log(K) / ((math.e - 1) * batch)))
    return {"batch": batch, "gamma": gamma}


def exp3s_parameters(T: int, K: int, switches: int) -> dict:
    """Auer et al. (2002) Cor. 8 tuning for S switches (spec §6)."""
    gamma = min(1.0, math.sqrt(K * (switches * math.log(K * T) + math.e) / ((math.e - 1) * T)))
    return {"alpha": 1.0 / T, "gamma": gamma, "switches": int(switches)}


class EXP3S:
    """Modified EXP3.S (see module doc): ``variant`` = ``rexp3`` | ``exp3s``."""

    problem_kinds = ("karmed", "linear", "pricing")

    def needs(self) -> tuple:
        """The variation budget, unless set here (algo.B_T)."""
        return () if self.B_T is not None else ("B_T",)

    def __init__(self, variant: str = "rexp3", reward_range=(0.0, 1.0), clip_rewards: bool = False,
                 switches: int | None = None, B_T: float | None = None):
        self.variant = variant
        self.reward_range = reward_range
        self.clip_rewards = clip_rewards
        self.switches = switches
        self.B_T = B_T

    def check_params(self) -> None:
        require_choice("algo.variant", self.variant, {"rexp3", "exp3s"})
        if self.reward_range is None:
            raise ConfigError("algo.reward_range must be [lo, hi], got None.")
        check_reward_range(self.reward_range)
        if self.switches is not None:
            require_int("algo.switches", self.switches, minimum=1)
        require_float("algo.B_T", self.B_T, minimum=0.0, allow_none=True)

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        """EXP3 treats the K actions as unstructured arms; ``features`` are ignored."""
        T, K = rewards.shape
        B_T = float(self.B_T) if self.B_T is not None else info.get("B_T")
        if B_T is None:
            raise ConfigError("EXP3.S needs the variation budget: set algo.B_T or use an environment that reports it.")
        lo, hi = (float(v) for v in self.reward_range)
        u = rng.random(T)
        actions = np.empty(T, dtype=np.int64)
        if self.variant == "rexp3":
            p = rexp3_parameters(T, K, B_T)
            rexp3_kernel(rewards, p["batch"], p["gamma"], lo, 1.0 / (hi - lo), bool(self.clip_rewards), u, actions)
        else:
            S = int(self.switches) if self.switches is not None else max(1, math.ceil(B_T))
            p = exp3s_parameters(T, K, S)
            exp3s_kernel(rewards, p["alpha"], p["gamma"], lo, 1.0 / (hi - lo), bool(self.clip_rewards), u, actions)
        self.derived_ = {"variant": self.variant, "B_T": B_T, "reward_range": [lo, hi], **p}
        return actions
