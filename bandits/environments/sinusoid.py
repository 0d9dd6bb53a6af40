"""The two-armed sinusoid of hedging §9.1.1 (Figure 2).

theta_t = (0.5 + 0.3 sin(5 B_T pi t / T), 0.5 + 0.3 sin(pi + 5 B_T pi t / T)),
t = 1..T, arms are the basis vectors e1, e2, noise N(0, R^2) with R = 0.1.

B_T = ``B_T_scale * T ** B_T_exponent``: Figure 2a uses B_T = 1 (scale 1,
exponent 0), Figure 2b B_T = T^(1/3) (exponent 1/3).

The value handed to algorithms that "know B_T" (SW-UCB-opt, EXP3.S) is this
nominal B_T, as in the paper. The realised variation (infinity norm about 3 B_T,
2-norm about 4.2 B_T: the paper's "at most sqrt(2) B_T" undercounts) is recorded
with every result as ``variation_inf`` / ``variation_l2``.
"""

from __future__ import annotations

import numpy as np

from bandits.environments.base import Instance, gaussian_rewards, variation
from bandits.errors import require_float


class Sinusoid:
    name = "sinusoid"
    problem_kinds = ("karmed",)

    def problem_kind(self) -> str:
        return "karmed"

    def __init__(self, B_T_scale: float = 1.0, B_T_exponent: float = 0.0, R: float = 0.1,
                 base: float = 0.5, amplitude: float = 0.3):
        self.B_T_scale = B_T_scale
        self.B_T_exponent = B_T_exponent
        self.R = R
        self.base = base
        self.amplitude = amplitude

    def check_params(self, T: int) -> None:
        require_float("env.B_T_scale (B_T)", self.B_T_scale, minimum=0.0)
        require_float("env.B_T_exponent", self.B_T_exponent)
        require_float("env.R", self.R, minimum=0.0)
        require_float("env.base", self.base)
        require_float("env.amplitude", self.amplitude, minimum=0.0)

    def budget(self, T: int) -> float:
        return float(self.B_T_scale) * float(T) ** float(self.B_T_exponent)

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the means; a trial's rewards take as much)."""
        return 16 * T

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        B_T = self.budget(T)
        t = np.arange(1, T + 1, dtype=np.float64)
        phase = 5.0 * B_T * np.pi * t / T
        means = np.empty((T, 2))
        means[:, 0] = self.base + self.amplitude * np.sin(phase)
        means[:, 1] = self.base + self.amplitude * np.sin(np.pi + phase)
        info = {
            "d": 2, "R": float(self.R), "L": 1.0,
            "S": float(np.sqrt((means ** 2).sum(axis=1)).max()),
            "B_T": B_T, "reward_bound": 1.0,
        }
        return Instance(means=means, info=info, evaluation={"synthetic": True, **variation(means)})

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return gaussian_rewards(instance.means, float(self.R), rng)
