"""The two-armed sinusoid of hedging §9.1.1 (Figure 2), and its K-armed extension.

theta_t = (0.5 + 0.3 sin(5 B_T pi t / T), 0.5 + 0.3 sin(pi + 5 B_T pi t / T)),
t = 1..T, arms are the basis vectors e1, e2, noise N(0, R^2) with R = 0.1.

B_T = ``B_T_scale * T ** B_T_exponent``: Figure 2a uses B_T = 1 (scale 1,
exponent 0), Figure 2b B_T = T^(1/3) (exponent 1/3).

Options beyond the paper (the defaults are the paper's instance):

* ``K`` arms (default 2): arm k has the phase shift 2 pi k / K,
  mu_k(t) = base + amplitude sin(2 pi k / K + 5 B_T pi t / T); K = 2 gives the paper's
  phases 0 and pi exactly.
* ``noise: bernoulli`` (default ``gaussian``): rewards are Bernoulli with the
  sinusoid's means (which lie in [0.2, 0.8]), so the methods built for rewards in
  [0, 1] (kl-UCB, Thompson sampling, the Bernoulli GLR test) run on Figure 2's
  instance. The learner is then told ``reward_range`` = (0, 1) and R = 1/2 (a
  [0, 1] reward is 1/2-sub-Gaussian) instead of the Gaussian R.

The value handed to algorithms that "know B_T" (SW-UCB-opt, EXP3.S) is this
nominal B_T, as in the paper. The realised variation (infinity norm about 3 B_T,
2-norm about 4.2 B_T: the paper's "at most sqrt(2) B_T" undercounts) is recorded
with every result as ``variation_inf`` / ``variation_l2``.

A drifting instance has no change points. Our reading, for the algorithms tuned with
the number of changes and their size (recorded in the docs' fidelity table): the
rounds at which the best arm changes play the change points (4 at B_T = 1 for
K = 2: the changes that matter for the dynamic regret). The learner that knows them
is told ``Upsilon_T`` = their number and ``min_change`` = over the segments between
them, the smallest of the largest move of an arm's mean within the segment (0.3 =
the amplitude for K = 2). The rounds themselves go to the evaluation as
``change_points``, with ``change_points_source: best-arm switches`` (and to the oracle
restart reference).
"""

from __future__ import annotations

import numpy as np

from bandits.environments import change_points
from bandits.environments.base import (
    Instance,
    bernoulli_noise,
    bernoulli_rewards,
    drawn_in_blocks,
    gaussian_rewards,
    variation,
)
from bandits.errors import ConfigError, require_choice, require_float, require_int


def segment_change(means: np.ndarray, switches: np.ndarray) -> float:
    """The drifting reading of ``min_change``: over the segments between best-arm switches,
    the smallest of (the largest move of an arm's mean within the segment)."""
    sizes = [float((seg.max(axis=0) - seg.min(axis=0)).max()) for seg in np.split(means, switches) if len(seg)]
    return min(sizes) if sizes else 0.0


class Sinusoid:
    name = "sinusoid"
    problem_kinds = ("karmed",)

    def problem_kind(self) -> str:
        return "karmed"

    def __init__(self, B_T_scale: float = 1.0, B_T_exponent: float = 0.0, R: float = 0.1,
                 base: float = 0.5, amplitude: float = 0.3, K: int = 2, noise: str = "gaussian"):
        self.B_T_scale = B_T_scale
        self.B_T_exponent = B_T_exponent
        self.R = R
        self.base = base
        self.amplitude = amplitude
        self.K = K
        self.noise = noise

    def check_params(self, T: int) -> None:
        require_float("env.B_T_scale (B_T)", self.B_T_scale, minimum=0.0)
        require_float("env.B_T_exponent", self.B_T_exponent)
        require_float("env.R", self.R, minimum=0.0)
        base = require_float("env.base", self.base)
        amp = require_float("env.amplitude", self.amplitude, minimum=0.0)
        require_int("env.K", self.K, minimum=2)
        require_choice("env.noise", self.noise, {"gaussian", "bernoulli"})
        if self.noise == "bernoulli" and not 0.0 <= base - amp <= base + amp <= 1.0:
            raise ConfigError(f"env.noise=bernoulli needs means in [0, 1]: base +- amplitude spans "
                              f"[{base - amp:g}, {base + amp:g}].")

    def budget(self, T: int) -> float:
        return float(self.B_T_scale) * float(T) ** float(self.B_T_exponent)

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the means; a trial's rewards take as much)."""
        return 8 * T * int(self.K)

    def instance(self, T: int, rng: np.random.Generator | None = None) -> Instance:
        B_T, K = self.budget(T), int(self.K)
        t = np.arange(1, T + 1, dtype=np.float64)
        phase = 5.0 * B_T * np.pi * t / T
        means = np.empty((T, K))
        for k in range(K):
            means[:, k] = self.base + self.amplitude * np.sin(2.0 * np.pi * k / K + phase)  # K = 2: 0 and pi
        best = means.argmax(axis=1)
        switches = np.flatnonzero(np.diff(best) != 0) + 1  # rounds (0-based) where the best arm changes
        info = {
            "d": K, "R": float(self.R) if self.noise == "gaussian" else 0.5, "L": 1.0,
            "S": float(np.sqrt((means ** 2).sum(axis=1)).max()),
            "B_T": B_T, "reward_bound": 1.0, "Upsilon_T": int(len(switches)),
            "min_change": segment_change(means, switches),
        }
        if self.noise == "bernoulli":
            info["reward_range"] = (0.0, 1.0)
        evaluation = {"synthetic": True, **change_points.record(switches, "best-arm switches"), **variation(means),
                      "trial_noise": bernoulli_noise(means) if self.noise == "bernoulli" else float(self.R) > 0}
        return Instance(means=means, info=info, evaluation=evaluation)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        if self.noise == "bernoulli":
            return bernoulli_rewards(instance.means, rng)
        return gaussian_rewards(instance.means, float(self.R), rng)

    def reward_blocks(self, instance: Instance, rng: np.random.Generator, rounds: int):
        """:meth:`rewards` in blocks of rounds, the same numbers."""
        if self.noise == "bernoulli":
            return drawn_in_blocks(lambda m: bernoulli_rewards(m, rng), instance.means, rounds)
        return drawn_in_blocks(lambda m: gaussian_rewards(m, float(self.R), rng), instance.means, rounds)
