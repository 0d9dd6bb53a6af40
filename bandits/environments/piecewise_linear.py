"""Piecewise-linear drifting linear bandit of hedging §9.1.2 (Figures 3 and 4).

The instance (drawn once from the experiment's root seed, fixed over trials):
``n_breakpoints`` = 30 points tau_1 < ... < tau_30 sampled without replacement
from {2, ..., T-1}, tau_0 = 1, tau_31 = T; 32 unit vectors v_0..v_31 uniform on
the sphere in R^d; theta_t = ((tau_{s+1} - t) v_s + (t - tau_s) v_{s+1}) /
(tau_{s+1} - tau_s) for tau_s <= t <= tau_{s+1}. The reward of action x is
<x, theta_t> + eta with eta ~ N(0, R^2); it can be negative.

Other paths (``theta_path``; the instance is then fully given, only fresh action sets are drawn):

* ``drawn`` (default): the hedging paper's path above;
* ``steps``: piecewise constant, theta_t = ``thetas[j]`` from round ``theta_changes[j-1]``
  (0-based; integer rounds, the same at every T, or fractions of T in (0, 1)) to the next
  change: an abrupt problem with explicit change times (Russac, Vernade & Cappe's notebook
  ``Experiments/exp_ABRUPT_ENV_NEW.ipynb``: theta = (1, 0), (-1, 0), (0, 1), (0, -1) from
  rounds 0, 1001, 2001, 3001);
* ``arc`` (d = 2): theta_t = ``arc_radius`` (cos a_t, sin a_t), a_t = a_0 + min(t, n) / n
  (a_1 - a_0), (a_0, a_1) = ``arc_angles``, n = ``arc_rounds``: a slow rotation, then a
  steady parameter (their ``exp_SLOW_ENV_NEW.ipynb``: a quarter turn from (1, 0) in 3000
  rounds, ``utils.generate_smooth_theta``).

Action sets (``action_set``):

* ``basis``: D_t = {e_1, ..., e_d} (Figure 3, d = 2): a d-armed bandit.
* ``fresh`` (default for Figure 4): the paper's "a random subset of 40 unit length
  vectors" read as ``n_actions`` fresh i.i.d. uniform unit vectors every round
  (spec §2; drawn with the instance, so fixed over trials).
* ``fixed``: one set of ``n_actions`` uniform unit vectors, offered every round.
* ``given``: ``action_vectors`` (a list of d-vectors), offered every round.
* ``fresh_box``: ``n_actions`` fresh vectors every round, each uniform on [-1, 1]^d and
  divided by its norm when that exceeds 1 (so in the unit ball, not on the sphere): the
  action sets of Russac, Vernade & Cappe's experiments (``environment_class.get_arms``).

Known constants: L = max action norm (1), S = max_t ||theta_t||_2, and B_T = the
realised sum_t ||theta_{t+1} - theta_t||_2 (spec §2), stored as ``B_T``.
Noise sd R = 0.1, as in §9.1.1 (§9.1.2 does not restate it).

A noise sd per piece (``R_pieces``, ``theta_path: steps`` only; not in the hedging paper):
the reward at round t is <x, theta_t> + R_j eta, eta ~ N(0, 1), R_j = ``R_pieces[j]`` for
the piece j that holds t, so a change can move the variance as well as the means: the
changing-variance experiment of Baudry, Russac & Cappe's SW-LB-SDA notebook
(``YRussac/LB-SDA``, ``Notebooks/expe_Gaussian.ipynb``, cell 6: sd 0.5, 0.25, 1, 0.5). It
replaces ``R``; a learner told R is told max_j R_j, a scale that holds at every round.
The draws are the same standard normals as with one R, each scaled by its round's sd.
"""

from __future__ import annotations

import numpy as np

from bandits.environments import change_points
from bandits.environments.base import Instance, gaussian_rewards, unit_vectors, variation
from bandits.errors import ConfigError, require_choice, require_float, require_int

ACTION_SETS = {"basis", "fresh", "fixed", "given", "fresh_box"}
THETA_PATHS = {"drawn", "steps", "arc"}


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
                 action_vectors=None, R: float = 0.1, theta_path: str = "drawn", thetas=None, theta_changes=None,
                 arc_angles=(0.0, 1.5707963267948966), arc_rounds: int = 1000, arc_radius: float = 1.0,
                 R_pieces=None):
        self.d = d
        self.n_breakpoints = n_breakpoints
        self.action_set = action_set
        self.n_actions = n_actions
        self.action_vectors = action_vectors
        self.R = R
        self.theta_path = theta_path
        self.thetas = thetas
        self.theta_changes = theta_changes
        self.arc_angles = arc_angles
        self.arc_rounds = arc_rounds
        self.arc_radius = arc_radius
        self.R_pieces = R_pieces

    def check_params(self, T: int) -> None:
        d = require_int("env.d", self.d, minimum=1)
        nb = require_int("env.n_breakpoints", self.n_breakpoints, minimum=0)
        require_choice("env.action_set", self.action_set, ACTION_SETS)
        require_float("env.R", self.R, minimum=0.0)
        if self.action_set == "basis" and d < 2:
            raise ConfigError("env.action_set=basis needs d >= 2 arms.")
        if self.action_set in ("fresh", "fixed", "fresh_box"):
            require_int("env.n_actions", self.n_actions, minimum=1)
        if self.action_set == "given":
            vecs = np.asarray(self.action_vectors if self.action_vectors is not None else [], dtype=float)
            if vecs.ndim != 2 or vecs.shape[0] < 1:
                raise ConfigError("env.action_set=given needs env.action_vectors: a list of d-vectors.")
            if vecs.shape[1] != d:
                raise ConfigError(f"env.action_vectors have dimension {vecs.shape[1]} but env.d={d}.")
        require_choice("env.theta_path", self.theta_path, THETA_PATHS)
        if self.R_pieces is not None and self.theta_path != "steps":
            raise ConfigError(f"env.R_pieces (a noise sd per piece) needs env.theta_path=steps, which has pieces; "
                              f"got theta_path={self.theta_path}. Use env.R for one sd.")
        if self.theta_path == "steps":
            thetas, _ = self._step_starts(T)
            if self.R_pieces is not None:
                self._piece_sds(len(thetas))
            return
        if self.theta_path == "arc":
            if d != 2:
                raise ConfigError(f"env.theta_path=arc rotates theta in the plane: it needs env.d=2, got {d}.")
            angles = list(self.arc_angles) if self.arc_angles is not None else []
            if len(angles) != 2:
                raise ConfigError(f"env.arc_angles must be [start, end] in radians, got {self.arc_angles!r}.")
            for a in angles:
                require_float("env.arc_angles", a)
            require_int("env.arc_rounds", self.arc_rounds, minimum=1)
            require_float("env.arc_radius", self.arc_radius, minimum=0.0)
            return
        if T < 3 or nb > T - 2:
            raise ConfigError(f"piecewise_linear needs T >= 3 and n_breakpoints <= T - 2 "
                              f"(breakpoints are drawn from {{2, ..., T-1}}); got T={T}, n_breakpoints={nb}.")

    def _step_starts(self, T: int) -> tuple[np.ndarray, np.ndarray]:
        """theta_path steps: the (pieces, d) thetas and the 0-based round where each piece starts."""
        try:
            thetas = np.asarray([list(v) for v in (self.thetas or [])], dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"env.thetas must be a list of d-vectors (one per piece), got {self.thetas!r}.") from None
        if thetas.ndim != 2 or thetas.shape[0] < 1 or thetas.shape[1] != int(self.d) or not np.isfinite(thetas).all():
            raise ConfigError(f"env.theta_path=steps needs env.thetas: a list of d={self.d} vectors, one per piece; "
                              f"got {self.thetas!r}.")
        try:
            at = np.asarray(list(self.theta_changes or []), dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"env.theta_changes must be a list of rounds or fractions of T, "
                              f"got {self.theta_changes!r}.") from None
        if len(at) != len(thetas) - 1:
            raise ConfigError(f"env.theta_changes must give {len(thetas) - 1} change(s), one per theta after the "
                              f"first; got {list(at)}.")
        if len(at) and (at >= 1).all() and (at == np.floor(at)).all():
            starts = at.astype(np.int64)
        elif len(at) and ((at > 0) & (at < 1)).all():
            starts = np.floor(at * T).astype(np.int64)
        elif len(at):
            raise ConfigError(f"env.theta_changes must be integer rounds >= 1 or fractions of T in (0, 1), "
                              f"not mixed; got {list(at)}.")
        else:
            starts = np.zeros(0, dtype=np.int64)
        if (np.diff(np.r_[0, starts]) <= 0).any() or (len(starts) and starts[-1] >= T):
            raise ConfigError(f"env.theta_changes {list(at)} must be increasing rounds in 1..T-1 at T={T}.")
        return thetas, np.r_[0, starts]

    def _piece_sds(self, pieces: int) -> np.ndarray:
        """R_pieces as an array: one finite sd >= 0 per piece."""
        try:
            sds = np.asarray(list(self.R_pieces), dtype=np.float64)
        except (TypeError, ValueError):
            sds = np.zeros(0)
        if sds.shape != (pieces,) or not np.isfinite(sds).all() or (sds < 0).any():
            raise ConfigError(f"env.R_pieces must give one noise sd >= 0 per piece ({pieces} pieces, as env.thetas); "
                              f"got {self.R_pieces!r}.")
        return sds

    def noise_sd(self, T: int) -> float | np.ndarray:
        """The noise sd: ``R``, or with ``R_pieces`` the sd of each round t = 0..T-1."""
        if self.R_pieces is None:
            return float(self.R)
        thetas, starts = self._step_starts(T)
        return self._piece_sds(len(thetas))[np.searchsorted(starts, np.arange(T), side="right") - 1]

    def _given_path(self, T: int) -> np.ndarray:
        """theta_t, t = 0..T-1, of the steps and arc paths."""
        if self.theta_path == "steps":
            thetas, starts = self._step_starts(T)
            return thetas[np.searchsorted(starts, np.arange(T), side="right") - 1]
        a0, a1 = (float(a) for a in self.arc_angles)
        n = int(self.arc_rounds)
        angle = a0 + np.minimum(np.arange(T), n) / n * (a1 - a0)
        return float(self.arc_radius) * np.stack([np.cos(angle), np.sin(angle)], axis=1)

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory: means, and the action sets when drawn per round."""
        d, n = int(self.d), int(self.n_actions)
        K = d if self.action_set == "basis" else n
        return 8 * T * K + (8 * T * n * d if self.action_set in ("fresh", "fresh_box") else 0)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        d = int(self.d)
        if self.theta_path == "drawn":
            inner = np.sort(rng.choice(np.arange(2, T), size=int(self.n_breakpoints), replace=False))
            taus = np.concatenate([[1], inner, [T]]).astype(np.float64)
            vertices = unit_vectors(rng, (len(taus), d))
            theta = interpolate(T, taus, vertices)
        else:
            theta = self._given_path(T)
            moved = np.flatnonzero(np.any(np.diff(theta, axis=0) != 0, axis=1)) + 1
            taus = np.r_[1, moved + 1, T].astype(np.float64) if self.theta_path == "steps" else np.array([1.0, T])
        if self.action_set == "basis":
            features = None
            means = theta.copy()
        else:
            if self.action_set == "fresh":
                features = unit_vectors(rng, (T, int(self.n_actions), d))
            elif self.action_set == "fresh_box":
                features = rng.uniform(-1.0, 1.0, (T, int(self.n_actions), d))
                features /= np.maximum(np.linalg.norm(features, axis=-1, keepdims=True), 1.0)
            elif self.action_set == "fixed":
                features = unit_vectors(rng, (1, int(self.n_actions), d))
            else:
                features = np.asarray(self.action_vectors, dtype=np.float64)[None, :, :]
            means = np.einsum("tkd,td->tk", features, theta) if features.shape[0] > 1 \
                else theta @ features[0].T
        var = variation(theta)
        sd = self.noise_sd(T)
        info = {"d": d, "R": float(np.max(sd)),
                "L": 1.0 if features is None else float(np.linalg.norm(features, axis=-1).max()),
                "S": float(np.linalg.norm(theta, axis=1).max()), "B_T": var["variation_l2"],
                "reward_bound": 1.0, "linear": features is not None}
        evaluation = {"synthetic": True, "breakpoints": taus.astype(int).tolist(), **var,
                      "trial_noise": float(np.max(sd)) > 0}
        extras = {} if self.R_pieces is None else {"noise_sd": sd}
        if self.theta_path == "steps":  # 0-based rounds of the new pieces
            evaluation.update(change_points.record([int(b) - 1 for b in taus[1:-1]], "generator"))
        else:  # theta drifts gradually between the breakpoints (or along the arc)
            evaluation.update(change_points.gradual())
        return Instance(means=np.ascontiguousarray(means), info=info, evaluation=evaluation, features=features,
                        extras=extras)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        if "noise_sd" in instance.extras:  # R_pieces: each round's draw scaled by its piece's sd
            noise = rng.standard_normal(instance.means.shape)
            noise *= instance.extras["noise_sd"][:, None]
            noise += instance.means
            return noise
        return gaussian_rewards(instance.means, float(self.R), rng)
