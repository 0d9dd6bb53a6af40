"""Environments for the hedging paper's other settings (§4, §8.3, §8.4).

* :class:`DriftingLogistic` (``drifting_logistic``, §8.3): a fixed action set D of
  ``n_actions`` unit vectors in R^d whose first d are the basis vectors (the
  a_1..a_d of the forced exploration, lambda_0 = 1), the rest uniform on the
  sphere; reward Bernoulli(mu(<x, theta_t>)) with mu the logistic link (Y_max = 1).
  theta_t follows ``path``: ``rotation`` (theta_t = S (cos phi_t u + sin phi_t v),
  phi_t = 2 pi ``turns`` t / T, u and v orthonormal) or ``piecewise_linear`` (the
  §9.1.2 construction, scaled to norm ``S``). B_T told to algorithms is the
  realised 2-norm variation.
* :class:`DriftingSemiBandit` (``drifting_semibandit``, §8.4): d items with means
  theta_t(i) = 0.5 + 0.4 sin(2 pi f t / T + phase_i) in [0.1, 0.9], f chosen so the
  sup-norm budget sum_t ||theta_{t+1} - theta_t||_inf is about B_T =
  ``B_T_scale`` T^``B_T_exponent``; W_t(i) ~ Bernoulli(theta_t(i)); the family is
  every subset of size m (``family: top_m``) or a ``given`` list of subsets.
* :class:`LowerBound` (``lower_bound``, §4, Appendix 11): blocks of
  H = ceil((d T)^(2/3) B_T^(-2/3)) rounds; in each block theta is drawn uniformly
  from {+-sqrt(d / (4 H))}^d; actions are the 2^d unit vectors s / sqrt(d),
  s in {+-1}^d (they contain the best direction of every theta); Gaussian noise of
  sd R = 1.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from bandits.environments import change_points
from bandits.environments.base import Instance, bernoulli_noise, gaussian_rewards, unit_vectors, variation
from bandits.environments.piecewise_linear import interpolate
from bandits.errors import ConfigError, require_choice, require_float, require_int
from bandits.numerics import sigmoid


class DriftingLogistic:
    name = "drifting_logistic"
    problem_kinds = ("glb",)

    def problem_kind(self) -> str:
        return "glb"

    def __init__(self, d: int = 5, n_actions: int = 20, path: str = "rotation", turns: float = 2.0, S: float = 2.0,
                 n_breakpoints: int = 10, link: str = "logistic"):
        self.d = d
        self.n_actions = n_actions
        self.path = path
        self.turns = turns
        self.S = S
        self.n_breakpoints = n_breakpoints
        self.link = link

    def check_params(self, T: int) -> None:
        d = require_int("env.d", self.d, minimum=2)
        n = require_int("env.n_actions", self.n_actions, minimum=1)
        if n < d:
            raise ConfigError(f"env.n_actions={n} must be at least d={d} (the basis vectors a_1..a_d).")
        require_choice("env.path", self.path, {"rotation", "piecewise_linear"})
        require_float("env.turns", self.turns, minimum=0.0)
        require_float("env.S", self.S, minimum=0.0, strict=True)
        require_int("env.n_breakpoints", self.n_breakpoints, minimum=0)
        if self.link != "logistic":
            raise ConfigError(f"env.link={self.link!r}: only the logistic link (strictly increasing, as §8.3 "
                              "requires) is implemented.")

    def footprint(self, T: int) -> int:
        return 8 * T * int(self.n_actions)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        d, S = int(self.d), float(self.S)
        D = np.vstack([np.eye(d), unit_vectors(rng, (int(self.n_actions) - d, d))])
        if self.path == "rotation":
            q, _ = np.linalg.qr(rng.standard_normal((d, 2)))
            phi = 2 * np.pi * float(self.turns) * np.arange(1, T + 1) / T
            theta = S * (np.cos(phi)[:, None] * q[:, 0] + np.sin(phi)[:, None] * q[:, 1])
        else:
            inner = np.sort(rng.choice(np.arange(2, T), size=int(self.n_breakpoints), replace=False))
            taus = np.concatenate([[1], inner, [T]]).astype(float)
            theta = S * interpolate(T, taus, unit_vectors(rng, (len(taus), d)))
        means = sigmoid(theta @ D.T)
        var = variation(theta)
        info = {"d": d, "L": 1.0, "S": float(np.linalg.norm(theta, axis=1).max()), "B_T": var["variation_l2"],
                "R": 0.5, "reward_bound": 1.0, "reward_range": (0.0, 1.0), "link": "logistic", "linear": True,
                "glb": True}
        evaluation = {"synthetic": True, **var, **change_points.gradual(),  # theta drifts gradually
                      "trial_noise": bernoulli_noise(means)}
        return Instance(means=means, info=info, evaluation=evaluation, features=D[None, :, :])

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(instance.means.shape) < instance.means).astype(np.float64)


def family_matrix(d: int, m: int, family) -> np.ndarray:
    """The feasible family as 0/1 rows; (0, d) means every subset of size m (top-m)."""
    if family == "top_m":
        return np.zeros((0, d), dtype=np.int8)
    rows = np.zeros((len(family), d), dtype=np.int8)
    for r, subset in enumerate(family):
        rows[r, list(subset)] = 1
    return rows


class DriftingSemiBandit:
    name = "drifting_semibandit"
    problem_kinds = ("semibandit",)

    def problem_kind(self) -> str:
        return "semibandit"

    def __init__(self, d: int = 20, m: int = 4, family="top_m", B_T_scale: float = 1.0, B_T_exponent: float = 0.0):
        self.d = d
        self.m = m
        self.family = family
        self.B_T_scale = B_T_scale
        self.B_T_exponent = B_T_exponent

    def check_params(self, T: int) -> None:
        d = require_int("env.d", self.d, minimum=1)
        m = require_int("env.m", self.m, minimum=1)
        if d > 62:
            raise ConfigError(f"env.d={d}: at most 62 items (actions are stored as 64-bit masks).")
        if m > d:
            raise ConfigError(f"env.m={m} must not exceed the number of items d={d}.")
        require_float("env.B_T_scale", self.B_T_scale, minimum=0.0)
        require_float("env.B_T_exponent", self.B_T_exponent)
        if self.family != "top_m":
            fam = list(self.family) if self.family is not None else []
            if not fam:
                raise ConfigError("env.family is empty: give top_m or a non-empty list of item subsets.")
            for subset in fam:
                items = list(subset)
                if not items or len(items) > m or min(items) < 0 or max(items) >= d or len(set(items)) != len(items):
                    raise ConfigError(f"env.family: subset {items} must hold 1..m={m} distinct items in 0..{d - 1}.")

    def footprint(self, T: int) -> int:
        return 8 * T * int(self.d)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        d, m = int(self.d), int(self.m)
        budget = float(self.B_T_scale) * float(T) ** float(self.B_T_exponent)
        f = budget / (0.8 * np.pi)  # the fastest of d shifted sines moves ~0.8 pi f / T per round
        phase = rng.uniform(0, 2 * np.pi, d)
        t = np.arange(1, T + 1)
        means = 0.5 + 0.4 * np.sin(2 * np.pi * f * t[:, None] / T + phase[None, :])
        fam = family_matrix(d, m, self.family)
        if fam.shape[0] == 0:
            optimal = -np.sort(-means, axis=1)[:, :m].sum(axis=1)
        else:
            optimal = (means @ fam.T.astype(float)).max(axis=1)
        var = variation(means)
        info = {"d": d, "m": m, "family": fam, "semibandit": True, "B_T": var["variation_inf"], "R": 0.5,
                "reward_bound": float(m), "reward_range": (0.0, 1.0)}
        evaluation = {"synthetic": True, **var, **change_points.gradual(),  # the means drift gradually
                      "trial_noise": bernoulli_noise(means), "comparator": "best action per round"}
        return Instance(means=means, info=info, evaluation=evaluation, optimal=optimal)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(instance.means.shape) < instance.means).astype(np.float64)


class LowerBound:
    name = "lower_bound"
    problem_kinds = ("linear",)

    def problem_kind(self) -> str:
        return "linear"

    def __init__(self, d: int = 5, B_T_scale: float = 1.0, B_T_exponent: float = 0.0, R: float = 1.0):
        self.d = d
        self.B_T_scale = B_T_scale
        self.B_T_exponent = B_T_exponent
        self.R = R

    def block_length(self, T: int) -> int:
        B = float(self.B_T_scale) * float(T) ** float(self.B_T_exponent)
        return int(min(T, math.ceil((int(self.d) * T) ** (2 / 3) * B ** (-2 / 3))))

    def check_params(self, T: int) -> None:
        d = require_int("env.d", self.d, minimum=1)
        if d > 12:
            raise ConfigError(f"env.d={d}: the 2^d sign actions are enumerated; use d <= 12.")
        require_float("env.B_T_scale", self.B_T_scale, minimum=0.0, strict=True)
        require_float("env.B_T_exponent", self.B_T_exponent)
        require_float("env.R", self.R, minimum=0.0)

    def footprint(self, T: int) -> int:
        return 8 * T * 2 ** int(self.d)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        d, H = int(self.d), self.block_length(T)
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))
        D = signs / math.sqrt(d)
        n_blocks = math.ceil(T / H)
        block_theta = rng.choice([-1.0, 1.0], size=(n_blocks, d)) * math.sqrt(d / (4 * H))
        theta = block_theta[np.arange(T) // H]
        var = variation(theta)
        B = float(self.B_T_scale) * float(T) ** float(self.B_T_exponent)
        info = {"d": d, "L": 1.0, "S": float(np.linalg.norm(theta, axis=1).max()), "B_T": var["variation_l2"],
                "R": float(self.R), "reward_bound": 1.0, "linear": True}
        evaluation = {"B_T_nominal": B, "H": H, "synthetic": True,
                      "lower_bound_curve": d ** (2 / 3) * B ** (1 / 3) * T ** (2 / 3), **var,
                      # the block starts where theta's signs change (the mean of every sign action moves)
                      **change_points.record(change_points.from_means(theta), "generator"),
                      "trial_noise": float(self.R) > 0}
        return Instance(means=theta @ D.T, info=info, evaluation=evaluation, features=D[None, :, :])

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return gaussian_rewards(instance.means, float(self.R), rng)
