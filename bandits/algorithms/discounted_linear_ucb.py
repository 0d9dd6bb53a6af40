"""D-LinUCB: discounted linear UCB (Russac, Vernade & Cappe, "Weighted linear bandits
for non-stationary environments", NeurIPS 2019, arXiv 1909.09146), on linear action
sets and, with the basis vectors as actions, on K arms.

**Source status.** The paper's text beyond its introduction was not readable here (the
search corpora hold its abstract and first section). The steps below are Algorithm 1 as
we recall it, checked line by line against the authors' public code
(YRussac/WeightedLinearBandits, ``D_LinUCB_class.py``, and the gamma of their
experiment notebooks); no code was copied. Theorem / corollary numbers are recalled,
not verified (docs/templates/fidelity/linear.md lists every reading).

Algorithm 1 (rounds t = 1..T; V_{t-1}, V~_{t-1}, b_{t-1} hold the t - 1 observations):

    init        b = 0, V = lambda I, V~ = lambda I, theta_hat = 0
    radius      beta_{t-1} = sqrt(lambda) S + sigma sqrt(2 log(1/delta)
                    + d log(1 + L^2 (1 - gamma^(2(t-1))) / (lambda d (1 - gamma^2))))
    index       UCB(a) = a^T theta_hat + beta_{t-1} sqrt(a^T V^{-1} V~ V^{-1} a)
    play        A_t = argmax_a UCB(a) (ties: the lowest index, bandits.numerics.argmax_lowest)
    update      V  <- gamma V + A_t A_t^T + (1 - gamma) lambda I
                V~ <- gamma^2 V~ + A_t A_t^T + (1 - gamma^2) lambda I
                b  <- gamma b + X_t A_t,   theta_hat = V^{-1} b

i.e. V_t = lambda I + sum_s gamma^(t-s) A_s A_s^T (the weighted least squares with weights
gamma^(-s) and regulariser lambda gamma^(-t), rescaled by gamma^t) and
V~_t = lambda I + sum_s gamma^(2(t-s)) A_s A_s^T; the confidence set is the ellipsoid of
V_{t-1} V~_{t-1}^{-1} V_{t-1} (the paper's deviation inequality for weighted least
squares). sigma is the noise's sub-Gaussian constant (our R), L >= ||a||, S >= ||theta_t||.
At gamma = 1 the ratio (1 - gamma^(2n)) / (1 - gamma^2) is its limit n, V~ = V, and the
index is OFUL's with the radius sqrt(lambda) S + sigma sqrt(2 log(1/delta) + d log(1 + n
L^2 / (lambda d))) (Abbasi-Yadkori et al. 2011, Thm. 2 with the determinant bound).

Constants (config ``bandits/conf/algo/d_linucb.yaml``):

* ``gamma``: ``opt`` (default) = 1 - (B_T / (d T))^(2/3), the paper's tuning with the
  variation budget B_T (recalled as its corollary to the regret theorem; the authors'
  notebooks use exactly this), so D-LinUCB is a *known-B_T* algorithm. B_T = 0 gives
  gamma = 1 (no discount); B_T >= d T has no tuned gamma in (0, 1) and is refused. A
  number in (0, 1] sets gamma directly.
* ``lam`` = 1: lambda; the paper leaves it free (its experiments use 0.1, the authors'
  notebooks); 1 is the value of every other linear algorithm here (SW-UCB, OFUL).
* ``delta``: null = 1/T (the repo's convention, as for SW-UCB and OFUL: the regret bound
  holds with probability 1 - delta); the authors' experiments use 0.01.
* ``R`` (sigma), ``L``, ``S``: null = the environment's values; set them to override.
* ``radius``: the confidence level inside beta. ``paper`` (default) = delta at every round,
  the paper's time-uniform radius. Wu (2026, "Time-Uniform Self-Normalized Concentration for
  Discounted Least Squares: Limits and Corrections", arXiv 2608.19643) shows by a scalar
  Gaussian counterexample (§3.1) that this bounded radius is crossed with probability one, so
  it holds at each fixed time only (eq. (4)); its two corrections are ``horizon`` = delta / T
  at every round (§6.1, a union bound over the known horizon: 2 log T more under the root)
  and ``anytime`` = delta_n = delta / (2 n (1 + ln n)^2) after n observations (eq. (5), the
  allocation pi_t summing to at most 1). At n = 0 (round 1) the noise sum is 0 and eq. (5)
  has no term; we use pi_1 there (ours: any level holds at n = 0).

On K arms (``features is None``) the actions are the basis vectors e_1..e_K, d = K, and
the same kernel runs on the (1, K, K) identity.

**Numerics and cost.** The (1 - gamma) lambda I term of the V update is full rank, so
V_t^{-1} is NOT a rank-one update of V_{t-1}^{-1}: (gamma V + c I + a a^T)^{-1} needs
the spectrum of V for the shift c I, and no Sherman-Morrison / Woodbury step is exact
(the same holds for V~ and for the rescaled form with weights gamma^(-s), whose
regulariser lambda gamma^(-t) I changes every round). The kernel therefore keeps V, V~
and b by the recursions of Algorithm 1, O(d^2) per round, and each round factors V
exactly: a hand-written Cholesky V = C C^T, P = C^{-1} by forward substitution,
V^{-1} = P^T P, theta_hat = V^{-1} b and M = V^{-1} V~ V^{-1}, about 2.5 d^3 flops
(~300 at d = 5). Scoring K actions costs K (d(d+1)/2 + d) multiply-adds
(``linear_ucb_index``, shared with SW-UCB / OFUL; 800 at d = 5, K = 40), so the round
costs O(d^3 + K d^2): the d^3 part is below the scoring cost for d <= K / 3 or so. No
inverse is carried from round to round, so there is nothing to drift and nothing to
rebuild: the only recursive state, V, V~, b, is multiplied by gamma (gamma^2) every
round, so a rounding error is damped and the relative error stays of order
eps / (1 - gamma) (eps t at gamma = 1). Tested after 1e5 rounds against a direct solve
built from the weighted sums (relative error <= 1e-8; tests/test_discounted_linear_ucb.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_delta, check_known_overrides, known_constants, own_or_told, resolve_delta
from bandits.algorithms.sliding_window_ucb import linear_ucb_index
from bandits.errors import ConfigError, require_choice, require_float
from bandits.numerics import argmax_lowest

# ----------------------------------------------------------------------------- constants

def gamma_opt(T: int, d: int, B_T: float) -> float:
    """The paper's tuned discount 1 - (B_T / (d T))^(2/3); 1 when B_T = 0."""
    ratio = float(B_T) / (d * float(T))
    gamma = 1.0 - ratio ** (2.0 / 3.0)
    if not 0.0 < gamma <= 1.0:
        raise ConfigError(f"algo.gamma=opt needs B_T < d T (gamma = 1 - (B_T / (d T))^(2/3) in (0, 1]); "
                          f"B_T={B_T}, d={d}, T={T} give {gamma}: set algo.gamma to a number.")
    return gamma


@njit(cache=True)
def discounted_radius(n, gamma, lam, sigma, d, L, S, delta):
    """beta after n observations (Algorithm 1 with t - 1 = n):
    sqrt(lambda) S + sigma sqrt(2 log(1/delta) + d log(1 + L^2 (1 - gamma^(2n)) / (lambda d (1 - gamma^2)))),
    the ratio taken as its limit n at gamma = 1."""
    ratio = float(n) if gamma == 1.0 else (1.0 - gamma ** (2 * n)) / (1.0 - gamma * gamma)
    return math.sqrt(lam) * S + sigma * math.sqrt(2.0 * math.log(1.0 / delta)
                                                  + d * math.log(1.0 + L * L * ratio / (lam * d)))


@njit(cache=True)
def discounted_radii(T, gamma, lam, sigma, d, L, S, delta):
    """beta_{t-1} for the rounds t = 1..T (index t - 1 = the observations so far), at one
    confidence level delta (``radius`` = paper or horizon)."""
    out = np.empty(T)
    for n in range(T):
        out[n] = discounted_radius(n, gamma, lam, sigma, d, L, S, delta)
    return out


@njit(cache=True)
def discounted_radii_anytime(T, gamma, lam, sigma, d, L, S, delta):
    """beta_{t-1} for the rounds t = 1..T at Wu's level delta_n = delta / (2 n (1 + ln n)^2)
    after n observations (eq. (5)), n = 0 taken as n = 1."""
    out = np.empty(T)
    for n in range(T):
        m = max(n, 1)
        out[n] = discounted_radius(n, gamma, lam, sigma, d, L, S, delta / (2.0 * m * (1.0 + math.log(m)) ** 2))
    return out


RADIUS_RULES = ("paper", "horizon", "anytime")


def radius_schedule(T, gamma, lam, sigma, d, L, S, delta, radius: str) -> np.ndarray:
    """beta_{t-1}, t = 1..T, under the ``radius`` rule (module doc): the paper's level delta,
    delta / T (Wu §6.1) or delta_n (Wu eq. (5))."""
    if radius == "anytime":
        return discounted_radii_anytime(T, gamma, lam, sigma, d, L, S, delta)
    return discounted_radii(T, gamma, lam, sigma, d, L, S, delta / T if radius == "horizon" else delta)


# ----------------------------------------------------------------------------- the kernel

@njit(cache=True)
def discounted_push(x, y, gamma, lam, V, Vt, b):
    """The update of Algorithm 1: V <- gamma V + x x^T + (1 - gamma) lambda I,
    V~ <- gamma^2 V~ + x x^T + (1 - gamma^2) lambda I, b <- gamma b + y x."""
    d = x.shape[0]
    g2 = gamma * gamma
    for i in range(d):
        b[i] = gamma * b[i] + y * x[i]
        for j in range(d):
            xx = x[i] * x[j]
            V[i, j] = gamma * V[i, j] + xx
            Vt[i, j] = g2 * Vt[i, j] + xx
        V[i, i] += (1.0 - gamma) * lam
        Vt[i, i] += (1.0 - g2) * lam


@njit(cache=True)
def discounted_solve(V, Vt, b, P, Vinv, W, M, theta):
    """theta = V^{-1} b and M = V^{-1} V~ V^{-1}, exactly, from V = C C^T (hand-written
    Cholesky; V >= lambda I is positive definite). P, Vinv, W are d x d scratch."""
    d = V.shape[0]
    # Cholesky factor C, lower triangular, stored in W; its reciprocal diagonal in P's
    for j in range(d):
        s = V[j, j]
        for k in range(j):
            s -= W[j, k] * W[j, k]
        W[j, j] = math.sqrt(s)
        r = 1.0 / W[j, j]
        P[j, j] = r
        for i in range(j + 1, d):
            s = V[i, j]
            for k in range(j):
                s -= W[i, k] * W[j, k]
            W[i, j] = s * r
    # P = C^{-1} (lower triangular) by forward substitution
    for j in range(d):
        for i in range(j):
            P[i, j] = 0.0
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s -= W[i, k] * P[k, j]
            P[i, j] = s * P[i, i]
    # V^{-1} = P^T P (symmetric: the upper triangle, mirrored)
    for i in range(d):
        for j in range(i, d):
            s = 0.0
            for k in range(j, d):
                s += P[k, i] * P[k, j]
            Vinv[i, j] = s
            Vinv[j, i] = s
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Vinv[i, j] * b[j]
        theta[i] = s
    # W = V~ V^{-1}, then M = V^{-1} W (symmetric: the upper triangle, mirrored)
    for i in range(d):
        for j in range(d):
            s = 0.0
            for k in range(d):
                s += Vt[i, k] * Vinv[k, j]
            W[i, j] = s
    for i in range(d):
        for j in range(i, d):
            s = 0.0
            for k in range(d):
                s += Vinv[i, k] * W[k, j]
            M[i, j] = s
            M[j, i] = s


@njit(cache=True)
def discounted_state(d, lam):
    """V = V~ = lambda I, b = 0 (Algorithm 1's initialisation) and the solve's scratch."""
    return (lam * np.eye(d), lam * np.eye(d), np.zeros(d),
            np.empty((d, d)), np.empty((d, d)), np.empty((d, d)), np.empty((d, d)), np.zeros(d))


@njit(cache=True)
def d_linucb_kernel(feats, rewards, gamma, lam, betas, actions):
    """D-LinUCB, Algorithm 1: ``feats`` is (T, K, d), or (1, K, d) when the action set never
    changes; ``betas[t]`` the radius after t observations. Each round: theta_hat, M =
    V^{-1} V~ V^{-1} by the exact solve, the index a^T theta_hat + beta sqrt(a^T M a), the
    argmax (lowest index on ties), and the discounted update with the chosen arm's reward
    only."""
    T = rewards.shape[0]
    K, d = feats.shape[1], feats.shape[2]
    V, Vt, b, P, Vinv, W, M, theta = discounted_state(d, lam)
    tri, xt, mean, quad, index = np.empty(d * (d + 1) // 2), np.empty((d, K)), np.empty(K), np.empty(K), np.empty(K)
    for t in range(T):
        f = t if feats.shape[0] > 1 else 0
        discounted_solve(V, Vt, b, P, Vinv, W, M, theta)
        linear_ucb_index(feats[f], theta, M, betas[t], tri, xt, mean, quad, index)
        arm = argmax_lowest(index)
        actions[t] = arm
        discounted_push(feats[f, arm], rewards[t, arm], gamma, lam, V, Vt, b)


@njit(cache=True)
def discounted_least_squares(X, Y, gamma, lam):
    """Run the kernel's state over all rows of (X, Y); return theta_hat, M = V^{-1} V~ V^{-1},
    V and V~ after the last row (for the tests against a direct solve)."""
    V, Vt, b, P, Vinv, W, M, theta = discounted_state(X.shape[1], lam)
    for t in range(X.shape[0]):
        discounted_push(X[t], Y[t], gamma, lam, V, Vt, b)
    discounted_solve(V, Vt, b, P, Vinv, W, M, theta)
    return theta, M, V, Vt


# ----------------------------------------------------------------------------- the algorithm

def check_gamma_rule(gamma) -> None:
    """gamma is ``opt`` (tuned with B_T) or a number in (0, 1] (D-LinUCB and its randomized kin)."""
    if isinstance(gamma, str):
        require_choice("algo.gamma", gamma, {"opt"})
    else:
        g = require_float("algo.gamma", gamma, minimum=0.0, strict=True)
        if g > 1.0:
            raise ConfigError(f"algo.gamma must be opt or a number in (0, 1], got {g}.")


class DiscountedLinUCB:
    """D-LinUCB (Russac, Vernade & Cappe 2019, Algorithm 1) on linear action sets or on the
    basis vectors (K arms). ``gamma``: ``"opt"`` (tuned with the known B_T) or a number in
    (0, 1]; ``radius``: ``"paper"``, ``"horizon"`` or ``"anytime"`` (Wu 2026's corrections)."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma="opt", lam: float = 1.0, delta: float | None = None, R: float | None = None,
                 L: float | None = None, S: float | None = None, B_T: float | None = None,
                 radius: str = "paper"):
        self.gamma = gamma
        self.lam = lam
        self.delta = delta
        self.R = R
        self.L = L
        self.S = S
        self.B_T = B_T
        self.radius = radius

    def needs(self) -> tuple:
        """sigma (R), L, S for the radius (unless set here), and B_T for gamma = opt."""
        return own_or_told(self, ("d", "R", "L", "S") + (("B_T",) if self.gamma == "opt" else ()))

    def check_params(self) -> None:
        check_gamma_rule(self.gamma)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        check_delta(self.delta)
        require_choice("algo.radius", self.radius, set(RADIUS_RULES))
        check_known_overrides(self)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for a horizon T (recorded with every result)."""
        opt = self.gamma == "opt"
        c = known_constants(self, info, ("R", "L", "S") + (("B_T",) if opt else ()))
        gamma = gamma_opt(T, c["d"], c["B_T"]) if opt else float(self.gamma)
        return {"gamma": gamma, "lam": float(self.lam), "delta": resolve_delta(self.delta, T), "radius": self.radius,
                **c}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.derived_ = self.resolve(T, info)
        feats = np.eye(K)[None] if features is None else np.ascontiguousarray(features, dtype=np.float64)
        betas = radius_schedule(T, p["gamma"], p["lam"], p["R"], p["d"], p["L"], p["S"], p["delta"], p["radius"])
        actions = np.empty(T, dtype=np.int64)
        d_linucb_kernel(feats, rewards, p["gamma"], p["lam"], betas, actions)
        return actions
