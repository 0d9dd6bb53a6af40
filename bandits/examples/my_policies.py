"""A user's own policy, run through the same runner, seeds, tables and figures as the
built-in algorithms (the protocol: bandits/algorithms/protocol.py):

    python run.py algo=custom algo._target_=examples.my_policies.DiscountedMeans +algo.gamma=0.99

From this folder, ``algo._target_=my_policies.DiscountedMeans`` works too: a module in the
current directory is importable.
"""

import numpy as np

from bandits.errors import ConfigError


class DiscountedMeans:
    """Greedy on discounted reward averages, with epsilon-uniform exploration: every
    round each arm's statistics are multiplied by ``gamma`` (old rewards fade)."""

    problem_kinds = ("karmed",)  # the kinds of problem it solves; checked before any run

    def __init__(self, gamma: float = 0.99, epsilon: float = 0.05):
        self.gamma = gamma  # store parameters only (fitted state ends in _)
        self.epsilon = epsilon

    def check_params(self) -> None:
        if not 0 < self.gamma <= 1 or not 0 <= self.epsilon <= 1:
            raise ConfigError(f"DiscountedMeans needs 0 < gamma <= 1 and 0 <= epsilon <= 1, "
                              f"got gamma={self.gamma}, epsilon={self.epsilon}.")

    def reset(self, n_arms, horizon, rng, info):
        self.rng_ = rng  # the policy's own stream: results do not depend on n_jobs
        self.sums_ = np.zeros(n_arms)
        self.counts_ = np.zeros(n_arms)

    def select(self, t) -> int:
        if self.rng_.random() < self.epsilon or self.counts_.min() == 0:
            return int(self.rng_.integers(len(self.sums_)))
        return int(np.argmax(self.sums_ / self.counts_))

    def update(self, t, arm, reward):
        self.sums_ *= self.gamma
        self.counts_ *= self.gamma
        self.sums_[arm] += reward
        self.counts_[arm] += 1.0
