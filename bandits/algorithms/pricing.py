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

from bandits.algorithms.window import FILLED, POS, advance, is_full, new_window
from bandits.errors import ConfigError, require_float, require_int
from bandits.numerics import argmax_lowest

MIN_VARIANCE = 1e-12  # a window of (almost) one price: no slope can be estimated


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
def observe_price(rows, state, stats, p, y):
    """Price p, acceptance y: the window's sums of p, p^2, y and p y (``stats``) drop the
    round that leaves. True when the window wrapped: the caller then refreshes them exactly."""
    slot = state[POS]
    if is_full(rows, state):
        po, yo = rows[slot, 0], rows[slot, 1]
        stats[0] -= po
        stats[1] -= po * po
        stats[2] -= yo
        stats[3] -= po * yo
    rows[slot, 0] = p
    rows[slot, 1] = y
    stats[0] += p
    stats[1] += p * p
    stats[2] += y
    stats[3] += p * y
    return advance(rows, state)


@njit(cache=True)
def refresh_price_stats(rows, stats):
    """The window's sums recomputed from its rows (no add/remove drift)."""
    stats[:] = 0.0
    for i in range(rows.shape[0]):
        stats[0] += rows[i, 0]
        stats[1] += rows[i, 0] * rows[i, 0]
        stats[2] += rows[i, 1]
        stats[3] += rows[i, 0] * rows[i, 1]


@njit(cache=True)
def mw_kernel(rewards, prices, window, kappa, actions):
    T, K = rewards.shape
    rows, state = new_window(window, 2)
    stats = np.zeros(4)  # sums over the window of p, p^2, y, p y
    top = prices[K - 1]
    revenue = np.empty(K - 1)
    for t in range(T):
        n = state[FILLED]
        if n < 2:
            k = _nearest(prices, top * (0.25 if t % 2 == 0 else 0.75))
        else:
            pbar = stats[0] / n
            var = stats[1] / n - pbar * pbar
            ybar = stats[2] / n
            if var > MIN_VARIANCE:
                beta = (stats[3] / n - pbar * ybar) / var
            else:
                beta = 0.0
            alpha = ybar - beta * pbar
            for j in range(1, K):  # price 0 reveals nothing: never charged
                revenue[j - 1] = prices[j] * (alpha + beta * prices[j])
            greedy = prices[1 + argmax_lowest(revenue)]  # ties: the lower price
            delta = kappa * n ** -0.25
            target = greedy
            if abs(greedy - pbar) < delta:
                target = pbar + delta if greedy >= pbar else pbar - delta
            k = _nearest(prices, target)
        actions[t] = k
        if observe_price(rows, state, stats, prices[k], rewards[t, k] / prices[k]):
            refresh_price_stats(rows, stats)


def _prices(info: dict) -> np.ndarray:
    prices = info.get("prices")
    if prices is None:
        raise ConfigError("this algorithm prices customers: it needs an environment with a price grid (env=autoloan).")
    return np.asarray(prices, dtype=np.float64)


class MovingWindowPricing:
    """MW of Keskin & Zeevi (see module doc)."""

    problem_kinds = ("pricing",)

    def needs(self) -> tuple:
        return ("prices",)

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

    def needs(self) -> tuple:
        return ("recorded_action",)

    def check_params(self) -> None:
        pass

    def play(self, rewards, info, rng, features=None):
        recorded = info.get("recorded_action")
        if recorded is None:
            raise ConfigError("company replays recorded prices: it needs env=autoloan.")
        self.derived_ = {}
        return np.asarray(recorded[: rewards.shape[0]], dtype=np.int64).copy()
