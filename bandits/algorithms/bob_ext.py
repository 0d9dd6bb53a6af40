"""BOB (hedging Alg. 2) over SW-UCB-GLB (eq. (26)) and SW-UCB-comb (eq. (27)).

The outer loop over blocks is :func:`bandits.algorithms.bandit_over_bandit.bob_blocks`
(eqs. (12)-(14), weights in log space, one uniform per block), with the settings'
parameters from :func:`bandits.algorithms.tuning.bob_parameters`:

* GLB, eq. (26): H = floor(sqrt(d T)), Delta = ceil(ln H), J = {floor(H^(j/Delta))},
  Q = 2 H Y_max (block rewards are deterministically bounded);
* semi-bandit, eq. (27): H = floor(sqrt(d T / m)), Q = 2 H m.

The base algorithm restarts from scratch each block with window J[j_i]; its other
constants (beta, forced exploration) use the full horizon T.
"""

from __future__ import annotations

import numpy as np

from bandits.algorithms.bandit_over_bandit import bob_blocks
from bandits.algorithms.tuning import bob_parameters
from bandits.errors import ConfigError, require_choice


class BanditOverBanditExt:
    """``setting``: glb (eq. (26)) or semibandit (eq. (27))."""

    def __init__(self, setting: str = "glb", lam: float = 1.0, newton_steps: int = 1):
        self.setting = setting
        self.lam = lam
        self.newton_steps = newton_steps

    @property
    def problem_kinds(self):
        return (self.setting,)

    def needs(self) -> tuple:
        return ("d", "S", "L", "B_T", "reward_bound") if self.setting == "glb" else ("d", "B_T")

    def check_params(self) -> None:
        require_choice("algo.setting", self.setting, {"glb", "semibandit"})

    def play(self, rewards, info, rng, features=None):
        from bandits.algorithms.glb import GLBConstants, SlidingWindowGLB, glb_segment
        from bandits.algorithms.semibandit import SlidingWindowSemiBandit, semibandit_segment

        T = rewards.shape[0]
        d = int(info["d"])
        actions = np.empty(T, dtype=np.int64)
        if self.setting == "glb":
            if info.get("link") != "logistic":
                raise ConfigError("bob_glb needs env=drifting_logistic.")
            p = bob_parameters(T, d, 0.0, "glb", nu=float(info["reward_bound"]))

            def play_block(start, stop, j):  # SW-UCB-GLB restarted with window J[j] (its beta uses T)
                w = p["J"][j]
                base = SlidingWindowGLB(window=w, lam=self.lam, newton_steps=self.newton_steps).resolve(T, info)
                consts = GLBConstants(float(self.lam), base["beta"], base["S"], base["refit_every"],
                                      int(self.newton_steps))
                return glb_segment(features, rewards, start, stop, w, consts, actions)
        else:
            if not info.get("semibandit"):
                raise ConfigError("bob_semibandit needs env=drifting_semibandit.")
            p = bob_parameters(T, d, 0.0, "semibandit", m=int(info["m"]))

            def play_block(start, stop, j):  # SW-UCB-comb restarted with window J[j]
                w = p["J"][j]
                base = SlidingWindowSemiBandit(window=w).resolve(T, info)
                return semibandit_segment(rewards, start, stop, w, base["m"], info["family"], base["bonus"], actions)

        chosen = bob_blocks(T, p, rng.random(p["n_blocks"]), play_block)
        self.derived_ = {**p, "chosen_windows": [p["J"][j] for j in chosen]}
        return actions
