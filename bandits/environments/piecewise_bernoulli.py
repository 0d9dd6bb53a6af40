"""Piecewise-stationary Bernoulli bandits: the standard problem of the change-detection
literature (Garivier & Moulines 2011; Liu et al. 2018; Cao et al. 2019; Besson et al.
2022).

K arms; arm a pays Bernoulli(mu_a(t)) rewards, and the vector mu(t) is constant
between change points. Upsilon_T change points split the rounds into Upsilon_T + 1
pieces.

Means (``means``):

* a list of rows, one row of K means per piece (``n_changes`` is then the number of
  rows minus one);
* ``null``: drawn from the instance's stream, each piece's means i.i.d. uniform on
  [``low``, ``high``]; with ``min_gap`` > 0 a piece is redrawn until its best and
  second-best arms differ by at least ``min_gap`` (rejection, at most 10^4 draws) and
  consecutive pieces differ somewhere by at least ``min_gap``. With ``shift`` = s in
  (0, 1], a new piece moves a fraction s of the way from the previous piece to a fresh
  draw (small changes for small s; s = 1, the default, is a fresh draw), then the
  same rejection rule applies.

Change points (``change_points``; round indices t = 0..T-1 where a new piece starts):

* ``even``: piece j starts at floor(j T / (Upsilon_T + 1));
* ``random``: Upsilon_T distinct rounds drawn uniformly from 1..T-1;
* a list of fractions of T in (0, 1), increasing (``[0.25, 0.5]``), so a sweep over T
  keeps the shape of the problem.

What a learner may be told (the keys of its ``needs()``): Upsilon_T, the size of
the smallest change (``min_change`` = min over change points of the largest move of
an arm's mean there, max_a |mu_a(after) - mu_a(before)|: the change a detector must
see; CUSUM's epsilon and M-UCB's delta are read from it), the variation budget
B_T (realised sum_t max_a |mu_a(t+1) - mu_a(t)|, the
K-armed budget of hedging §8.2), S_switches = Upsilon_T + 1 pieces, R = 1/2 (a
[0, 1] reward is 1/2-sub-Gaussian), L = 1, S = max_t ||mu(t)||_2 and
``reward_range`` = (0, 1). The change points themselves go to the evaluation only
(and to ``oracle_restart_ucb``, which declares them as oracle knowledge).
"""

from __future__ import annotations

import numpy as np

from bandits.environments.base import Instance, bernoulli_rewards, variation
from bandits.errors import ConfigError, require_float, require_int

MAX_REDRAWS = 10_000


class PiecewiseBernoulli:
    name = "piecewise_bernoulli"
    problem_kinds = ("karmed",)

    def problem_kind(self) -> str:
        return "karmed"

    def __init__(self, K: int = 5, n_changes: int = 4, means=None, change_points="even",
                 low: float = 0.0, high: float = 1.0, min_gap: float = 0.0, shift: float = 1.0):
        self.K = K
        self.n_changes = n_changes
        self.means = means
        self.change_points = change_points
        self.low = low
        self.high = high
        self.min_gap = min_gap
        self.shift = shift

    # ------------------------------------------------------------------ validation
    def _rows(self) -> np.ndarray | None:
        if self.means is None:
            return None
        try:
            rows = np.asarray([list(r) for r in self.means], dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"env.means must be a list of rows of K numbers (one row per piece), "
                              f"got {self.means!r}.") from None
        if rows.ndim != 2 or rows.shape[0] < 1 or rows.shape[1] < 2:
            raise ConfigError(f"env.means must be a list of rows with at least 2 arms each, got shape {rows.shape}.")
        if not np.isfinite(rows).all() or rows.min() < 0 or rows.max() > 1:
            raise ConfigError("env.means must hold Bernoulli means in [0, 1]; "
                              f"got values in [{np.nanmin(rows):g}, {np.nanmax(rows):g}].")
        return rows

    def n_arms(self) -> int:
        rows = self._rows()
        return int(rows.shape[1]) if rows is not None else int(self.K)

    def changes(self) -> int:
        rows = self._rows()
        return int(rows.shape[0]) - 1 if rows is not None else int(self.n_changes)

    def check_params(self, T: int) -> None:
        rows = self._rows()
        if rows is None:
            require_int("env.K", self.K, minimum=2)
            require_int("env.n_changes (Upsilon_T)", self.n_changes, minimum=0)
            lo = require_float("env.low", self.low, minimum=0.0)
            hi = require_float("env.high", self.high, minimum=0.0)
            if not lo < hi <= 1.0:
                raise ConfigError(f"env.low < env.high <= 1 is required (Bernoulli means), got [{lo}, {hi}].")
            shift = require_float("env.shift", self.shift, minimum=0.0, strict=True)
            if shift > 1:
                raise ConfigError(f"env.shift must lie in (0, 1] (the fraction of the way to a fresh draw), "
                                  f"got {shift}.")
            gap = require_float("env.min_gap", self.min_gap, minimum=0.0)
            if gap >= hi - lo:
                raise ConfigError(f"env.min_gap={gap} cannot be met by means drawn in [{lo}, {hi}].")
        n = self.changes()
        if n >= T:
            raise ConfigError(f"{n} change points do not fit in T={T} rounds.")
        cp = self.change_points
        if isinstance(cp, str):
            if cp not in ("even", "random"):
                raise ConfigError(f"env.change_points must be even, random or a list of fractions of T, got {cp!r}.")
            return
        try:
            fr = np.asarray(list(cp), dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"env.change_points must be even, random or a list of fractions of T, "
                              f"got {cp!r}.") from None
        if len(fr) != n or not ((fr > 0) & (fr < 1)).all() or (np.diff(fr) <= 0).any():
            raise ConfigError(f"env.change_points must list {n} increasing fractions of T in (0, 1) (one per change), "
                              f"got {list(cp)}.")
        starts = np.floor(fr * T).astype(np.int64)
        if (np.diff(np.r_[0, starts]) <= 0).any():
            raise ConfigError(f"env.change_points {list(cp)} put two changes in the same round at T={T}.")

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the means; a trial's rewards take as much)."""
        return 8 * T * self.n_arms()

    # ------------------------------------------------------------------ the instance
    def _starts(self, T: int, rng: np.random.Generator) -> np.ndarray:
        n = self.changes()
        if self.change_points == "even":
            return np.floor(np.arange(n + 1) * T / (n + 1)).astype(np.int64)
        if self.change_points == "random":
            return np.r_[0, np.sort(rng.choice(np.arange(1, T), size=n, replace=False))].astype(np.int64)
        return np.r_[0, np.floor(np.asarray(list(self.change_points), dtype=np.float64) * T)].astype(np.int64)

    def _draw(self, rng: np.random.Generator) -> np.ndarray:
        K, n, gap, shift = int(self.K), int(self.n_changes), float(self.min_gap), float(self.shift)
        lo, hi = float(self.low), float(self.high)
        rows = []
        for _ in range(n + 1):
            for _ in range(MAX_REDRAWS):
                row = rng.uniform(lo, hi, K)
                if rows and shift < 1.0:
                    row = (1.0 - shift) * rows[-1] + shift * row
                top = np.sort(row)[::-1]
                if gap <= 0 or (top[0] - top[1] >= gap and (not rows or np.abs(row - rows[-1]).max() >= gap)):
                    break
            else:
                raise ConfigError(f"no means with env.min_gap={gap} found in {MAX_REDRAWS} draws; lower it.")
            rows.append(row)
        return np.stack(rows)

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        rows = self._rows()
        if rows is None:
            rows = self._draw(rng)
        starts = self._starts(T, rng)
        piece = np.searchsorted(starts, np.arange(T), side="right") - 1
        means = rows[piece]
        jumps = np.abs(np.diff(rows, axis=0))
        info = {"d": int(rows.shape[1]), "R": 0.5, "L": 1.0, "S": float(np.sqrt((rows ** 2).sum(axis=1)).max()),
                "B_T": float(jumps.max(axis=1).sum()) if len(jumps) else 0.0,
                "Upsilon_T": int(len(starts) - 1), "S_switches": int(len(starts)),
                "min_change": float(jumps.max(axis=1).min()) if len(jumps) else 0.0,
                "reward_bound": 1.0, "reward_range": (0.0, 1.0)}
        evaluation = {"synthetic": True, "change_points": [int(c) for c in starts[1:]], **variation(means)}
        return Instance(means=means, info=info, evaluation=evaluation)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return bernoulli_rewards(instance.means, rng)
