"""What every environment hands to the runner: an instance, then per-trial rewards.

An environment is drawn in two steps so that every algorithm of a trial faces the
same draw (spec §1):

1. ``instance(T, rng)`` -> :class:`Instance`: the expected rewards ``means[t, a]``
   of every arm at every round, and the constants an algorithm may be told
   (``info``: R, L, S, B_T, d). Drawn once per (experiment, T) from the root seed.
2. ``rewards(instance, rng)`` -> ``(T, K)`` array: what arm ``a`` pays if chosen at
   round ``t``. Drawn once per trial and shared by every algorithm of the trial, so
   two algorithms choosing the same arm at the same round see the same noise.

Dynamic regret is always computed from ``means`` (pseudo-regret, spec §1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Instance:
    means: np.ndarray  # (T, K) float64, expected reward of arm a at round t
    info: dict = field(default_factory=dict)  # constants known to algorithms + realised stats
    rewards: np.ndarray | None = None  # fixed realised rewards (replayed tables), else None
    # Linear problems: the action sets D_t as feature vectors, (T, K, d), or (1, K, d) when
    # the same set is offered every round. None means the K arms are the basis vectors e_1..e_K.
    features: np.ndarray | None = None
    # Expected reward of the comparator at each round when it is not the best action of the
    # round (contextual problems: the best policy in the class); None means means.max(axis=1).
    optimal: np.ndarray | None = None
    # Arrays only the environment uses (never shown to algorithms), e.g. acceptance probabilities.
    extras: dict = field(default_factory=dict)

    @property
    def T(self) -> int:
        return int(self.means.shape[0])

    @property
    def K(self) -> int:
        return int(self.means.shape[1])


def gaussian_rewards(means: np.ndarray, R: float, rng: np.random.Generator) -> np.ndarray:
    """Realised rewards ``means + eta`` with eta ~ N(0, R^2), one draw per (round, arm)."""
    noise = rng.standard_normal(means.shape)
    noise *= R
    noise += means
    return noise


def unit_vectors(rng: np.random.Generator, shape) -> np.ndarray:
    """Vectors uniform on the unit sphere (last axis): normalised standard normals."""
    v = rng.standard_normal(shape)
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    return v


def variation(means: np.ndarray) -> dict:
    """Realised variation of theta_t = means[t]: sum_t ||theta_{t+1} - theta_t|| in the
    infinity norm (the K-armed budget of hedging §8.2) and the 2-norm (eq. (1))."""
    diff = np.diff(means, axis=0)
    return {
        "variation_inf": float(np.abs(diff).max(axis=1).sum()) if len(diff) else 0.0,
        "variation_l2": float(np.sqrt((diff ** 2).sum(axis=1)).sum()) if len(diff) else 0.0,
    }
