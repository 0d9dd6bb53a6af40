"""A policy of your own cannot change what the other algorithms of a trial face, nor the
runner's record of its actions (bandits/algorithms/protocol.py, ``sealed``): every array it
is handed is a read-only view, and a write into one is one paragraph naming the policy."""

import numpy as np
import pytest

from bandits.environments import DriftingContextual, PiecewiseBernoulli
from bandits.errors import ReportedError
from bandits.simulation import run_cell, trial_rewards


class ZeroesTheRewards:
    """A play() of its own that writes into the trial's reward table."""

    def play(self, rewards, info, rng, features=None):
        rewards[:] = 1.0
        return np.zeros(rewards.shape[0], dtype=np.int64)


class WritesTheContexts:
    problem_kinds = ("contextual",)

    def reset(self, n_arms, horizon, rng, info):
        info["contexts"][:] = 0.0

    def select(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


class RewritesItsArms:
    """A batched policy whose update() writes into the arms it is handed (int32 arms: the
    runner's own record is what it gets)."""

    batched = True

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self.n = n_trials

    def select(self, t):
        return np.zeros(self.n, dtype=np.int32)

    def update(self, t, arms, rewards):
        arms[:] = 1


def bernoulli():
    env = PiecewiseBernoulli(K=3, n_changes=1)
    inst = env.instance(200, np.random.default_rng(0))
    return env, inst, trial_rewards(env, inst, 0, 200, 0)


@pytest.mark.parametrize("policy", [ZeroesTheRewards(), RewritesItsArms()], ids=["play", "batched"])
def test_a_write_into_the_trial_is_refused_and_the_table_is_unchanged(policy):
    env, inst, rewards = bernoulli()
    before = rewards.copy()
    with pytest.raises(ReportedError, match="read-only") as err:
        run_cell(policy, "mine", inst, rewards, 0, 200, 0)
    assert f"your {type(policy).__name__}" in str(err.value)
    np.testing.assert_array_equal(rewards, before)  # the next algorithm of the trial faces the same table


def test_a_contextual_policy_cannot_change_the_instances_contexts():
    env = DriftingContextual(K=3, d=3, n_pieces=2, n_policies=10)
    inst = env.instance(100, np.random.default_rng(0))
    before = inst.info["contexts"].copy()
    with pytest.raises(ReportedError, match="read-only"):
        run_cell(WritesTheContexts(), "mine", inst, env.rewards(inst, np.random.default_rng(1)), 0, 100, 0)
    np.testing.assert_array_equal(inst.info["contexts"], before)


def test_built_in_and_shipped_example_policies_still_run():
    from bandits.algorithms.discounted import DiscountedUCB
    from bandits.examples.batched_policies import BatchedDiscountedUCB

    env, inst, rewards = bernoulli()
    for policy in (DiscountedUCB(gamma=0.99), BatchedDiscountedUCB(gamma=0.99)):
        assert np.isfinite(run_cell(policy, "p", inst, rewards, 0, 200, 0)["final_regret"])
