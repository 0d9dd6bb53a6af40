"""SW-UCB (hedging Alg. 1) and UCB (OFUL), for K arms and for linear action sets.

Linear action sets (an environment that provides feature vectors D_t) run
:func:`linear_sw_ucb_segment`: eqs. (2), (3), (5) with V^{-1} kept by rank-one
updates (see :mod:`bandits.algorithms.sliding_window_least_squares`). Without
features the K arms are the basis vectors and the kernel below is used.

With arms e_1..e_K the sliding-window ridge estimate of eq. (2) is diagonal:
V_{t-1} = lambda I + diag(N_{t-1}(i)) over the last w rounds, so
theta_hat_t(i) = (sum of arm i's rewards in the window) / (lambda + N_{t-1}(i)) and
||e_i||_{V^{-1}} = 1 / sqrt(lambda + N_{t-1}(i)). Line 5 of Alg. 1 (eq. (5)) picks
argmax_i theta_hat_t(i) + beta ||e_i||_{V^{-1}}, with beta of eq. (3); ties go to
the lowest index. Line 7 drops round t - w from the window.

Options (each a config key):

* ``estimator: ridge`` (default; eqs. (2), (3), (5) with ``lam`` > 0) or
  ``pinv`` (eqs. (21)-(22): lambda = 0, Moore-Penrose pseudo-inverse,
  beta = R sqrt(2 ln(2 d T^2))).
* ``unseen_index`` (``pinv`` only): the pseudo-inverse gives an arm unseen in the
  window estimate 0 and bonus 0, so SW-UCB can stick to one arm. ``inf``
  (default, a documented deviation) gives such an arm an infinite index;
  ``zero`` is the paper taken literally.
* ``window``: an integer, ``opt`` (w_opt of eq. (101), needs B_T) or ``obl``
  (w_obl = ceil(w_bar)). Both are capped at T.
* ``window_scale``: multiplies the ``opt`` / ``obl`` window (default 1, the
  paper's value). Only for sensitivity sweeps (README, "Figure 2(b)").
* ``delta``: default 1/T (spec §5).

UCB is the same kernel with an unbounded window and OFUL's growing radius
beta_t = R sqrt(d ln((1 + n L^2 / lambda) / delta)) + sqrt(lambda) S, where n is
the number of observations so far (eq. (3) with w replaced by n; Abbasi-Yadkori
et al. 2011, Thm. 2).

The window's running sums are recomputed from the ring buffer every w rounds so
that add/remove rounding error cannot accumulate (amortised O(1)).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.sliding_window_least_squares import window_push, window_state
from bandits.algorithms.common import (argmax_lowest, check_delta, check_window, check_known_overrides, known_constants,
                                       resolve_delta)
from bandits.algorithms.tuning import (confidence_radius, karmed_radius, window_obl,
                                       window_opt)
from bandits.errors import ConfigError, require_choice, require_float


@njit(cache=True)
def sw_ucb_segment(rewards, start, stop, window, lam, beta, oful, R, d, L, S, delta,
                   pinv, unseen_inf, actions):
    """Run K-armed SW-UCB from scratch on rounds [start, stop); write actions[t].

    Returns the realised reward collected on the segment (used by BOB)."""
    K = rewards.shape[1]
    n_rounds = stop - start
    cap = min(window, n_rounds)
    if cap < 1:
        cap = 1
    buf_a = np.zeros(cap, dtype=np.int64)
    buf_r = np.zeros(cap, dtype=np.float64)
    counts = np.zeros(K, dtype=np.float64)
    sums = np.zeros(K, dtype=np.float64)
    index = np.empty(K, dtype=np.float64)
    filled = 0
    pos = 0
    total = 0.0
    b = beta
    sqrt_lam_S = math.sqrt(lam) * S if lam > 0 else 0.0
    for t in range(start, stop):
        if oful:
            b = R * math.sqrt(d * math.log((1.0 + filled * L * L / lam) / delta)) + sqrt_lam_S
        for a in range(K):
            if pinv:
                if counts[a] > 0:
                    index[a] = sums[a] / counts[a] + b / math.sqrt(counts[a])
                elif unseen_inf:
                    index[a] = np.inf
                else:
                    index[a] = 0.0
            else:
                denom = lam + counts[a]
                index[a] = sums[a] / denom + b / math.sqrt(denom)
        arm = argmax_lowest(index)
        y = rewards[t, arm]
        actions[t] = arm
        total += y
        if filled == cap:
            old = buf_a[pos]
            counts[old] -= 1.0
            sums[old] -= buf_r[pos]
        else:
            filled += 1
        buf_a[pos] = arm
        buf_r[pos] = y
        counts[arm] += 1.0
        sums[arm] += y
        pos += 1
        if pos == cap:
            pos = 0
            if filled == cap:
                for a in range(K):
                    sums[a] = 0.0
                for i in range(cap):
                    sums[buf_a[i]] += buf_r[i]
    return total


@njit(cache=True)
def linear_sw_ucb_segment(feats, rewards, start, stop, window, lam, beta, oful, R, d, L, S, delta, actions):
    """Linear SW-UCB (Alg. 1) from scratch on rounds [start, stop). ``feats`` is
    (T, K, d) or (1, K, d) (the same D_t every round). theta_hat = V^{-1} b (line 4),
    argmax x^T theta_hat + beta ||x||_{V^{-1}} (line 5, lowest index on ties), and the
    window update of line 7 in O(d^2) (sliding_window_least_squares). Returns the
    realised reward of the segment."""
    K = rewards.shape[1]
    Tf = feats.shape[0]
    cap = max(1, min(window, stop - start))
    buf_x, buf_y, V, Vinv, bvec, u = window_state(cap, d, lam)
    theta = np.zeros(d)
    index = np.empty(K)
    tri = np.empty(d * (d + 1) // 2)
    xt = np.empty((d, K))
    mean = np.empty(K)
    quad = np.empty(K)
    pos, filled, since = 0, 0, 0
    total = 0.0
    b = beta
    sqrt_lam_S = math.sqrt(lam) * S
    for t in range(start, stop):
        if oful:
            b = R * math.sqrt(d * math.log((1.0 + filled * L * L / lam) / delta)) + sqrt_lam_S
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += Vinv[i, j] * bvec[j]
            theta[i] = s
        # ||x||^2_{V^-1} = sum_i x_i^2 Vinv_ii + 2 sum_{i<j} x_i x_j Vinv_ij: the upper triangle once
        n = 0
        for i in range(d):
            tri[n] = Vinv[i, i]
            n += 1
            for j in range(i + 1, d):
                tri[n] = 2.0 * Vinv[i, j]
                n += 1
        f = t if Tf > 1 else 0
        # actions along the inner loops (x transposed) so the compiler vectorises across them
        for k in range(K):
            for i in range(d):
                xt[i, k] = feats[f, k, i]
            mean[k] = 0.0
            quad[k] = 0.0
        n = 0
        for i in range(d):
            ti = theta[i]
            c = tri[n]
            for k in range(K):
                mean[k] += xt[i, k] * ti
                quad[k] += xt[i, k] * xt[i, k] * c
            n += 1
            for j in range(i + 1, d):
                c = tri[n]
                for k in range(K):
                    quad[k] += xt[i, k] * xt[j, k] * c
                n += 1
        for k in range(K):
            index[k] = mean[k] + b * math.sqrt(max(quad[k], 0.0))
        arm = argmax_lowest(index)
        y = rewards[t, arm]
        actions[t] = arm
        total += y
        pos, filled, since = window_push(feats[f, arm], y, buf_x, buf_y, pos, filled, since, lam, V, Vinv,
                                         bvec, u)
    return total


def _check_common(algo) -> None:
    require_float("algo.lam", algo.lam, minimum=0.0)
    require_choice("algo.estimator", algo.estimator, {"ridge", "pinv"})
    require_choice("algo.unseen_index", algo.unseen_index, {"inf", "zero"})
    if algo.estimator == "ridge" and float(algo.lam) <= 0:
        raise ConfigError(f"algo.lam must be > 0 for estimator=ridge (eqs. (2)-(3) divide by it), got {algo.lam}.")
    check_delta(algo.delta)
    check_known_overrides(algo)


class SlidingWindowUCB:
    """SW-UCB, hedging Alg. 1 / eqs. (2), (3), (5) on basis vectors (K-armed, §8.2).

    ``window``: int, ``"opt"`` (eq. (101) with the known B_T) or ``"obl"``.
    """

    problem_kinds = ("karmed", "linear", "pricing")

    def __init__(self, window="obl", lam: float = 1.0, delta: float | None = None,
                 estimator: str = "ridge", unseen_index: str = "inf",
                 R: float | None = None, L: float | None = None, S: float | None = None,
                 B_T: float | None = None, window_scale: float = 1.0):
        self.window = window
        self.window_scale = window_scale
        self.lam = lam
        self.delta = delta
        self.estimator = estimator
        self.unseen_index = unseen_index
        self.R = R
        self.L = L
        self.S = S
        self.B_T = B_T

    def check_params(self) -> None:
        check_window(self.window)
        require_float("algo.window_scale", self.window_scale, minimum=0.0, strict=True)
        _check_common(self)

    def resolve(self, T: int, info: dict) -> dict:
        """Derived constants for a horizon T (recorded with every result)."""
        c = known_constants(self, info)
        if info.get("linear") and self.estimator == "pinv":
            raise ConfigError("algo.estimator=pinv (eqs. (21)-(22)) is for K arms; this environment offers "
                              "linear action sets: use estimator=ridge.")
        lam = float(self.lam)
        delta = resolve_delta(self.delta, T)
        tune = dict(d=c["d"], R=c["R"], L=c["L"], S=c["S"], lam=lam if lam > 0 else 1.0)
        if self.window in ("opt", "obl"):
            w = window_opt(T, c["B_T"], **tune) if self.window == "opt" else window_obl(T, **tune)
            if self.window_scale != 1.0:
                w = int(min(T, max(1, round(w * float(self.window_scale)))))
        else:
            w = int(self.window)
        if self.estimator == "pinv":
            beta = karmed_radius(c["R"], c["d"], T)
        else:
            beta = confidence_radius(c["R"], c["d"], w, c["L"], lam, delta, c["S"])
        return {"window": int(w), "beta": beta, "delta": delta, "lam": lam, **c}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        p = self.resolve(T, info)
        self.derived_ = p
        actions = np.empty(T, dtype=np.int64)
        if features is None:
            sw_ucb_segment(rewards, 0, T, p["window"], p["lam"], p["beta"], False, p["R"], p["d"],
                           p["L"], p["S"], p["delta"], self.estimator == "pinv",
                           self.unseen_index == "inf", actions)
        else:
            linear_sw_ucb_segment(features, rewards, 0, T, p["window"], p["lam"], p["beta"], False, p["R"],
                                  p["d"], p["L"], p["S"], p["delta"], actions)
        return actions


class UCB:
    """UCB for linear bandits (OFUL, Abbasi-Yadkori et al. 2011) on basis vectors:
    SW-UCB with an unbounded window and the growing radius of Thm. 2 (see module doc)."""

    problem_kinds = ("karmed", "linear", "pricing")

    def __init__(self, lam: float = 1.0, delta: float | None = None, R: float | None = None,
                 L: float | None = None, S: float | None = None):
        self.lam = lam
        self.delta = delta
        self.R = R
        self.L = L
        self.S = S

    estimator = "ridge"
    unseen_index = "inf"

    def check_params(self) -> None:
        _check_common(self)

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        c = known_constants(self, {**info, "B_T": info.get("B_T", 0.0)})
        delta = resolve_delta(self.delta, T)
        self.derived_ = {"window": T, "delta": delta, "lam": float(self.lam), **c}
        actions = np.empty(T, dtype=np.int64)
        if features is None:
            sw_ucb_segment(rewards, 0, T, T, float(self.lam), 0.0, True, c["R"], c["d"], c["L"],
                           c["S"], delta, False, True, actions)
        else:
            linear_sw_ucb_segment(features, rewards, 0, T, T, float(self.lam), 0.0, True, c["R"], c["d"],
                                  c["L"], c["S"], delta, actions)
        return actions
