"""DS-TS, discounted Thompson sampling with Gaussian sampling (``ds_ts``; Qi, Wang & Zhu 2023,
"Discounted Thompson Sampling for Non-Stationary Bandit Problems", arXiv 2305.10718, Algorithm 1).

Algorithm 1, with the discounted count N_t(gamma, i) = sum_{j <= t} gamma^(t-j) 1{i_j = i} and
the discounted reward sum mu~_t(i) (its lines 9-11; Sec. 4, "the discounted empirical average"):

    1  input gamma in (1 - 1/e, 1), tau_max
    2  mu^_1(i) = 0, mu~_1(i) = 0, N_1(gamma, i) = 0, tau_1(i) = tau_max for every arm
    4  each round: theta_t(i) ~ N(mu^_t(gamma, i), tau_t(i)^2) for every arm, independently
    7  play i_t = argmax_i theta_t(i), observe X_t(i_t)
    8  for every arm i:
    9     mu~_{t+1}(i)     = gamma mu~_t(i) + 1{i = i_t} X_t(i_t)
    10    N_{t+1}(gamma, i) = gamma N_t(gamma, i) + 1{i = i_t}
    11    mu^_{t+1}(gamma, i) = mu~_{t+1}(i) / N_{t+1}(gamma, i)
    12    tau_{t+1}(i)     = min{1 / sqrt(N_{t+1}(gamma, i)), tau_max}

Lines 9-10 are :func:`bandits.algorithms.discounted.discount_and_add`, the update D-UCB and
discounted TS share. The paper leaves two cases open, each a config key with the text's
reading as default:

* ``stale`` -- an arm whose count N is (numerically) zero. ``text``: its mean stays as it was
  (Sec. 4: if an arm is not selected, "the expectation of posterior distribution remains
  unchanged"; 0 before its first pull, line 2), so the mean is updated only where N > 0.
  ``authors``: the authors' code (``qh1874/nonmab``, ``MAB.py``, ``DS_TS_gaussian``) sets the
  mean to the discounted sum and tau to tau_max whenever N < 1e-8, which snaps an arm unplayed
  for about ln(1e-8) / ln(gamma) rounds to a mean near 0 (185 rounds at gamma = 0.905).
* ``gamma`` -- null: Corollary 1's tuning for abruptly changing rewards, 1 - sqrt(B_T / T),
  used in Sec. 7.1's experiments ("Based on Corollary 1, we set gamma = 1 - sqrt(B_T/T)"),
  where B_T counts the stationary phases ("we define b_1 = 1"): B_T = Upsilon_T + 1 with
  Upsilon_T the number of change points. ``authors``: the authors' code's
  1 - 10 sqrt((B_T - 1) / T) = 1 - 10 sqrt(Upsilon_T / T) (``param.py``), 0.905 where the text
  gives 0.99 (T = 1e5, B_T = 10). ``smooth``: Sec. 7.2's 1 - 10 / sqrt(T) for smoothly changing
  rewards. A number in (0, 1] sets it.

* ``tau_max`` = 0.2: Sec. 7.1, "tau_max is generally 1/5 - 1/3 of the upper bound of the
  expected rewards ... mu_max = 1, we take tau_max as 1/5" (Sec. 7.3 also runs mu_max / 5 where
  mu_max is known: set ``tau_max``).
* Rewards: x = (y - lo) * scale, the paper's support [0, 1] ("Without loss of generality, suppose
  the support set is [0,1]", Sec. 3); not clipped, as D-UCB.
* Ties: the paper gives none (they have probability zero); the lowest index, as every kernel.
* Round 1: line 2's tau_1 = tau_max (the prose and the authors' code start at 1; every arm has
  the same mean 0 and the same scale either way, so the first arm is uniform).
* The stream, each round: K draws ``rng.normal(mean, sd)`` in arm order from the policy's
  Generator inside the kernel; the literal transcription :mod:`bandits.reference.ds_ts` draws
  the same numbers in the same order (tests/test_ds_ts.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import reward_scale
from bandits.algorithms.discounted import discount_and_add
from bandits.algorithms.forgetting import check_common, check_gamma, passive_needs, scale_record, told_upsilon
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

STALE_BELOW = 1e-8  # the authors' code's threshold on N (``if tr.nb_draws[i]<1e-8``)
GAMMA_RULES = ("authors", "smooth")


def ds_ts_gamma(rule, T: int, upsilon: float | None) -> float:
    """gamma of a rule: null = Corollary 1's 1 - sqrt(B_T / T), B_T = Upsilon_T + 1 phases;
    ``authors`` = 1 - 10 sqrt(Upsilon_T / T), at least 0 (the authors' code); ``smooth`` =
    1 - 10 / sqrt(T) (Sec. 7.2); a number: itself."""
    if rule is None:
        return 1.0 - math.sqrt((float(upsilon) + 1.0) / T)
    if rule == "authors":
        return max(0.0, 1.0 - 10.0 * math.sqrt(float(upsilon) / T))
    if rule == "smooth":
        return max(0.0, 1.0 - 10.0 / math.sqrt(T))
    return float(rule)


@njit(cache=True)
def ds_ts_kernel(rewards, lo, scale, gamma, tau_max, stale_authors, rng, actions):
    """Algorithm 1 of Qi, Wang & Zhu (module doc), one round after another."""
    T, K = rewards.shape
    total, N = np.zeros(K), np.zeros(K)               # mu~ and N(gamma, .)
    mean, sd = np.zeros(K), np.full(K, tau_max)        # line 2
    theta = np.empty(K)
    for t in range(T):
        for i in range(K):                             # line 4
            theta[i] = rng.normal(mean[i], sd[i])
        arm = argmax_lowest(theta)                     # line 7
        actions[t] = arm
        discount_and_add(total, N, gamma, arm, (rewards[t, arm] - lo) * scale, 1.0)   # lines 9-10
        for i in range(K):                             # lines 11-12
            if stale_authors and N[i] < STALE_BELOW:   # the authors' code (a global: a constant to numba)
                mean[i] = total[i]
                sd[i] = tau_max
            elif N[i] > 0.0:
                mean[i] = total[i] / N[i]
                sd[i] = min(1.0 / math.sqrt(N[i]), tau_max)
            else:                                      # N underflowed to 0: the text's unchanged mean
                sd[i] = tau_max


class DiscountedGaussianThompson:
    """DS-TS (Qi, Wang & Zhu 2023, Algorithm 1), module doc: ``gamma`` null = Corollary 1's tuning."""

    problem_kinds = ("karmed",)

    def __init__(self, gamma=None, tau_max: float = 0.2, stale: str = "text", Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.tau_max = tau_max
        self.stale = stale
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def needs(self) -> tuple:
        """Upsilon_T for the tuned gamma (null or ``authors``, unless algo.Upsilon_T is set) and
        the reward range (unless algo.reward_range is set)."""
        return passive_needs(self, self.gamma is None or self.gamma == "authors")

    def check_params(self) -> None:
        if isinstance(self.gamma, str) and self.gamma not in GAMMA_RULES:
            raise ConfigError(f"algo.gamma must be null (Corollary 1's 1 - sqrt(B_T / T)), authors, smooth or a "
                              f"number in (0, 1], got {self.gamma!r}.")
        if not isinstance(self.gamma, str):
            check_gamma(self.gamma)
        require_float("algo.tau_max", self.tau_max, minimum=0.0, strict=True)
        require_choice("algo.stale", self.stale, {"text", "authors"})
        check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        lo, scale = reward_scale(self, info)
        tuned = self.gamma is None or self.gamma == "authors"
        upsilon = told_upsilon(self, info) if tuned else None
        gamma = ds_ts_gamma(self.gamma, T, upsilon)
        tuning = "corollary_1" if self.gamma is None else self.gamma if isinstance(self.gamma, str) else "given"
        return {"gamma": gamma, "tuning": tuning, "Upsilon_T": upsilon, "tau_max": float(self.tau_max),
                "stale": self.stale, "reward_range": scale_record(lo, scale)}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.derived_ = self.resolve(T, info)
        lo, scale = reward_scale(self, info)
        actions = np.empty(T, dtype=np.int64)
        ds_ts_kernel(rewards, lo, scale, p["gamma"], p["tau_max"], self.stale == "authors", rng, actions)
        return actions
