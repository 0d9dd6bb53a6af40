"""DS-TS (Qi, Wang & Zhu 2023, Algorithm 1): round-exact agreement with the literal
transcription under both readings of a stale arm, the gamma rules by hand, the first rounds
by hand, the parameter checks, and what the discount buys on a switching problem."""

import math

import numpy as np
import pytest

from bandits.algorithms import DiscountedGaussianThompson, ThompsonSampling, play
from bandits.environments.piecewise_bernoulli import PiecewiseBernoulli
from bandits.errors import ConfigError
from bandits.reference import ReferenceDSTS


def table(seed, T=3000, K=5):
    env = PiecewiseBernoulli(K=K, n_changes=4, min_gap=0.1)
    inst = env.instance(T, np.random.default_rng(seed))
    return inst, env.rewards(inst, np.random.default_rng(100 + seed))


@pytest.mark.parametrize("params", [{}, {"gamma": "authors", "stale": "authors"}, {"gamma": 0.9, "tau_max": 0.35},
                                    {"gamma": "smooth"}, {"gamma": 0.5, "stale": "authors"}])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_agrees_with_the_literal_transcription(params, seed):
    inst, rewards = table(seed)
    info = dict(inst.info)
    got = DiscountedGaussianThompson(**params).play(rewards, info, np.random.default_rng(seed))
    want = play(ReferenceDSTS(**params), rewards, info, np.random.default_rng(seed))
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got)) == 5  # every arm played: the check is not vacuous


def test_the_two_readings_of_a_stale_arm_differ_and_each_is_transcribed():
    """gamma = 0.5: an arm unplayed for 27 rounds has N < 1e-8, where the authors' code reads its
    mean as the discounted sum (about 0) and the text keeps it: on a Bernoulli table the two
    readings choose different arms (so the branch is exercised), and each agrees with its
    transcription round by round."""
    inst, rewards = table(0)
    info = dict(inst.info)
    text = DiscountedGaussianThompson(gamma=0.5).play(rewards, info, np.random.default_rng(0))
    authors = DiscountedGaussianThompson(gamma=0.5, stale="authors").play(rewards, info, np.random.default_rng(0))
    assert (text != authors).sum() > 20
    for params, got in (({"gamma": 0.5}, text), ({"gamma": 0.5, "stale": "authors"}, authors)):
        np.testing.assert_array_equal(got, play(ReferenceDSTS(**params), rewards, info, np.random.default_rng(0)))


def test_first_rounds_by_hand():
    """Round 1: every arm ~ N(0, tau_max^2), the largest sample played; then the pulled arm's mean
    is its reward and its scale min(1, tau_max) (N = 1), the others unchanged (line 2's 0, tau_max)."""
    rewards = np.array([[0.3, 0.9, 0.1], [0.3, 0.9, 0.1], [0.3, 0.9, 0.1]])
    info = {"reward_range": (0.0, 1.0), "Upsilon_T": 0, "d": 1, "K": 2}
    got = DiscountedGaussianThompson(gamma=0.5, tau_max=0.2).play(rewards, info, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    first = int(np.argmax([rng.normal(0.0, 0.2) for _ in range(3)]))
    mean, sd = [0.0] * 3, [0.2] * 3
    mean[first], sd[first] = rewards[0, first], min(1.0, 0.2)
    second = int(np.argmax([rng.normal(mean[i], sd[i]) for i in range(3)]))
    assert got[:2].tolist() == [first, second]


def test_gamma_rules_by_hand():
    info = {"reward_range": (0.0, 1.0), "Upsilon_T": 9, "d": 1, "K": 2}
    T = 100_000
    assert DiscountedGaussianThompson().resolve(T, info)["gamma"] == pytest.approx(1 - math.sqrt(10 / T))  # B_T = 10
    assert DiscountedGaussianThompson().resolve(T, info)["gamma"] == pytest.approx(0.99, abs=1e-12)
    assert DiscountedGaussianThompson(gamma="authors").resolve(T, info)["gamma"] == pytest.approx(
        1 - 10 * math.sqrt(9 / T))  # 0.905: the authors' code for the same problem
    assert DiscountedGaussianThompson(gamma="smooth").resolve(10_000, info)["gamma"] == pytest.approx(0.9)
    assert DiscountedGaussianThompson(gamma=0.97).resolve(T, info)["gamma"] == 0.97
    assert DiscountedGaussianThompson().resolve(T, {**info, "Upsilon_T": 0})["gamma"] == pytest.approx(
        1 - math.sqrt(1 / T))  # one phase


def test_needs_and_checks():
    assert set(DiscountedGaussianThompson().needs()) == {"Upsilon_T", "reward_range"}
    assert DiscountedGaussianThompson(gamma="smooth").needs() == ("reward_range",)
    assert DiscountedGaussianThompson(gamma=0.9, Upsilon_T=3, reward_range=[0, 1]).needs() == ()
    for bad, key in ((DiscountedGaussianThompson(gamma="fast"), "algo.gamma"),
                     (DiscountedGaussianThompson(gamma=1.5), "algo.gamma"),
                     (DiscountedGaussianThompson(tau_max=0.0), "algo.tau_max"),
                     (DiscountedGaussianThompson(stale="never"), "algo.stale")):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            bad.check_params()


def test_the_discount_tracks_a_switch_that_plain_thompson_sampling_misses():
    """Two arms swap at T/2; DS-TS (Corollary 1's gamma) plays the new best arm far more often in
    the second half than Thompson sampling on the whole history."""
    T = 6000
    means = np.zeros((T, 2))
    means[: T // 2] = [0.8, 0.2]
    means[T // 2:] = [0.2, 0.8]
    rewards = (np.random.default_rng(0).random((T, 2)) < means).astype(float)
    info = {"reward_range": (0.0, 1.0), "Upsilon_T": 1, "d": 1, "K": 2}
    ds = DiscountedGaussianThompson().play(rewards, info, np.random.default_rng(1))
    ts = ThompsonSampling().play(rewards, info, np.random.default_rng(1))
    assert (ds[T // 2:] == 1).mean() > 0.8 > (ts[T // 2:] == 1).mean()
