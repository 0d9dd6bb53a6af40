"""SW-UCB for drifting combinatorial semi-bandits (hedging §8.4, Theorem 8.11, eq. (27)).

d items; an action is a subset of them, encoded as a bit mask (item i = bit i), from
the feasible family: ``top_m`` (every subset of size m) or a ``given`` list. The
reward is the sum of the chosen items' rewards W_t(i) in [0, 1], and each of them is
observed (semi-bandit feedback). Per item, over the last w rounds,
theta_hat(i) = (sum of observed W(i)) / max(N(i), 1), and the index is
theta_hat(i) + 4 R sqrt(ln(2 d T^2) / (N(i) + 1)) with R = 1/2 (§8.4). The action
maximises the sum of its items' indices over the family, exactly: for top-m the m
largest indices (ties to the lower item), for a given family by enumeration.

Windows (Theorem 8.12's orders with constant 1; the paper gives no explicit
constant): w_opt = ceil(d^(1/3) m^(-1/3) T^(2/3) B_T^(-2/3)), w_obl =
ceil(d^(1/3) m^(-1/3) T^(2/3)), capped at T. ``stationary: true`` is the CUCB-style
counterpart (unbounded window, Kveton et al. 2015).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bandits.algorithms.common import check_window, pick_window
from bandits.algorithms.window import POS, advance, is_full, new_window
from bandits.errors import ConfigError
from bandits.numerics import argmax_lowest


@njit(cache=True)
def observe_items(rows, state, counts, sums, chosen, w):
    """The chosen items paid ``w``: a window row holds each item's 0/1 membership and its
    observed reward (0 if not chosen); counts and sums drop the round that leaves. True
    when the window wrapped: the caller then refreshes the sums exactly."""
    d = counts.shape[0]
    slot = state[POS]
    if is_full(rows, state):
        for i in range(d):
            if rows[slot, i] != 0.0:
                counts[i] -= 1.0
                sums[i] -= rows[slot, d + i]
    for i in range(d):
        rows[slot, i] = 1.0 if chosen[i] else 0.0
        rows[slot, d + i] = w[i] if chosen[i] else 0.0
        if chosen[i]:
            counts[i] += 1.0
            sums[i] += w[i]
    return advance(rows, state)


@njit(cache=True)
def refresh_item_sums(rows, sums):
    """The window's per-item reward sums recomputed from its rows (no add/remove drift)."""
    d = sums.shape[0]
    for i in range(d):
        sums[i] = 0.0
    for s in range(rows.shape[0]):
        for i in range(d):
            if rows[s, i] != 0.0:
                sums[i] += rows[s, d + i]


@njit(cache=True)
def semibandit_segment(item_rewards, start, stop, window, m, family, bonus_c, actions):
    """Rounds [start, stop); ``family`` is (F, d) 0/1 rows, or (0, d) for top-m. Writes
    bit masks to ``actions``; returns the realised reward."""
    d = item_rewards.shape[1]
    rows, state = new_window(min(window, stop - start), 2 * d)
    counts, sums, index, left = np.zeros(d), np.zeros(d), np.empty(d), np.empty(d)
    value = np.empty(family.shape[0])
    chosen = np.zeros(d, dtype=np.bool_)
    total = 0.0
    for t in range(start, stop):
        for i in range(d):
            mean = sums[i] / counts[i] if counts[i] > 0 else 0.0
            index[i] = mean + bonus_c / math.sqrt(counts[i] + 1.0)
            chosen[i] = False
        if family.shape[0] == 0:
            for i in range(d):
                left[i] = index[i]
            for _ in range(m):  # the m largest indices, one at a time, by the tie rule
                best = argmax_lowest(left)
                chosen[best] = True
                left[best] = -np.inf
        else:
            for f in range(family.shape[0]):
                value[f] = 0.0
                for i in range(d):
                    if family[f, i]:
                        value[f] += index[i]
            best_f = argmax_lowest(value)
            for i in range(d):
                chosen[i] = family[best_f, i] != 0
        code = 0
        for i in range(d):
            if chosen[i]:
                total += item_rewards[t, i]
                code |= 1 << i
        actions[t] = code
        if observe_items(rows, state, counts, sums, chosen, item_rewards[t]):
            refresh_item_sums(rows, sums)
    return total


def semibandit_windows(T: int, d: int, m: int, B_T: float) -> dict:
    base = d ** (1 / 3) * m ** (-1 / 3) * T ** (2 / 3)
    return {"opt": int(min(T, math.ceil(base / B_T ** (2 / 3)) if B_T > 0 else T)),
            "obl": int(min(T, math.ceil(base)))}


class SlidingWindowSemiBandit:
    problem_kinds = ("semibandit",)

    def __init__(self, window="obl", stationary: bool = False):
        self.window = window
        self.stationary = stationary

    def needs(self) -> tuple:
        return ("d", "m") + (("B_T",) if self.window == "opt" else ())

    def check_params(self) -> None:
        check_window(self.window)

    def resolve(self, T: int, info: dict) -> dict:
        if not info.get("semibandit"):
            raise ConfigError("SW-UCB-comb needs a semi-bandit environment (env=drifting_semibandit).")
        d, m = int(info["d"]), int(info["m"])
        B_T = float(info["B_T"]) if self.window == "opt" else 0.0
        w = pick_window(self.window, bool(self.stationary), T, semibandit_windows(T, d, m, B_T))
        return {"window": w, "bonus": 4 * 0.5 * math.sqrt(math.log(2 * d * T * T)), "d": d, "m": m}

    def play(self, rewards, info, rng, features=None):
        T = rewards.shape[0]
        p = self.resolve(T, info)
        actions = np.empty(T, dtype=np.int64)
        semibandit_segment(rewards, 0, T, p["window"], p["m"], info["family"], p["bonus"], actions)
        self.derived_ = p
        return actions
