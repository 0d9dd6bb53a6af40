"""D-RandLinUCB and D-LinTS (Kim & Tewari, "Randomized exploration for non-stationary
stochastic linear bandits", UAI 2020, PMLR 124:71-80, arXiv 1912.05695), as the authors'
code runs them.

**Source status: the authors' code's reading.** The paper's text was not found here (only
its abstracts: "The first approach replaces optimism with a simple randomization when using
confidence sets. The second one adds random perturbations to its current estimate before
maximizing the expected reward."). Every step and constant below is read from the authors'
code, ``baekjin-kim/NonstationaryLB`` at commit 7f8d7d167b38c0df0d4167de3e99ac169ca31466
(files ``D_RandLinUCB_class.py`` and ``D_LinTS_class.py``, unchanged since 475bc0d; the
settings from ``Experiments_revised/*.ipynb``); read, not copied. Whether the paper's
algorithm boxes say the same (a discretised Z, another perturbation scale) is unknown
(docs/templates/fidelity/kim_tewari.md).

Both keep D-LinUCB's discounted statistics (the authors' ``update_state``, the same lines
in both files; :mod:`bandits.algorithms.discounted_linear_ucb`, whose helpers run here):

    init        V = lambda I, V~ = lambda I, b = 0
    update      V  <- gamma V + A_t A_t^T + (1 - gamma) lambda I
                V~ <- gamma^2 V~ + A_t A_t^T + (1 - gamma^2) lambda I
                b  <- gamma b + X_t A_t,   theta_hat = V^{-1} b

**D-RandLinUCB** (``D_RandLinUCB_class.py``, ``select_arm``), round t after n = t - 1 updates:

    radius      beta = sqrt(lambda) S + sigma sqrt(2 log(1/delta)
                    + d log(1 + L^2 (1 - gamma^(2n)) / (d lambda (1 - gamma^2))))
    draw        Z ~ |N(0, 1)| (``option: couple_opt``) or N(0, 1) (``couple``), ONE scalar per
                round, shared by every action, continuous
    index       a^T theta_hat + alpha Z beta sqrt(a^T V^{-1} V~ V^{-1} a)
    play        the argmax

i.e. D-LinUCB's index with its width multiplied by alpha Z (the radius is
:func:`discounted_radius`, the same formula; at gamma = 1 the ratio is its limit n, where
the authors' code divides by zero).

**D-LinTS** (``D_LinTS_class.py``), round t after n = t - 1 updates:

    warm-up     while n < d: a uniformly random action (the authors score every action +inf
                and break the tie with K uniform draws: the action with the largest draw)
    sample      theta~ = V^{-1} (b + alpha R z), z ~ N(0, I_d), R R^T = V~,
                so theta~ ~ N(theta_hat, alpha^2 V^{-1} V~ V^{-1})
    play        argmax_a a^T theta~

The authors compute beta in D-LinTS too but never use it (and multiply their gamma^(2n)
counter twice per update): the sample's scale is alpha alone, so D-LinTS has no delta, S,
L or sigma. The root R is a config key, ``root``:

* ``cholesky`` (default, a deviation): R the lower Cholesky factor of V~. R R^T = V~, so
  theta~ has the authors' distribution, but not their numbers for the same z; it costs
  d^3 / 6 flops and then two triangular solves with V's Cholesky factor give theta~.
* ``sqrtm``: R the symmetric square root of V~ (the authors' ``scipy.linalg.sqrtm(...).real``),
  here from ``np.linalg.eigh`` (V~ is symmetric positive definite, where the two agree up to
  rounding); an eigendecomposition every round, several times the cost.

Constants, each a config key with the authors' setting as default (configs
``bandits/conf/algo/d_randlinucb.yaml``, ``d_lints.yaml``):

* ``gamma``: ``opt`` = 1 - (B_T / (d T))^(2/3) (the notebooks' ``gamma = 1 -
  (B_T/(d*steps))**(2/3)``, :func:`gamma_opt`, needs B_T) or a number in (0, 1].
* ``alpha``: 0.4 for D-RandLinUCB (the notebooks pass ``alpha/2.5`` with ``alpha = 1``), 1
  for D-LinTS.
* ``option`` (D-RandLinUCB): ``couple_opt`` (the notebooks'); ``couple`` the two-sided Z. The
  authors' code silently scores every action 0 for any other string; refused here.
* ``lam`` = 1, ``delta`` = 0.01 (the notebooks'); ``R`` (sigma), ``L``, ``S``: null = the
  environment's values (the notebooks pass sigma = sqrt(0.15), S = ||theta_0||, L = max ||a||,
  the values of their problem).
* ``radius`` (D-RandLinUCB): ``paper`` (default; the authors' ``2 log(1/delta)``),
  ``horizon`` or ``anytime``: Wu 2026's corrected levels, as for D-LinUCB
  (:func:`~bandits.algorithms.discounted_linear_ucb.radius_schedule`). Kim & Tewari's Lemma 4
  restates Russac et al.'s time-uniform radius, the one Wu's §3.1 shows crossed.
* ``warmup`` (D-LinTS): null = d rounds (``if self.t < self.dim``); an integer >= 0 sets it.

**Randomness and ties (ours).** Every draw comes from the policy's Generator inside the
kernels, in this order each round: D-RandLinUCB one ``rng.normal(0, 1)``; D-LinTS, during
the warm-up K ``rng.random()`` in action order, afterwards d ``rng.normal(0, 1)``. The
authors also draw K uniforms every round to break ties (``mixer``); with continuous scores
ties have probability 0, so the kernels take the lowest index (the repo's rule,
:func:`bandits.numerics.argmax_lowest`) and draw nothing for them. The authors draw D-LinTS's
z at the end of the previous round's update; drawing it when the round starts, from the same
statistics, gives the same distribution (and no unused draw during the warm-up). The literal
transcriptions :mod:`bandits.reference.d_randlinucb` and :mod:`bandits.reference.d_lints`
draw the same numbers in the same order (tests/test_randomized_linear.py).

On K arms (``features is None``) the actions are the basis vectors e_1..e_K, d = K.

**Cost.** D-RandLinUCB is D-LinUCB's round plus one normal draw: the exact solve for theta_hat
and M = V^{-1} V~ V^{-1} (:func:`discounted_solve`, about 2.5 d^3 flops) and the scoring
(:func:`linear_ucb_index`, O(K d^2)); the authors' code recomputes M inside the action loop,
O(K d^3). D-LinTS needs no M: two Cholesky factors (V and V~), two triangular solves, d
normal draws and K inner products, O(d^3 + K d).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_delta, check_known_overrides, known_constants, own_or_told
from bandits.algorithms.discounted_linear_ucb import (
    RADIUS_RULES,
    check_gamma_rule,
    discounted_push,
    discounted_solve,
    discounted_state,
    gamma_opt,
    radius_schedule,
)
from bandits.algorithms.sliding_window_ucb import linear_ucb_index
from bandits.errors import ConfigError, require_choice, require_float, require_int
from bandits.numerics import argmax_lowest

OPTIONS = ("couple_opt", "couple")
ROOTS = ("cholesky", "sqrtm")


# ----------------------------------------------------------------------------- D-RandLinUCB

@njit(cache=True)
def d_randlinucb_kernel(feats, rewards, gamma, lam, alpha, betas, two_sided, rng, actions):
    """D-RandLinUCB as the authors' code (module doc): ``feats`` is (T, K, d) or (1, K, d);
    ``betas[t]`` the radius after t updates; one Z per round from ``rng``."""
    T = rewards.shape[0]
    K, d = feats.shape[1], feats.shape[2]
    V, Vt, b, P, Vinv, W, M, theta = discounted_state(d, lam)
    tri, xt, mean, quad, index = np.empty(d * (d + 1) // 2), np.empty((d, K)), np.empty(K), np.empty(K), np.empty(K)
    for t in range(T):
        f = t if feats.shape[0] > 1 else 0
        discounted_solve(V, Vt, b, P, Vinv, W, M, theta)          # theta_hat, M = V^-1 V~ V^-1
        z = rng.normal(0.0, 1.0)                                   # one Z for every action
        if not two_sided:
            z = abs(z)                                             # couple_opt: |N(0, 1)|
        linear_ucb_index(feats[f], theta, M, alpha * z * betas[t], tri, xt, mean, quad, index)
        arm = argmax_lowest(index)
        actions[t] = arm
        discounted_push(feats[f, arm], rewards[t, arm], gamma, lam, V, Vt, b)


# ----------------------------------------------------------------------------- D-LinTS

@njit(cache=True)
def cholesky_lower(A, C):
    """C lower triangular with C C^T = A (A symmetric positive definite); the upper part zeroed."""
    d = A.shape[0]
    for j in range(d):
        s = A[j, j]
        for k in range(j):
            s -= C[j, k] * C[j, k]
        C[j, j] = math.sqrt(s)
        r = 1.0 / C[j, j]
        for i in range(j + 1, d):
            s = A[i, j]
            for k in range(j):
                s -= C[i, k] * C[j, k]
            C[i, j] = s * r
        for i in range(j):
            C[i, j] = 0.0


@njit(cache=True)
def symmetric_root(A, R):
    """R = Q diag(sqrt(w)) Q^T from A = Q diag(w) Q^T: the symmetric (principal) square root."""
    w, Q = np.linalg.eigh(A)
    d = A.shape[0]
    for i in range(d):
        for j in range(d):
            s = 0.0
            for k in range(d):
                s += Q[i, k] * math.sqrt(max(w[k], 0.0)) * Q[j, k]
            R[i, j] = s


@njit(cache=True)
def perturbed_estimate(V, Vt, b, alpha, sqrtm_root, rng, C, R, u, tilde):
    """theta~ = V^{-1} (b + alpha R z), z ~ N(0, I_d) drawn in coordinate order, R R^T = V~
    (Cholesky, or the symmetric root with ``sqrtm_root``); V^{-1} by V = C C^T."""
    d = b.shape[0]
    if sqrtm_root:
        symmetric_root(Vt, R)
    else:
        cholesky_lower(Vt, R)
    for i in range(d):
        tilde[i] = rng.normal(0.0, 1.0)                            # z, kept in tilde for now
    for i in range(d):
        s = 0.0
        for k in range(d):
            s += R[i, k] * tilde[k]
        u[i] = b[i] + alpha * s
    cholesky_lower(V, C)
    for i in range(d):                                             # C y = u
        s = u[i]
        for k in range(i):
            s -= C[i, k] * u[k]
        u[i] = s / C[i, i]
    for i in range(d - 1, -1, -1):                                 # C^T theta~ = y
        s = u[i]
        for k in range(i + 1, d):
            s -= C[k, i] * tilde[k]
        tilde[i] = s / C[i, i]


@njit(cache=True)
def d_lints_kernel(feats, rewards, gamma, lam, alpha, warmup, sqrtm_root, rng, actions):
    """D-LinTS as the authors' code (module doc): ``warmup`` uniformly random rounds (the
    largest of K uniforms), then argmax_a a^T theta~ with a fresh theta~ every round."""
    T = rewards.shape[0]
    K, d = feats.shape[1], feats.shape[2]
    V, Vt, b = lam * np.eye(d), lam * np.eye(d), np.zeros(d)
    C, R, u, tilde, score = np.empty((d, d)), np.empty((d, d)), np.empty(d), np.empty(d), np.empty(K)
    for t in range(T):
        f = t if feats.shape[0] > 1 else 0
        if t < warmup:
            for k in range(K):
                score[k] = rng.random()
        else:
            perturbed_estimate(V, Vt, b, alpha, sqrtm_root, rng, C, R, u, tilde)
            for k in range(K):
                s = 0.0
                for i in range(d):
                    s += feats[f, k, i] * tilde[i]
                score[k] = s
        arm = argmax_lowest(score)
        actions[t] = arm
        discounted_push(feats[f, arm], rewards[t, arm], gamma, lam, V, Vt, b)


# ----------------------------------------------------------------------------- the classes

def features_of(features, K: int) -> np.ndarray:
    return np.eye(K)[None] if features is None else np.ascontiguousarray(features, dtype=np.float64)


class DiscountedRandLinUCB:
    """D-RandLinUCB (Kim & Tewari 2020) as the authors' code runs it (module doc): D-LinUCB's
    index with its width times alpha Z, one Z ~ |N(0, 1)| per round."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma="opt", alpha: float = 0.4, option: str = "couple_opt", lam: float = 1.0,
                 delta: float = 0.01, R: float | None = None, L: float | None = None, S: float | None = None,
                 B_T: float | None = None, radius: str = "paper"):
        self.gamma = gamma
        self.alpha = alpha
        self.option = option
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
        require_float("algo.alpha", self.alpha, minimum=0.0, strict=True)
        require_choice("algo.option", self.option, set(OPTIONS))
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        if self.delta is None:
            raise ConfigError("algo.delta must be a number in (0, 1) (the authors' experiments use 0.01), got null.")
        check_delta(self.delta)
        require_choice("algo.radius", self.radius, set(RADIUS_RULES))
        check_known_overrides(self)

    def resolve(self, T: int, info: dict) -> dict:
        """The constants for a horizon T (recorded with every result)."""
        opt = self.gamma == "opt"
        c = known_constants(self, info, ("R", "L", "S") + (("B_T",) if opt else ()))
        gamma = gamma_opt(T, c["d"], c["B_T"]) if opt else float(self.gamma)
        return {"gamma": gamma, "alpha": float(self.alpha), "option": self.option, "lam": float(self.lam),
                "delta": float(self.delta), "radius": self.radius, **c}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.derived_ = self.resolve(T, info)
        feats = features_of(features, K)
        betas = radius_schedule(T, p["gamma"], p["lam"], p["R"], p["d"], p["L"], p["S"], p["delta"], p["radius"])
        actions = np.empty(T, dtype=np.int64)
        d_randlinucb_kernel(feats, rewards, p["gamma"], p["lam"], p["alpha"], betas, self.option == "couple",
                            rng, actions)
        return actions


class DiscountedLinTS:
    """D-LinTS (Kim & Tewari 2020) as the authors' code runs it (module doc): theta~ ~
    N(theta_hat, alpha^2 V^{-1} V~ V^{-1}) every round after d random rounds."""

    problem_kinds = ("karmed", "linear")

    def __init__(self, gamma="opt", alpha: float = 1.0, lam: float = 1.0, warmup: int | None = None,
                 root: str = "cholesky", B_T: float | None = None):
        self.gamma = gamma
        self.alpha = alpha
        self.lam = lam
        self.warmup = warmup
        self.root = root
        self.B_T = B_T

    def needs(self) -> tuple:
        """d, and B_T for gamma = opt (unless set here); no sigma, L, S: the sample's scale is alpha."""
        return own_or_told(self, ("d",) + (("B_T",) if self.gamma == "opt" else ()))

    def check_params(self) -> None:
        check_gamma_rule(self.gamma)
        require_float("algo.alpha", self.alpha, minimum=0.0, strict=True)
        require_float("algo.lam", self.lam, minimum=0.0, strict=True)
        if self.warmup is not None:
            require_int("algo.warmup", self.warmup, minimum=0)
        require_choice("algo.root", self.root, set(ROOTS))
        check_known_overrides(self)

    def resolve(self, T: int, info: dict) -> dict:
        opt = self.gamma == "opt"
        c = known_constants(self, info, ("B_T",) if opt else ())
        gamma = gamma_opt(T, c["d"], c["B_T"]) if opt else float(self.gamma)
        warmup = c["d"] if self.warmup is None else int(self.warmup)
        return {"gamma": gamma, "alpha": float(self.alpha), "lam": float(self.lam), "warmup": warmup,
                "root": self.root, **c}

    def play(self, rewards: np.ndarray, info: dict, rng: np.random.Generator,
             features: np.ndarray | None = None) -> np.ndarray:
        T, K = rewards.shape
        p = self.derived_ = self.resolve(T, info)
        feats = features_of(features, K)
        actions = np.empty(T, dtype=np.int64)
        d_lints_kernel(feats, rewards, p["gamma"], p["lam"], p["alpha"], p["warmup"], self.root == "sqrtm", rng,
                       actions)
        return actions
