"""Pricing baselines of hedging §9.2: MW (Keskin & Zeevi) and the company's prices.

**MW**, the moving-window policy of Keskin & Zeevi ("Chasing demand", 2017), as we
implement it (their constants could not be checked against their text here; each
is a config key):

* no features: a linear demand model P(accept | p) = alpha + beta p is fitted by
  least squares to the acceptances observed in the last ``window`` rounds (the
  moving window; default ceil(T^(2/3)), the order they use when the variation
  budget is unknown);
* the greedy price maximises p (alpha_hat + beta_hat p) over the price grid;
* price dispersion is enforced as in their constrained iterated least squares:
  if the greedy price is within kappa n^(-1/4) of the window's mean price p_bar
  (n = prices in the window), charge p_bar +- kappa n^(-1/4) instead (the side of
  the greedy price), so the slope stays estimable; ``kappa`` defaults to 0.1 of
  the top price. The result is snapped to the nearest grid price.
* the first two rounds charge 1/4 and 3/4 of the top price to start the fit.

A customer's acceptance is read off the reward (revenue / price); a price of 0
reveals nothing, so MW never charges it.

**company** replays the price recorded in the data (imputed NPV, rescaled, snapped
to the grid: ``recorded_action``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.errors import ConfigError, require_float, require_int


@njit(cache=True)
def _nearest(prices, target):
    best = 1
    gap = abs(prices[1] - target)
    for k in range(2, prices.shape[0]):
        g = abs(prices[k] - target)
        if g < gap:
            gap = g
            best = k
    return best


@njit(cache=True)
def mw_kernel(rewards, prices, window, kappa, actions):
    T, K = rewards.shape
    buf_p = np.zeros(window)
    buf_y = np.zeros(window)
    pos = 0
    n = 0
    sp = 0.0
    spp = 0.0
    sy = 0.0
    spy = 0.0
    top = prices[K - 1]
    for t in range(T):
        if n < 2:
            k = _nearest(prices, top * (0.25 if t % 2 == 0 else 0.75))
        else:
            pbar = sp / n
            var = spp / n - pbar * pbar
            ybar = sy / n
            if var > 1e-12:
                beta = (spy / n - pbar * ybar) / var
            else:
                beta = 0.0
            alpha = ybar - beta * pbar
            best = prices[1] * (alpha + beta * prices[1])
            greedy = prices[1]
            for j in range(2, K):
                value = prices[j] * (alpha + beta * prices[j])
                if value > best + 1e-12 * max(1.0, abs(best)):  # ties: the lower price
                    best = value
                    greedy = prices[j]
            delta = kappa * n ** -0.25
            target = greedy
            if abs(greedy - pbar) < delta:
                target = pbar + delta if greedy >= pbar else pbar - delta
            k = _nearest(prices, target)
        actions[t] = k
        y = rewards[t, k] / prices[k]
        if n == window:
            sp -= buf_p[pos]
            spp -= buf_p[pos] * buf_p[pos]
            sy -= buf_y[pos]
            spy -= buf_p[pos] * buf_y[pos]
        else:
            n += 1
        p = prices[k]
        buf_p[pos] = p
        buf_y[pos] = y
        sp += p
        spp += p * p
        sy += y
        spy += p * y
        pos += 1
        if pos == window:
            pos = 0
            sp = 0.0
            spp = 0.0
            sy = 0.0
            spy = 0.0
            for i in range(n):  # exact refresh once per window: no drift from add/remove
                sp += buf_p[i]
                spp += buf_p[i] * buf_p[i]
                sy += buf_y[i]
                spy += buf_p[i] * buf_y[i]


def _prices(info: dict) -> np.ndarray:
    prices = info.get("prices")
    if prices is None:
        raise ConfigError("this algorithm prices customers: it needs an environment with a price grid (env=autoloan).")
    return np.asarray(prices, dtype=np.float64)


class MovingWindowPricing:
    """MW of Keskin & Zeevi (see module doc)."""

    problem_kinds = ("pricing",)

    def __init__(self, window="auto", kappa: float | None = None):
        self.window = window
        self.kappa = kappa

    def check_params(self) -> None:
        if self.window != "auto":
            require_int("algo.window", self.window, minimum=2)
        require_float("algo.kappa", self.kappa, minimum=0.0, allow_none=True)

    def play(self, rewards, info, rng, features=None):
        T = rewards.shape[0]
        prices = _prices(info)
        if prices.shape[0] < 3 or prices[0] < 0:
            raise ConfigError("MW needs a grid of at least 3 non-negative prices.")
        window = math.ceil(T ** (2 / 3)) if self.window == "auto" else int(self.window)
        window = max(2, min(window, T))
        kappa = 0.1 * float(prices[-1]) if self.kappa is None else float(self.kappa)
        actions = np.empty(T, dtype=np.int64)
        mw_kernel(rewards, prices, window, kappa, actions)
        self.derived_ = {"window": window, "kappa": kappa}
        return actions


class RecordedPrices:
    """``company``: the price recorded in the data for each customer."""

    problem_kinds = ("pricing",)

    def check_params(self) -> None:
        pass

    def play(self, rewards, info, rng, features=None):
        recorded = info.get("recorded_action")
        if recorded is None:
            raise ConfigError("company replays recorded prices: it needs env=autoloan.")
        self.derived_ = {}
        return np.asarray(recorded[: rewards.shape[0]], dtype=np.int64).copy()
