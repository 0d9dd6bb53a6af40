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
  same rejection rule applies (``draw: uniform``, the default);
* ``null`` with ``draw: geo`` / ``geo_worst`` / ``geo_worst_unif``: the random problems of
  Gerogiannis, Huang & Veeravalli (2024; their code, Grimoid/Is-BB-NS-RL-Feasible,
  ``problems.cpp``), written from that code in distribution (our streams, not their
  generator), one row per piece of the drawn change points:

  - ``geo`` (their ``ProblemGeo`` / ``ProblemGeoUnif``): first piece (U + U') / 2 per arm
    (U, U' uniform on [0, 1)); at each change a number L uniform on {1, ..., K} of arms,
    a uniformly random subset, each moves by a gap uniform on [``gap_min``, ``gap_max``),
    negative with probability 1/2, reflected (mu - gap instead of mu + gap) when mu + gap
    leaves [0, 1]; the other arms keep their means;
  - ``geo_worst`` (``WorstProblemGeo``): first piece 0.3 + 0.005 U per arm; at each change
    the worst arm (the last index among the lowest means) jumps to the best mean plus
    0.05 U (redrawn while above 1; a redraw at or above 0.99 ends the climb), the other
    arms keep their means; once the climb has ended, the piece is reshuffled: K values
    0.3 + 0.005 U sorted, the previous best arm (first index) takes the smallest, the
    previous worst arm (first index) the largest, arms 1..K-2 the sorted values of their
    rank, arms 0 and K-1 keep what the first step gave them (their code's loop, quirks
    included). Every change makes the worst arm the best: a detector must see each one;
  - ``geo_worst_unif`` (``WorstProblemGeoUnif``): the same with their Unif variant's
    constants: first piece 0.3005 + 0.0045 U, jumps 0.005 + 0.045 U.

Change points (``change_points``; round indices t = 0..T-1 where a new piece starts):

* ``even``: piece j starts at floor(j T / (Upsilon_T + 1));
* ``random``: Upsilon_T distinct rounds drawn uniformly from 1..T-1;
* a list of fractions of T in (0, 1), increasing (``[0.25, 0.5]``), so a sweep over T
  keeps the shape of the problem;
* a list of integer rounds >= 1, increasing (``[1000, 2500]``): the rounds where the new
  pieces start, the same at every T (each must be below T); a published problem with
  explicit change times. Fractions and rounds are not mixed;
* ``bernoulli`` (drawn means only): every round 1..T-1 is a change point independently
  with probability rho (redrawn until there is at least one), so the pieces have
  geometric lengths: Gerogiannis et al.'s ``create_change_points``, drawn as a binomial
  count and a uniform set of that many rounds (the same distribution);
* ``bernoulli_even`` (drawn means only): their Unif variant: the number m of changes of
  ``bernoulli``, redrawn until m + 1 >= rho T, then piece c starts at c floor(T / (m + 1))
  (the remainder of T joins the last piece; their ``ProblemUnif``).

rho is ``change_prob``, or T^(-``change_exponent``) (their rho = T^(-xi)); one of the two
is set for ``bernoulli`` / ``bernoulli_even``, and ``n_changes`` is then not used.

What a learner may be told (the keys of its ``needs()``): Upsilon_T, the size of
the smallest change (``min_change`` = min over change points of the largest move of
an arm's mean there, max_a |mu_a(after) - mu_a(before)|: the change a detector must
see, :func:`bandits.environments.change_points.smallest_change`; CUSUM's epsilon
and M-UCB's delta are read from it), the variation budget
B_T (realised sum_t max_a |mu_a(t+1) - mu_a(t)|, the
K-armed budget of hedging §8.2), S_switches = Upsilon_T + 1 pieces, R = 1/2 (a
[0, 1] reward is 1/2-sub-Gaussian), L = 1, S = max_t ||mu(t)||_2 and
``reward_range`` = (0, 1). The change points themselves go to the evaluation only
(and to ``oracle_restart_ucb``, which declares them as oracle knowledge).
"""

from __future__ import annotations

import math

import numpy as np

from bandits.environments import change_points
from bandits.environments.base import Instance, bernoulli_noise, bernoulli_rewards, drawn_in_blocks, variation
from bandits.errors import ConfigError, require_choice, require_float, require_int

MAX_REDRAWS = 10_000
MODES = {"even", "random", "bernoulli", "bernoulli_even"}
DRAWN_COUNT = {"bernoulli", "bernoulli_even"}  # the number of changes is drawn with the instance
DRAWS = {"uniform", "geo", "geo_worst", "geo_worst_unif"}
WORST_SPREAD = 0.005  # geo_worst: first piece 0.3 + 0.005 U (WorstProblemGeo)
WORST_JUMP = 0.05  # geo_worst: the worst arm jumps to the best mean + 0.05 U
WORST_UNIF_FLOOR = 0.005  # geo_worst_unif: jumps 0.005 + 0.045 U, first piece 0.3005 + 0.0045 U


class PiecewiseBernoulli:
    name = "piecewise_bernoulli"
    problem_kinds = ("karmed",)

    def problem_kind(self) -> str:
        return "karmed"

    def __init__(self, K: int = 5, n_changes: int = 4, means=None, change_points="even",
                 low: float = 0.0, high: float = 1.0, min_gap: float = 0.0, shift: float = 1.0,
                 draw: str = "uniform", gap_min: float = 0.1, gap_max: float = 0.4,
                 change_prob: float | None = None, change_exponent: float | None = None):
        self.K = K
        self.n_changes = n_changes
        self.means = means
        self.change_points = change_points
        self.low = low
        self.high = high
        self.min_gap = min_gap
        self.shift = shift
        self.draw = draw
        self.gap_min = gap_min
        self.gap_max = gap_max
        self.change_prob = change_prob
        self.change_exponent = change_exponent

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
        """Upsilon_T when it is fixed by the config (not for the bernoulli processes)."""
        rows = self._rows()
        return int(rows.shape[0]) - 1 if rows is not None else int(self.n_changes)

    def _drawn_count(self) -> bool:
        return isinstance(self.change_points, str) and self.change_points in DRAWN_COUNT

    def _rho(self, T: int) -> float:
        if self.change_prob is not None:
            return float(self.change_prob)
        return float(T) ** (-float(self.change_exponent))

    @staticmethod
    def _explicit(cp) -> np.ndarray | None:
        """The list form of ``change_points`` as floats, or None for a mode name."""
        if isinstance(cp, str):
            return None
        try:
            return np.asarray(list(cp), dtype=np.float64)
        except (TypeError, ValueError):
            raise ConfigError(f"env.change_points must be {', '.join(sorted(MODES))}, a list of fractions of T "
                              f"or a list of rounds, got {cp!r}.") from None

    @staticmethod
    def _are_rounds(fr: np.ndarray) -> bool:
        return len(fr) > 0 and bool((fr >= 1).all())

    def check_params(self, T: int) -> None:
        rows = self._rows()
        require_choice("env.draw", self.draw, DRAWS)
        if rows is not None and self.draw != "uniform":
            raise ConfigError(f"env.draw={self.draw} draws the means: it cannot be used with explicit env.means.")
        if self._drawn_count():
            self._check_rate(T, rows)
        if rows is None and self.draw == "geo":
            lo_gap = require_float("env.gap_min", self.gap_min, minimum=0.0)
            hi_gap = require_float("env.gap_max", self.gap_max, minimum=0.0)
            if not lo_gap <= hi_gap <= 0.5:
                raise ConfigError(f"env.gap_min <= env.gap_max <= 0.5 is required (a reflected move stays in "
                                  f"[0, 1]), got [{lo_gap}, {hi_gap}].")
        if rows is None and self.draw != "uniform":
            require_int("env.K", self.K, minimum=2)
            if not self._drawn_count():
                require_int("env.n_changes (Upsilon_T)", self.n_changes, minimum=0)
                if self.changes() >= T:
                    raise ConfigError(f"{self.changes()} change points do not fit in T={T} rounds.")
            self._check_change_points(T, None if self._drawn_count() else self.changes())
            return
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
        if self._drawn_count():
            return
        n = self.changes()
        if n >= T:
            raise ConfigError(f"{n} change points do not fit in T={T} rounds.")
        self._check_change_points(T, n)

    def _check_rate(self, T: int, rows) -> None:
        if rows is not None:
            raise ConfigError(f"env.change_points={self.change_points} draws the number of changes: it needs drawn "
                              "means (env.means: null).")
        if (self.change_prob is None) == (self.change_exponent is None):
            raise ConfigError(f"env.change_points={self.change_points} needs exactly one of env.change_prob "
                              f"(rho) and env.change_exponent (rho = T^-xi).")
        if self.change_prob is not None:
            rho = require_float("env.change_prob", self.change_prob, minimum=0.0, strict=True)
        else:
            require_float("env.change_exponent", self.change_exponent, minimum=0.0, strict=True)
            rho = self._rho(T)
        if not rho < 1:
            raise ConfigError(f"the change probability rho must lie in (0, 1), got {rho:g} at T={T}.")
        if T < 3:
            raise ConfigError(f"env.change_points={self.change_points} needs T >= 3, got {T}.")
        if self.change_points == "bernoulli_even" and rho * T > T / 2:
            raise ConfigError(f"env.change_points=bernoulli_even with rho T = {rho * T:g} > T / 2 leaves pieces "
                              "of one round: lower rho.")

    def _check_change_points(self, T: int, n: int | None) -> None:
        cp = self.change_points
        fr = self._explicit(cp)
        if fr is None:
            if cp not in MODES:
                raise ConfigError(f"env.change_points must be {', '.join(sorted(MODES))}, a list of fractions of T "
                                  f"or a list of rounds, got {cp!r}.")
            if cp in DRAWN_COUNT and n is not None:
                raise ConfigError(f"env.change_points={cp} draws the number of changes: it needs drawn means.")
            return
        if self._are_rounds(fr):
            if len(fr) != n or (fr != np.floor(fr)).any() or (np.diff(fr) <= 0).any():
                raise ConfigError(f"env.change_points as rounds must list {n} increasing integers >= 1 (one per "
                                  f"change), got {list(cp)}.")
            if fr[-1] >= T:
                raise ConfigError(f"env.change_points {list(cp)} has a change at round {int(fr[-1])}, not below "
                                  f"T={T}.")
            return
        if len(fr) != n or not ((fr > 0) & (fr < 1)).all() or (np.diff(fr) <= 0).any():
            raise ConfigError(f"env.change_points must list {n} increasing fractions of T in (0, 1) (one per change), "
                              f"or {n} increasing integer rounds >= 1, got {list(cp)}.")
        starts = np.floor(fr * T).astype(np.int64)
        if (np.diff(np.r_[0, starts]) <= 0).any():
            raise ConfigError(f"env.change_points {list(cp)} put two changes in the same round at T={T}.")

    def footprint(self, T: int) -> int:
        """Bytes of the instance in memory (the means; a trial's rewards take as much)."""
        return 8 * T * self.n_arms()

    # ------------------------------------------------------------------ the instance
    def _starts(self, T: int, rng: np.random.Generator) -> np.ndarray:
        if self._drawn_count():
            return self._bernoulli_starts(T, rng)
        n = self.changes()
        if self.change_points == "even":
            return np.floor(np.arange(n + 1) * T / (n + 1)).astype(np.int64)
        if self.change_points == "random":
            return np.r_[0, np.sort(rng.choice(np.arange(1, T), size=n, replace=False))].astype(np.int64)
        fr = self._explicit(self.change_points)
        if self._are_rounds(fr):
            return np.r_[0, fr].astype(np.int64)
        return np.r_[0, np.floor(fr * T)].astype(np.int64)

    def _bernoulli_starts(self, T: int, rng: np.random.Generator) -> np.ndarray:
        """Gerogiannis et al.'s change points: each of the rounds 1..T-1 with probability rho
        (at least one), or, for ``bernoulli_even``, that many evenly spaced (at least rho T - 1)."""
        rho = self._rho(T)
        least = 1 if self.change_points == "bernoulli" else max(1, math.ceil(rho * T - 1))
        for _ in range(MAX_REDRAWS):
            m = int(rng.binomial(T - 1, rho))
            if m >= least:
                break
        else:
            raise ConfigError(f"no draw of the change points reached {least} changes in {MAX_REDRAWS} tries.")
        if self.change_points == "bernoulli":
            return np.r_[0, np.sort(rng.choice(np.arange(1, T), size=m, replace=False))].astype(np.int64)
        return (np.arange(m + 1) * (T // (m + 1))).astype(np.int64)

    def _draw(self, rng: np.random.Generator, pieces: int | None = None) -> np.ndarray:
        K, gap, shift = int(self.K), float(self.min_gap), float(self.shift)
        n = int(self.n_changes) if pieces is None else pieces - 1
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

    def _draw_geo(self, rng: np.random.Generator, pieces: int) -> np.ndarray:
        """Gerogiannis et al.'s ProblemGeo means, one row per piece."""
        K, lo, hi = int(self.K), float(self.gap_min), float(self.gap_max)
        rows = np.empty((pieces, K))
        rows[0] = (rng.random(K) + rng.random(K)) * 0.5
        for k in range(1, pieces):
            rows[k] = rows[k - 1]
            moving = rng.permutation(K)[: int(rng.integers(1, K + 1))]
            for a in np.sort(moving):
                gap = lo + (hi - lo) * rng.random()
                if rng.random() <= 0.5:
                    gap = -gap
                prev = rows[k - 1, a]
                rows[k, a] = prev - gap if (prev + gap > 1 or prev + gap < 0) else prev + gap
        return rows

    def _draw_worst(self, rng: np.random.Generator, pieces: int) -> np.ndarray:
        """Gerogiannis et al.'s WorstProblemGeo (and its Unif variant's constants), step by step."""
        K = int(self.K)
        floor_ = WORST_UNIF_FLOOR if self.draw == "geo_worst_unif" else 0.0
        init = lambda size: 0.3 + floor_ / 10 + (WORST_SPREAD - floor_ / 10) * rng.random(size)  # noqa: E731
        rows = np.empty((pieces, K))
        rows[0] = init(K)
        for k in range(1, pieces):
            prev = rows[k - 1]
            worst = K - 1 - int(np.argmin(prev[::-1]))  # the last index among the lowest (their <=)
            best_value = float(prev.max())
            rows[k] = 0.0  # their column starts at 0 and only the branches below fill it
            if best_value < 1:
                value = best_value + floor_ + (WORST_JUMP - floor_) * rng.random()
                while value > 1:
                    value = best_value + floor_ + (WORST_JUMP - floor_) * rng.random()
                    if value >= 0.99:
                        best_value = 1.0
                        break
                rows[k] = prev
                rows[k, worst] = value
            if best_value == 1:
                low_arm, high_arm = int(np.argmin(prev)), int(np.argmax(prev))  # first indices
                vals = np.sort(init(K))
                for a in range(K):
                    if vals[a] == vals.min():
                        rows[k, high_arm] = vals[a]
                    elif vals[a] == vals.max():
                        rows[k, low_arm] = vals[a]
                    else:
                        rows[k, a] = vals[a]
        return rows

    def instance(self, T: int, rng: np.random.Generator) -> Instance:
        rows = self._rows()
        if self.draw != "uniform" or self._drawn_count():  # change points first, then one row per piece
            starts = self._starts(T, rng)
            if self.draw == "geo":
                rows = self._draw_geo(rng, len(starts))
            elif self.draw in ("geo_worst", "geo_worst_unif"):
                rows = self._draw_worst(rng, len(starts))
            else:
                rows = self._draw(rng, len(starts))
        else:
            if rows is None:
                rows = self._draw(rng)
            starts = self._starts(T, rng)
        piece = np.searchsorted(starts, np.arange(T), side="right") - 1
        means = rows[piece]
        jumps = np.abs(np.diff(rows, axis=0))
        info = {"d": int(rows.shape[1]), "R": 0.5, "L": 1.0, "S": float(np.sqrt((rows ** 2).sum(axis=1)).max()),
                "B_T": float(jumps.max(axis=1).sum()) if len(jumps) else 0.0,
                "Upsilon_T": int(len(starts) - 1), "S_switches": int(len(starts)),
                "min_change": change_points.smallest_change(means, starts[1:]),
                "reward_bound": 1.0, "reward_range": (0.0, 1.0)}
        evaluation = {"synthetic": True, **change_points.record(starts[1:], "generator"), **variation(means),
                      "trial_noise": bernoulli_noise(means)}
        return Instance(means=means, info=info, evaluation=evaluation)

    def rewards(self, instance: Instance, rng: np.random.Generator) -> np.ndarray:
        return bernoulli_rewards(instance.means, rng)

    def reward_blocks(self, instance: Instance, rng: np.random.Generator, rounds: int):
        """:meth:`rewards` in blocks of rounds, the same numbers."""
        return drawn_in_blocks(lambda m: bernoulli_rewards(m, rng), instance.means, rounds)
