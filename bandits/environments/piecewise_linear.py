"""Piecewise-linear drifting linear bandit of hedging §9.1.2 (Figures 3 and 4).

The instance (drawn once from the experiment's root seed, fixed over trials):
``n_breakpoints`` = 30 points tau_1 < ... < tau_30 sampled without replacement
from {2, ..., T-1}, tau_0 = 1, tau_31 = T; 32 unit vectors v_0..v_31 uniform on
the sphere in R^d; theta_t = ((tau_{s+1} - t) v_s + (t - tau_s) v_{s+1}) /
(tau_{s+1} - tau_s) for tau_s <= t <= tau_{s+1}. The reward of action x is
<x, theta_t> + eta with eta ~ N(0, R^2); it can be negative.

Action sets (``action_set``):

* ``basis``: D_t = {e_1, ..., e_d} (Figure 3, d = 2): a d-armed bandit.
* ``fresh`` (default for Figure 4): the paper's "a random subset of 40 unit length
  vectors" read as ``n_actions`` fresh i.i.d. uniform unit vectors every round
  (spec §2; drawn with the instance, so fixed over trials).
* ``fixed``: one set of ``n_actions`` uniform unit vectors, offered every round.
* ``given``: ``action_vectors`` (a list of d-vectors), offered every round.

Known constants: L = max action norm (1), S = max_t ||theta_t||_2, and B_T = the
realised sum_t ||theta_{t+1} - theta_t||_2 (spec §2), stored as ``B_T``.
Noise sd R = 0.1, as in §9.1.1 (§9.1.2 does not restate it).
"""

from __future__ import annotations

import numpy as np

from bandits.environments.base import Instance, gaussian_rewards, unit_vectors, variation
from bandits.errors import ConfigError, require_choice, require_float, require_int

ACTION_SETS = {"basis", "fresh", "fixed", "given"}


def interpolate(T: int, taus: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """theta_t for t = 1..T, linear between vertices[s] at taus[s] and vertices[s+1] at taus[s+1]."""
    t = np.arange(1, T + 1)
    s = np.clip(np.searchsorted(taus, t, side="right") - 1, 0, len(taus) - 2)
    lo, hi = taus[s], taus[s + 1]
    w = ((t - lo) / (hi - lo))[:, None]
    return (1.0 - w) * vertices[s] + w * vertices[s + 1]


class PiecewiseLinear:
    name = "piecewise_linear"
    problem_kinds = ("karmed", "linear")

    def problem_kind(self) -> str:
        return "karmed" if self.action_set == "basis" else "linear"

    def __init__(self, d: int = 2, n_breakpoints: int = 30, action_set: str = "basis", n_actions: int = 40,
                 action_vectors=None, R: float = 0.1):
        self.d = d
        self.n_breakpoints = n_breakpoints
        self.action_set = action_set
        self.n_actions = n_actions
        self.action_vectors = action_vectors
        self.R = R

    def check_params(self, T: int) -> None:
        d = require_int("env.d", self.d, minimum=1)
        nb = require_int("env.n_breakpoints", self.n_breakpoints, minimum=0)
        require_choice("env.action_set", self.action_set, ACTION_SETS)
        require_float("env.R", self.R, minimum=0.0)
        if self.action_set == "basis" and d < 2:
            raise ConfigError("env.action_set=basis needs d >= 2 arms.")
        if self.action_set in ("fresh", "fixed"):
            require_int("env.n_actions", self.n_actions, minimum=1)
        if self.action_set == "given":
            vecs = np.asarray(self.action_vectors if self.action_vectors is not None else [], dtype=float)
            if vecs.ndim != 2 or vecs.shape[0] < 1:
                raise ConfigError("env.action_set=given needs env.action_vectors: a list of d-vectors.")
            if vecs.shape[1] != d:
                raise ConfigError(f"env.action_vectors have dimension {vecs.shape[1]} but env.d={d}.")
        if T < 3 or nb > T - 2:
            raise ConfigError(f"piecewise_linear needs T >= 3 and n_breakpoints <= T - 2 "
                              f"(breakpoints are drawn from {{2, ..., T-1}}); got T={T}, n_breakpoints={nb}.")

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory: means, and the action sets when drawn per round."""
        d, n = int(self.d), int(self.n_actions)
        K = d if self.action_set == "basis" else n
        return 8 * T * K + (8 * T * n * d if self.action_set == "fresh" else 0)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        d = int(self.d)
        inner = np.sort(rng.choice(np.arange(2, T), size=int(self.n_breakpoints), replace=False))
        taus = np.concatenate([[1], inner, [T]]).astype(np.float64)
        vertices = unit_vectors(rng, (len(taus), d))
        theta = interpolate(T, taus, vertices)
        if self.action_set == "basis":
            features = None
            means = theta.copy()
        else:
            if self.action_set == "fresh":
                features = unit_vectors(rng, (T, int(self.n_actions), d))
            elif self.action_set == "fixed":
                features = unit_vectors(rng, (1, int(self.n_actions), d))
            else:
                features = np.asarray(self.action_vectors, dtype=np.float64)[None, :, :]
            means = np.einsum("tkd,td->tk", features, theta) if features.shape[0] > 1 \
                else theta @ features[0].T
        var = variation(theta)
        info = {"d": d, "R": float(self.R),
                "L": 1.0 if features is None else float(np.linalg.norm(features, axis=-1).max()),
                "S": float(np.linalg.norm(theta, axis=1).max()), "B_T": var["variation_l2"],
                "reward_bound": 1.0, "linear": features is not None}
        evaluation = {"synthetic": True, "breakpoints": taus.astype(int).tolist(), **var}
        return Instance(means=np.ascontiguousarray(means), info=info, evaluation=evaluation, features=features)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return gaussian_rewards(instance.means, float(self.R), rng)
