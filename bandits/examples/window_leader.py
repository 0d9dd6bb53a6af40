"""A compiled algorithm written the way the built-in ones are (docs/architecture.md):
follow the leader over a sliding window, with epsilon-uniform exploration.

Per round t: with probability ``epsilon`` a uniform arm, else the arm whose rewards
over the last ``window`` rounds have the best mean (an arm unseen in the window first;
ties to the lowest index). Its config, for a folder of your own configs
(``DRIFT_BANDITS_CONF=/path/to/conf``, file ``algo/window_leader.yaml``)::

    name: window_leader
    _target_: window_leader.WindowLeader
    label: null
    window: 200
    epsilon: 0.05
"""

import numpy as np
from numba import njit

from bandits.algorithms.sliding_window_ucb import observe_arm, refresh_arm_sums
from bandits.algorithms.window import new_window
from bandits.errors import ConfigError, require_float, require_int
from bandits.numerics import argmax_lowest


@njit(cache=True)
def window_leader_kernel(rewards, window, epsilon, u, actions):
    """The kernel: reads like the algorithm; constants and uniforms come in resolved."""
    T, K = rewards.shape
    rows, state = new_window(min(window, T), 2)
    counts, sums, means = np.zeros(K), np.zeros(K), np.empty(K)
    for t in range(T):
        for a in range(K):
            means[a] = sums[a] / counts[a] if counts[a] > 0 else np.inf
        arm = argmax_lowest(means) if u[t, 0] >= epsilon else min(int(u[t, 1] * K), K - 1)
        actions[t] = arm
        if observe_arm(rows, state, counts, sums, arm, rewards[t, arm]):  # only the chosen arm's reward
            refresh_arm_sums(rows, sums)


class WindowLeader:
    """The class: parameters stored as given, checked before any work, run by ``play``."""

    problem_kinds = ("karmed", "linear", "pricing")  # one reward per arm: any problem with arms

    def __init__(self, window: int = 200, epsilon: float = 0.05):
        self.window = window
        self.epsilon = epsilon

    def needs(self) -> tuple:
        return ()  # no constant of the environment

    def check_params(self) -> None:
        require_int("algo.window", self.window, minimum=1)
        if not 0 <= require_float("algo.epsilon", self.epsilon) <= 1:
            raise ConfigError(f"algo.epsilon must lie in [0, 1], got {self.epsilon}.")

    def play(self, rewards, info, rng, features=None):
        T = rewards.shape[0]
        actions = np.empty(T, dtype=np.int64)
        window_leader_kernel(rewards, int(self.window), float(self.epsilon), rng.random((T, 2)), actions)
        self.derived_ = {"window": int(self.window)}
        return actions
