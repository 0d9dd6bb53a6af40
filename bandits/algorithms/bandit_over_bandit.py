"""Bandit-over-Bandit (BOB), hedging Alg. 2: :func:`bob_blocks` is its outer loop over
blocks, written once for every base algorithm (SW-UCB on K arms with eq. (23) and on
linear action sets with eq. (11) here; SW-UCB-GLB with eq. (26) and SW-UCB-comb with
eq. (27) in :mod:`bandits.algorithms.bob_ext`).

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

from bandits.algorithms.common import known_constants, own_or_told, resolve_delta
from bandits.algorithms.sliding_window_ucb import (
    check_estimator,
    check_ridge,
    linear_ucb_segment,
    refuse_pinv_on_vectors,
    sw_ucb_segment,
    unseen_value,
)
from bandits.algorithms.tuning import bob_parameters, confidence_radius, karmed_radius
from bandits.errors import require_choice
from bandits.numerics import mixed_probabilities, sample_categorical


def bob_blocks(T: int, params: dict, u: np.ndarray, play_block, clip: bool = False) -> list:
    """Alg. 2, lines 3-7, for any base algorithm: block i covers rounds [i H, (i+1) H);
    j_i is drawn from p of eq. (13) (log-weights, one uniform ``u[i]`` per block),
    ``play_block(start, stop, j)`` runs the base algorithm from scratch with window J[j]
    and returns the block's realised reward, and eq. (14) updates log s_j. Returns the
    indices j_i chosen."""
    H, J, gamma, Q = params["H"], params["J"], params["gamma"], params["Q"]
    logs, p, chosen = np.zeros(len(J)), np.empty(len(J)), []
    for i in range(params["n_blocks"]):
        mixed_probabilities(logs, gamma, p)
        j = sample_categorical(p, u[i])
        total = play_block(i * H, min(T, (i + 1) * H), j)
        x = 0.5 + total / Q
        if clip:
            x = min(1.0, max(0.0, x))
        logs[j] += gamma / (len(J) * p[j]) * x
        chosen.append(j)
    return chosen


class BanditOverBandit:
    """BOB over SW-UCB (hedging Alg. 2, eqs. (12)-(14); eq. (23) for K arms, eq. (11) for
    linear action sets)."""

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

    def needs(self) -> tuple:
        """R, L, S for the base SW-UCB's eq. (3) (unless set here), and the reward bound nu
        of Q (Lemma 7.4)."""
        return own_or_told(self, ("d", "R", "L", "S", "reward_bound"))

    def check_params(self) -> None:
        require_choice("algo.setting", self.setting, {"auto", "karmed", "linear"})
        require_choice("algo.base_horizon", self.base_horizon, {"T", "H"})
        check_ridge(self)
        check_estimator(self)

    def resolve(self, T: int, info: dict) -> dict:
        refuse_pinv_on_vectors(self, info)
        c = known_constants(self, info)
        setting = self.setting if self.setting != "auto" else ("linear" if info.get("linear") else "karmed")
        bp = bob_parameters(T, c["d"], c["R"], setting, float(info["reward_bound"]))
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
        p = self.derived_ = self.resolve(T, info)
        J, betas, lam = p["J"], p["betas"], p["lam"]
        actions = np.empty(T, dtype=np.int64)

        base_lam = lam if self.estimator == "ridge" else 0.0  # eqs. (21)-(22): lambda = 0

        def play_block(start, stop, j):  # line 6: the base SW-UCB, restarted with window J[j]
            radii = np.full(stop - start, betas[j])
            if features is not None:
                return linear_ucb_segment(features, rewards, start, stop, J[j], lam, radii, actions)
            return sw_ucb_segment(rewards, start, stop, J[j], base_lam, radii, unseen_value(self), actions)

        chosen = bob_blocks(T, p, rng.random(p["n_blocks"]), play_block, bool(self.clip_block_reward))
        self.chosen_windows_ = np.asarray(J)[chosen]
        return actions
