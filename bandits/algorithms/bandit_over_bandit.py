"""Bandit-over-Bandit (BOB), hedging Alg. 2, for K arms (eq. (23)) and linear
action sets (eq. (11)).

Alg. 2 line by line:

* line 1-2: H, Delta, J, Q from eq. (23) for K arms or eq. (11) for linear
  action sets (``setting: auto`` picks by the environment; ``karmed`` /
  ``linear`` force one), gamma and s_{j,1} = 1 from eq. (12);
  see :func:`bandits.algorithms.tuning.bob_parameters`.
* line 4: p_{j,i} of eq. (13), computed from log s_j (weights kept in log space);
  j_i drawn with one uniform per block from the algorithm's stream.
  (The paper's j_t here means j_i, spec §5.)
* line 5: w_i = J[j_i] = floor(H^(j_i/Delta)) in exact integer arithmetic.
* line 6: SW-UCB (same kernels and options as ``sw_ucb``) restarted from scratch
  for the block's rounds with window w_i.
* line 7: eq. (14): log s_{j_i} += gamma / ((Delta+1) p_{j_i,i}) * (1/2 + sum Y / Q).
  Q uses nu = the environment's ``reward_bound`` (Lemma 7.4's general form; nu = 1,
  the paper's normalisation, for every synthetic environment here).

Choices the paper leaves open (spec §5), each a config key:

* ``base_horizon: T`` (default) uses the full horizon T in the base SW-UCB's
  delta = 1/T (eq. (3)) and in eq. (22); ``H`` uses the block length instead.
* ``clip_block_reward: false`` (default) feeds 1/2 + sum Y / Q unclipped, as the
  paper does (it leaves [0, 1] with probability at most 2/T); ``true`` clips.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bandits.algorithms.common import (known_constants, mixed_probabilities, resolve_delta,
                                       sample_categorical)
from bandits.algorithms.sliding_window_ucb import _check_common, linear_sw_ucb_segment, sw_ucb_segment
from bandits.algorithms.tuning import bob_parameters, confidence_radius, karmed_radius
from bandits.errors import ConfigError, require_choice


@njit(cache=True)
def bob_kernel(rewards, feats, linear, H, J, betas, gamma, Q, clip, lam, pinv, unseen_inf,
               R, d, L, S, delta, u, actions, chosen):
    T = rewards.shape[0]
    n_arms = J.shape[0]
    logs = np.zeros(n_arms)
    p = np.empty(n_arms)
    n_blocks = (T + H - 1) // H
    for i in range(n_blocks):
        mixed_probabilities(logs, gamma, p)
        j = sample_categorical(p, u[i])
        chosen[i] = j
        start = i * H
        stop = min(T, start + H)
        if linear:
            total = linear_sw_ucb_segment(feats, rewards, start, stop, J[j], lam, betas[j], False, R, d, L, S,
                                          delta, actions)
        else:
            total = sw_ucb_segment(rewards, start, stop, J[j], lam, betas[j], False, R, d, L, S,
                                   delta, pinv, unseen_inf, actions)
        x = 0.5 + total / Q
        if clip:
            x = min(1.0, max(0.0, x))
        logs[j] += gamma / (n_arms * p[j]) * x


class BanditOverBandit:
    """BOB over K-armed SW-UCB (hedging Alg. 2, eqs. (12)-(14), (23))."""

    problem_kinds = ("karmed", "linear", "pricing")

    def __init__(self, setting: str = "auto", lam: float = 1.0, delta: float | None = None,
                 estimator: str = "ridge", unseen_index: str = "inf", base_horizon: str = "T",
                 clip_block_reward: bool = False, R: float | None = None, L: float | None = None,
                 S: float | None = None):
        self.setting = setting
        self.lam = lam
        self.delta = delta
        self.estimator = estimator
        self.unseen_index = unseen_index
        self.base_horizon = base_horizon
        self.clip_block_reward = clip_block_reward
        self.R = R
        self.L = L
        self.S = S

    def check_params(self) -> None:
        require_choice("algo.setting", self.setting, {"auto", "karmed", "linear"})
        require_choice("algo.base_horizon", self.base_horizon, {"T", "H"})
        _check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        c = known_constants(self, {**info, "B_T": info.get("B_T", 0.0)})
        if info.get("linear") and self.estimator == "pinv":
            raise ConfigError("algo.estimator=pinv is for K arms; use estimator=ridge with linear action sets.")
        setting = self.setting if self.setting != "auto" else ("linear" if info.get("linear") else "karmed")
        bp = bob_parameters(T, c["d"], c["R"], setting, float(info.get("reward_bound", 1.0)))
        bp["setting"] = setting
        horizon = T if self.base_horizon == "T" else bp["H"]
        delta = resolve_delta(self.delta, horizon)
        lam = float(self.lam)
        if self.estimator == "pinv":
            betas = [karmed_radius(c["R"], c["d"], horizon)] * len(bp["J"])
        else:
            betas = [confidence_radius(c["R"], c["d"], w, c["L"], lam, delta, c["S"]) for w in bp["J"]]
        return {**bp, "betas": betas, "delta": delta, "lam": lam, **c}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.resolve(T, info)
        linear = features is not None
        feats = features if linear else np.zeros((1, 1, 1))
        u = rng.random(p["n_blocks"])
        actions = np.empty(T, dtype=np.int64)
        chosen = np.empty(p["n_blocks"], dtype=np.int64)
        bob_kernel(rewards, feats, linear, p["H"], np.asarray(p["J"], dtype=np.int64), np.asarray(p["betas"]),
                   p["gamma"], p["Q"], bool(self.clip_block_reward), p["lam"],
                   self.estimator == "pinv", self.unseen_index == "inf", p["R"], p["d"], p["L"],
                   p["S"], p["delta"], u, actions, chosen)
        self.derived_ = p
        self.chosen_windows_ = np.asarray(p["J"])[chosen]
        return actions
