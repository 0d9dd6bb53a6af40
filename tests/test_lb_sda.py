"""SW-LB-SDA (Baudry, Russac & Cappé 2021) as the authors' code reads it: round-exact agreement
with the literal transcription under every reading, the first rounds by hand, the tie rule of
the duels, the derived constants, the parameter checks, and what the window buys on a switch."""

import math

import numpy as np
import pytest

from bandits.algorithms import SlidingWindowLBSDA, ThompsonSampling, play
from bandits.environments.piecewise_bernoulli import PiecewiseBernoulli
from bandits.errors import ConfigError
from bandits.reference import ReferenceSWLBSDA


def table(seed, T=3000, K=5):
    env = PiecewiseBernoulli(K=K, n_changes=4, min_gap=0.1)
    inst = env.instance(T, np.random.default_rng(seed))
    return inst, env.rewards(inst, np.random.default_rng(100 + seed))


READINGS = [{}, {"window_unit": "rounds"}, {"window": 50, "explo": "sqrt_log"},
            {"window": 80, "diversity": 5, "round_order": "index"}, {"window": 3000, "diversity": "off", "explo": 0},
            {"window": 7, "window_unit": "rounds"}]


@pytest.mark.parametrize("params", READINGS)
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_agrees_with_the_literal_transcription(params, seed):
    inst, rewards = table(seed)
    info = dict(inst.info)
    got = SlidingWindowLBSDA(**params).play(rewards, info, np.random.default_rng(seed))
    want = play(ReferenceSWLBSDA(**params), rewards, info, np.random.default_rng(seed))
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got)) == 5  # every arm played: the check is not vacuous


def test_the_options_change_the_play():
    """Each reading's branch is exercised: the diversity flag (period 5; at the default period,
    101 rounds here, it seldom fires), the rounds window and the index order each change the
    actions on the same table and seed."""
    inst, rewards = table(0)
    info = dict(inst.info)
    for params, other in (({"window": 80, "diversity": 5}, {"window": 80, "diversity": "off"}),
                          ({}, {"window_unit": "rounds"}), ({}, {"round_order": "index"})):
        a = SlidingWindowLBSDA(**params).play(rewards, info, np.random.default_rng(0))
        b = SlidingWindowLBSDA(**other).play(rewards, info, np.random.default_rng(0))
        assert (a != b).any(), other


def test_first_rounds_by_hand():
    """Arm 0 always pays 1, arm 1 always 0; tau = 100: f = ln(100)^0.333 = 1.66 and D = 21.
    Steps 0, 1: arms 0, 1 (initialisation). Round 1: both have N = 1 < f, both are flagged and
    played in Fisher-Yates order (one rng.integers(0, 2) draw; the leader, arm 0, is the only
    arm with the top sum, so no tie draw). Round 2 on: N = (2, 2), the leader 0 (more reward)
    beats arm 1 (0 >= 1 fails) and is played alone; the diversity rule never fires, as the
    leader is played every round."""
    T = 40
    rewards = np.zeros((T, 2))
    rewards[:, 0] = 1.0
    got = SlidingWindowLBSDA(window=100).play(rewards, {}, np.random.default_rng(3))
    order = [0, 1]
    j = np.random.default_rng(3).integers(0, 2)
    order[1], order[j] = order[j], order[1]
    assert got.tolist() == [0, 1] + order + [0] * (T - 4)


def test_ties_in_a_duel_go_to_the_challenger():
    """Two arms that always pay 1: every duel is a tie, which the authors' code (>=) gives to the
    challenger, so both arms keep being played; a strict test would play the leader only."""
    rewards = np.ones((2000, 2))
    got = SlidingWindowLBSDA(window=100).play(rewards, {}, np.random.default_rng(0))
    share = np.bincount(got, minlength=2) / len(got)
    assert share.min() > 0.3


def test_derived_constants_by_hand():
    """The authors' Bernoulli notebook: T = 1e4, two breakpoints, K = 3: tau = int(2 sqrt(T ln T / 2))
    = 429, f = ln(429)^0.333 = 1.82, D = int(2 ln(429)^2) = 73, eligibility ln(429)^2 = 36.7."""
    algo = SlidingWindowLBSDA()
    algo.play(np.zeros((10_000, 3)), {"Upsilon_T": 2, "d": 1}, np.random.default_rng(0))
    p = algo.derived_
    assert p["window"] == 429 == int(2 * math.sqrt(1e4 * math.log(1e4) / 2))
    assert p["forced_exploration"] == pytest.approx(math.log(429) ** 0.333)
    assert p["diversity_period"] == 73
    assert p["diversity_eligible"] == pytest.approx(36.7, abs=0.05)
    q = SlidingWindowLBSDA(window=350, explo="sqrt_log", diversity="off").resolve(10_000, {})
    assert q["window"] == 350 and q["forced_exploration"] == pytest.approx(math.sqrt(math.log(350)))


def test_needs_and_checks():
    assert SlidingWindowLBSDA().needs() == ("Upsilon_T",)
    assert SlidingWindowLBSDA(window=300).needs() == ()
    assert SlidingWindowLBSDA(Upsilon_T=3).needs() == ()
    for bad, key in ((SlidingWindowLBSDA(window=0), "algo.window"),
                     (SlidingWindowLBSDA(window_constant=0.0), "algo.window_constant"),
                     (SlidingWindowLBSDA(window_unit="seconds"), "algo.window_unit"),
                     (SlidingWindowLBSDA(explo="log"), "algo.explo"),
                     (SlidingWindowLBSDA(explo=-1.0), "algo.explo"),
                     (SlidingWindowLBSDA(diversity="sometimes"), "algo.diversity"),
                     (SlidingWindowLBSDA(diversity=2.5), "algo.diversity"),
                     (SlidingWindowLBSDA(round_order="random"), "algo.round_order"),
                     (SlidingWindowLBSDA(Upsilon_T=-1), "algo.Upsilon_T")):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            bad.check_params()


def test_the_window_tracks_a_switch_that_plain_thompson_sampling_misses():
    """Two arms swap at T/2; SW-LB-SDA (the notebooks' tau) plays the new best arm far more often
    in the second half than Thompson sampling on the whole history."""
    T = 6000
    means = np.zeros((T, 2))
    means[: T // 2] = [0.8, 0.2]
    means[T // 2:] = [0.2, 0.8]
    rewards = (np.random.default_rng(0).random((T, 2)) < means).astype(float)
    info = {"reward_range": (0.0, 1.0), "Upsilon_T": 1, "d": 1, "K": 2}
    sda = SlidingWindowLBSDA().play(rewards, info, np.random.default_rng(1))
    ts = ThompsonSampling().play(rewards, info, np.random.default_rng(1))
    assert (sda[T // 2:] == 1).mean() > 0.8 > (ts[T // 2:] == 1).mean()
