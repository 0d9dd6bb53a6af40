"""SW-UCB (hedging Alg. 1) and UCB (OFUL), for K arms and for linear action sets.

Linear action sets (an environment that provides feature vectors D_t) run
:func:`linear_ucb_segment`: eqs. (2), (3), (5) with V^{-1} kept by rank-one
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

UCB is OFUL: an unbounded window and the growing radius
beta_t = R sqrt(d ln((1 + n L^2 / lambda) / delta)) + sqrt(lambda) S, where n is
the number of observations so far (eq. (3) with w replaced by n; Abbasi-Yadkori
et al. 2011, Thm. 2; :func:`bandits.algorithms.tuning.oful_radii`).

Two kernels, each reading like Alg. 1: :func:`sw_ucb_segment` on basis vectors (ridge,
eqs. (2), (3), (5); eqs. (21)-(22) with lambda = 0; UCB with OFUL's radii) and
:func:`linear_ucb_segment` for action vectors. The window is
:mod:`bandits.algorithms.window` (its running sums are recomputed exactly every w
rounds, so add/remove rounding error cannot accumulate). Each kernel runs on rounds
[start, stop) from scratch and returns the realised reward of the segment, which BOB
feeds to its EXP3 layer.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import (
    check_delta,
    check_known_overrides,
    check_window,
    known_constants,
    own_or_told,
    resolve_delta,
)
from bandits.algorithms.sliding_window_least_squares import window_push, window_state
from bandits.algorithms.tuning import (
    OFULConstants,
    confidence_radius,
    karmed_radius,
    oful_radii,
    window_obl,
    window_opt,
)
from bandits.algorithms.window import POS, advance, is_full, new_window
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

# ----------------------------------------------------------------------------- K arms (basis vectors)
# The kernels take the confidence radius of every round, ``betas[t - start]``: constant
# for SW-UCB (eq. (3) with the window w), growing for UCB (OFUL, eq. (3) with w = the
# observations so far, :func:`bandits.algorithms.tuning.oful_radii`). One kernel serves
# both, with no mode flag.

@njit(cache=True)
def observe_arm(rows, state, counts, sums, arm, y):
    """Line 7 of Alg. 1 on basis vectors: arm ``arm`` paid ``y``; the window's counts
    N(i) and reward sums drop the round that leaves. True when the window wrapped: the
    caller then refreshes the sums exactly (:func:`refresh_arm_sums`)."""
    slot = state[POS]
    if is_full(rows, state):
        old = int(rows[slot, 0])
        counts[old] -= 1.0
        sums[old] -= rows[slot, 1]
    rows[slot, 0] = arm
    rows[slot, 1] = y
    counts[arm] += 1.0
    sums[arm] += y
    return advance(rows, state)


@njit(cache=True)
def refresh_arm_sums(rows, sums):
    """The window's reward sums recomputed from its rows (no add/remove drift)."""
    for a in range(sums.shape[0]):
        sums[a] = 0.0
    for i in range(rows.shape[0]):
        sums[int(rows[i, 0])] += rows[i, 1]


@njit(cache=True)
def sw_ucb_segment(rewards, start, stop, window, lam, betas, unseen, actions):
    """K-armed SW-UCB (or UCB) on basis vectors: index sum_i / (lambda + N(i)) +
    beta_t / sqrt(lambda + N(i)) over the last ``window`` rounds, eqs. (2), (3), (5). With
    lambda = 0 it is the eq. (21)-(22) variant, where an arm unseen in the window has no
    estimate: its index is ``unseen`` (+inf, the deviation, or 0, the paper literally)."""
    K = rewards.shape[1]
    rows, state = new_window(min(window, stop - start), 2)
    counts, sums, index = np.zeros(K), np.zeros(K), np.empty(K)
    total = 0.0
    for t in range(start, stop):
        beta = betas[t - start]
        for a in range(K):
            denom = lam + counts[a]
            index[a] = sums[a] / denom + beta / math.sqrt(denom) if denom > 0 else unseen
        arm = argmax_lowest(index)
        actions[t] = arm
        total += rewards[t, arm]
        if observe_arm(rows, state, counts, sums, arm, rewards[t, arm]):
            refresh_arm_sums(rows, sums)
    return total


# ----------------------------------------------------------------------------- linear action sets

@njit(cache=True)
def linear_ucb_index(D, theta, A, beta, tri, xt, mean, quad, index):
    """index[k] = x_k^T theta + beta sqrt(x_k^T A x_k) over the actions x_k (rows of D), A
    symmetric: line 5 of Alg. 1 with A = V^{-1} (eq. (5)); D-LinUCB passes A = V^{-1} V~ V^{-1}.
    tri, xt, mean, quad are scratch (d(d+1)/2, (d, K), K, K)."""
    K, d = D.shape
    # ||x||^2_A = sum_i x_i^2 A_ii + 2 sum_{i<j} x_i x_j A_ij: the upper triangle once
    n = 0
    for i in range(d):
        tri[n] = A[i, i]
        n += 1
        for j in range(i + 1, d):
            tri[n] = 2.0 * A[i, j]
            n += 1
    # actions along the inner loops (x transposed) so the compiler vectorises across them
    for k in range(K):
        for i in range(d):
            xt[i, k] = D[k, i]
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
        index[k] = mean[k] + beta * math.sqrt(max(quad[k], 0.0))


@njit(cache=True)
def index_scratch(K, d):
    """Work arrays of :func:`linear_ucb_indices` for K actions in dimension d."""
    return np.zeros(d), np.empty(d * (d + 1) // 2), np.empty((d, K)), np.empty(K), np.empty(K)


@njit(cache=True, inline="always")
def linear_ucb_indices(X, Vinv, bvec, beta, scratch, index):
    """Lines 4-5 of Alg. 1 for the actions x_k (rows of X, (K, d)): theta_hat = V^{-1} b and
    index[k] = x_k^T theta_hat + beta ||x_k||_{V^{-1}} (:func:`linear_ucb_index` with
    A = V^{-1}). ``scratch`` from :func:`index_scratch`."""
    theta, tri, xt, mean, quad = scratch
    d = X.shape[1]
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Vinv[i, j] * bvec[j]
        theta[i] = s
    linear_ucb_index(X, theta, Vinv, beta, tri, xt, mean, quad, index)


@njit(cache=True)
def linear_ucb_segment(feats, rewards, start, stop, window, lam, betas, actions):
    """Linear SW-UCB (or UCB), Alg. 1: ``feats`` is (T, K, d), or (1, K, d) when D_t never
    changes. theta_hat = V^{-1} b (line 4), argmax x^T theta_hat + beta_t ||x||_{V^{-1}}
    (line 5, :func:`linear_ucb_indices`), and the window update of line 7 in O(d^2)
    (sliding_window_least_squares)."""
    K, d = rewards.shape[1], feats.shape[2]
    rows, state, V, Vinv, bvec, u = window_state(min(window, stop - start), d, lam)
    scratch, index = index_scratch(K, d), np.empty(K)
    total = 0.0
    for t in range(start, stop):
        f = t if feats.shape[0] > 1 else 0
        linear_ucb_indices(feats[f], Vinv, bvec, betas[t - start], scratch, index)
        arm = argmax_lowest(index)
        actions[t] = arm
        total += rewards[t, arm]
        window_push(feats[f, arm], rewards[t, arm], rows, state, lam, V, Vinv, bvec, u)
    return total


# ----------------------------------------------------------------------------- the algorithms

def check_ridge(algo) -> None:
    """lambda of eq. (2), delta of eq. (3) and the constants the algorithm may set itself."""
    require_float("algo.lam", algo.lam, minimum=0.0)
    check_delta(algo.delta)
    check_known_overrides(algo)


def check_estimator(algo) -> None:
    """``estimator`` ridge (eqs. (2)-(3), lambda > 0) or pinv (eqs. (21)-(22)), with its
    option for unseen arms."""
    require_choice("algo.estimator", algo.estimator, {"ridge", "pinv"})
    require_choice("algo.unseen_index", algo.unseen_index, {"inf", "zero"})
    if algo.estimator == "ridge" and float(algo.lam) <= 0:
        raise ConfigError(f"algo.lam must be > 0 for estimator=ridge (eqs. (2)-(3) divide by it), got {algo.lam}.")


def unseen_value(algo) -> float:
    """The index of an arm unseen in the window under eqs. (21)-(22) (lambda = 0)."""
    return np.inf if algo.unseen_index == "inf" else 0.0


def refuse_pinv_on_vectors(algo, info) -> None:
    if info.get("linear") and algo.estimator == "pinv":
        raise ConfigError("algo.estimator=pinv (eqs. (21)-(22)) is for K arms; this environment offers "
                          "linear action sets: use estimator=ridge.")


class SlidingWindowUCB:
    """SW-UCB, hedging Alg. 1 / eqs. (2), (3), (5), on basis vectors (K-armed, §8.2) or
    on linear action sets. ``window``: int, ``"opt"`` (eq. (101) with the known B_T) or
    ``"obl"``.
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

    def needs(self) -> tuple:
        """What the environment must tell: R, L, S for eq. (3) (unless set here), and
        B_T for the window w_opt of eq. (101)."""
        return own_or_told(self, ("d", "R", "L", "S") + (("B_T",) if self.window == "opt" else ()))

    def check_params(self) -> None:
        check_window(self.window)
        require_float("algo.window_scale", self.window_scale, minimum=0.0, strict=True)
        check_ridge(self)
        check_estimator(self)

    def resolve(self, T: int, info: dict) -> dict:
        """Derived constants for a horizon T (recorded with every result)."""
        refuse_pinv_on_vectors(self, info)
        c = known_constants(self, info, ("R", "L", "S") + (("B_T",) if self.window == "opt" else ()))
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
        p = self.derived_ = self.resolve(T, info)
        actions = np.empty(T, dtype=np.int64)
        betas = np.full(T, p["beta"])
        if features is not None:
            linear_ucb_segment(features, rewards, 0, T, p["window"], p["lam"], betas, actions)
        else:
            sw_ucb_segment(rewards, 0, T, p["window"], p["lam"] if self.estimator == "ridge" else 0.0, betas,
                           unseen_value(self), actions)
        return actions


class UCB:
    """UCB for linear bandits (OFUL, Abbasi-Yadkori et al. 2011), on basis vectors or on
    linear action sets: an unbounded window and the growing radius of Thm. 2."""

    problem_kinds = ("karmed", "linear", "pricing")

    def __init__(self, lam: float = 1.0, delta: float | None = None, R: float | None = None,
                 L: float | None = None, S: float | None = None):
        self.lam = lam
        self.delta = delta
        self.R = R
        self.L = L
        self.S = S

    def needs(self) -> tuple:
        return own_or_told(self, ("d", "R", "L", "S"))

    def check_params(self) -> None:
        check_ridge(self)
        if float(self.lam) <= 0:
            raise ConfigError(f"algo.lam must be > 0 (OFUL's ridge divides by it), got {self.lam}.")

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T = rewards.shape[0]
        c = known_constants(self, info)
        delta = resolve_delta(self.delta, T)
        self.derived_ = {"window": T, "delta": delta, "lam": float(self.lam), **c}
        betas = oful_radii(OFULConstants(c["R"], c["d"], c["L"], c["S"], delta, float(self.lam)), T)
        actions = np.empty(T, dtype=np.int64)
        if features is None:
            sw_ucb_segment(rewards, 0, T, T, float(self.lam), betas, np.inf, actions)
        else:
            linear_ucb_segment(features, rewards, 0, T, T, float(self.lam), betas, actions)
        return actions
