"""Closed-form constants of the hedging paper, one function each, so they can be
tested against hand computation.

* :func:`confidence_radius` -- beta of eq. (3) (compiled; :func:`oful_radii` is OFUL's
  growing radius, the same formula with w = the observations so far).
* :func:`karmed_radius` -- the lambda = 0 radius R sqrt(2 ln(2 d T^2)) of eq. (22).
* :func:`window_bar` -- w_bar of eq. (101); :func:`window_opt`, :func:`window_obl`.
* :func:`bob_parameters` -- H, Delta, J, Q, gamma of eqs. (11)/(23) and (12).
* :func:`integer_root_floor` -- floor(H^(j/Delta)) in exact integer arithmetic
  (spec §5: floating point gives 3 for H = 8, j = Delta = 3).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from bandits.errors import ConfigError


@njit(cache=True)
def confidence_radius(R, d, w, L, lam, delta, S):
    """Eq. (3): beta = R sqrt(d ln((1 + w L^2 / lambda) / delta)) + sqrt(lambda) S. Compiled,
    so that OFUL's growing radius (w = the observations so far) is this same formula."""
    return R * math.sqrt(d * math.log((1.0 + w * L * L / lam) / delta)) + math.sqrt(lam) * S


# OFUL's constants, one record for the compiled kernels: beta_t = confidence_radius(R, d, n, L, lam, delta, S).
OFULConstants = namedtuple("OFULConstants", "R d L S delta lam")


@njit(cache=True)
def oful_radii(c, n):
    """OFUL's radius (Abbasi-Yadkori et al. 2011, Thm. 2) at rounds 0..n-1: eq. (3) with
    w = the t observations so far."""
    out = np.empty(n)
    for t in range(n):
        out[t] = confidence_radius(c.R, c.d, t, c.L, c.lam, c.delta, c.S)
    return out


def karmed_radius(R: float, d: int, T: int) -> float:
    """Eq. (22): R sqrt(2 ln(2 d T^2)), the radius of the lambda = 0 (pseudo-inverse) variant."""
    return R * math.sqrt(2.0 * math.log(2.0 * d * float(T) ** 2))


def window_bar(T: int, d: int, R: float, L: float, S: float, lam: float) -> float:
    """Eq. (101): w_bar = d^(1/3) T^(2/3) / (2^(1/3) L^(2/3))
    * (R sqrt(d ln(T + T^2 L^2 / lambda)) + sqrt(lambda) S)^(2/3)
    * log^(1/3)(1 + T L^2 / (d lambda^2)).

    The paper writes lambda^2 in the last log where its source eq. (56) has
    d lambda; the two agree at lambda = 1, the value used here (spec §5). We keep
    the paper's lambda^2.
    """
    T = float(T)
    radius = R * math.sqrt(d * math.log(T + T * T * L * L / lam)) + math.sqrt(lam) * S
    return (d ** (1 / 3) * T ** (2 / 3) / (2 ** (1 / 3) * L ** (2 / 3))
            * radius ** (2 / 3) * math.log(1.0 + T * L * L / (d * lam * lam)) ** (1 / 3))


def window_opt(T: int, B_T: float, **kw) -> int:
    """w_opt = ceil(w_bar / B_T^(2/3)) (eq. (101)), capped at T (spec §5); B_T = 0 gives T."""
    if B_T <= 0:
        return int(T)
    return int(min(T, math.ceil(window_bar(T, **kw) / B_T ** (2 / 3))))


def window_obl(T: int, **kw) -> int:
    """w_obl = ceil(w_bar) (App. 23), capped at T."""
    return int(min(T, math.ceil(window_bar(T, **kw))))


def integer_root_floor(H: int, j: int, Delta: int) -> int:
    """floor(H^(j/Delta)) exactly: the largest x with x^Delta <= H^j."""
    target = H ** j
    x = int(round(H ** (j / Delta)))
    while x > 0 and x ** Delta > target:
        x -= 1
    while (x + 1) ** Delta <= target:
        x += 1
    return x


def bob_parameters(T: int, d: int, R: float, setting: str = "karmed", nu: float = 1.0, m: int = 1) -> dict:
    """BOB's block length, window grid, normaliser and EXP3 rate.

    ``setting="karmed"``: eq. (23), H = floor(sqrt(d T)); ``"linear"``: eq. (11),
    H = floor(d sqrt(T)); ``"glb"``: eq. (26), H = floor(sqrt(d T)), Q = 2 H Y_max
    (Y_max = ``nu``); ``"semibandit"``: eq. (27), H = floor(sqrt(d T / m)), Q = 2 H m
    (block rewards deterministically bounded, no noise term). All cap H at T (eq. (11) can exceed it, spec §5). Then
    Delta = ceil(ln H), J = {floor(H^(j/Delta)) : j = 0..Delta} (repeats kept as
    separate EXP3 arms, as the formula does), Q = 2H nu + 4R sqrt(H ln(T / sqrt(H)))
    (Lemma 7.4 with |<x, theta_t>| <= nu; the paper's eqs. (11)/(23) take nu = 1, the
    default; the pricing problem has nu = the largest price) and
    gamma = min{1, sqrt((Delta+1) ln(Delta+1) / ((e-1) ceil(T/H)))} (eq. (12)).
    """
    if setting in ("karmed", "glb"):
        H = math.floor(math.sqrt(d * T))
    elif setting == "linear":
        H = math.floor(d * math.sqrt(T))
    elif setting == "semibandit":
        H = math.floor(math.sqrt(d * T / m))
    else:
        raise ConfigError(f"BOB setting must be karmed, linear, glb or semibandit, got {setting!r}.")
    H = int(min(H, T))
    if H < 2:
        raise ConfigError(f"BOB needs a block length H >= 2 (Delta = ceil(ln H) > 0); T={T}, d={d} give H={H}.")
    Delta = math.ceil(math.log(H))
    J = [integer_root_floor(H, j, Delta) for j in range(Delta + 1)]
    if setting == "glb":
        Q = 2 * H * nu
    elif setting == "semibandit":
        Q = 2 * H * m
    else:
        Q = 2 * H * nu + 4 * R * math.sqrt(H * math.log(T / math.sqrt(H)))
    n_blocks = math.ceil(T / H)
    gamma = min(1.0, math.sqrt((Delta + 1) * math.log(Delta + 1) / ((math.e - 1) * n_blocks)))
    return {"H": H, "Delta": Delta, "J": J, "Q": Q, "gamma": gamma, "n_blocks": n_blocks, "setting": setting}
