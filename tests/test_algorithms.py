"""Each compiled kernel against a hand-computed step or an independent transcription
of the paper's pseudo-code."""

import math

import numpy as np
import pytest
from conftest import argmax_ties

from bandits.algorithms import EXP3S, UCB, BanditOverBandit, SlidingWindowUCB, play
from bandits.algorithms.exp3 import exp3s_parameters, rexp3_parameters
from bandits.algorithms.tuning import confidence_radius
from bandits.reference import ReferenceSWUCB

INFO = {"R": 0.1, "L": 1.0, "S": 1.0, "B_T": 1.0, "d": 2}


def test_sw_ucb_matches_literal_algorithm_1(sinusoid_trial):
    inst, rewards = sinusoid_trial
    for w in (1, 7, 150):
        fast = SlidingWindowUCB(window=w).play(rewards, inst.info, np.random.default_rng(0))
        slow = play(ReferenceSWUCB(window=w), rewards, inst.info, np.random.default_rng(0))
        np.testing.assert_array_equal(fast, slow)


def test_sw_ucb_first_steps_by_hand():
    rewards = np.array([[0.9, 0.0], [0.0, 0.2], [0.5, 0.5], [0.5, 0.5]])
    info = dict(INFO, S=3.0)
    beta = confidence_radius(0.1, 2, 2, 1.0, 1.0, 0.5, 3.0)  # 3.189
    algo = SlidingWindowUCB(window=2, lam=1.0, delta=0.5)
    a = algo.play(rewards, info, np.random.default_rng(0))
    assert algo.derived_["beta"] == pytest.approx(beta)
    # t=1: both indices beta/sqrt(1): tie -> arm 0 (lowest index); it pays 0.9.
    # t=2: arm 0: 0.9/2 + beta/sqrt(2) = 2.705 < arm 1: beta = 3.189 -> arm 1, pays 0.2.
    # t=3: arm 0: 0.45 + beta/sqrt 2 > arm 1: 0.1 + beta/sqrt 2 -> arm 0, pays 0.5.
    # t=4: the window (w=2) holds rounds 2 and 3 only: arm 0: 0.25 + beta/sqrt 2 > arm 1: 0.1 + beta/sqrt 2.
    np.testing.assert_array_equal(a, [0, 1, 0, 0])
    # With w=3 round 1 is still in: arm 0: 1.4/3 + beta_3/sqrt 3 < arm 1: 0.1 + beta_3/sqrt 2 -> arm 1.
    a3 = SlidingWindowUCB(window=3, lam=1.0, delta=0.5).play(rewards, info, np.random.default_rng(0))
    np.testing.assert_array_equal(a3, [0, 1, 0, 1])


def test_pinv_variant_unseen_arm_options():
    rewards = np.full((50, 2), 0.4)
    stuck = SlidingWindowUCB(window=10, estimator="pinv", lam=0.0, unseen_index="zero").play(
        rewards, INFO, np.random.default_rng(0))
    assert (stuck == 0).all()  # the paper taken literally: arm 1 never gets a positive index
    explore = SlidingWindowUCB(window=10, estimator="pinv", lam=0.0, unseen_index="inf").play(
        rewards, INFO, np.random.default_rng(0))
    assert set(explore[:2]) == {0, 1}


def _oful_reference(rewards, info, lam, delta):
    T, K = rewards.shape
    counts, sums, out = np.zeros(K), np.zeros(K), []
    for t in range(T):
        n = t
        beta = info["R"] * math.sqrt(K * math.log((1 + n * info["L"] ** 2 / lam) / delta)) + math.sqrt(lam) * info["S"]
        idx = sums / (lam + counts) + beta / np.sqrt(lam + counts)
        a = argmax_ties(idx)
        out.append(a)
        counts[a] += 1
        sums[a] += rewards[t, a]
    return np.array(out)


def test_ucb_is_oful_with_growing_radius(sinusoid_trial):
    inst, rewards = sinusoid_trial
    got = UCB().play(rewards, inst.info, np.random.default_rng(0))
    np.testing.assert_array_equal(got, _oful_reference(rewards, inst.info, 1.0, 1 / len(rewards)))


def test_rexp3_batch_one_is_uniform_sampling():
    # Restarting every round keeps p uniform: arm = [u >= 1/2] for K = 2.
    rewards = np.random.default_rng(1).random((300, 2))
    info = dict(INFO, B_T=1e12)
    algo = EXP3S(variant="rexp3")
    got = algo.play(rewards, info, np.random.default_rng(5))
    assert algo.derived_["batch"] == 1
    u = np.random.default_rng(5).random(300)
    np.testing.assert_array_equal(got, (u >= 0.5).astype(int))


def test_rexp3_parameters_by_hand():
    p = rexp3_parameters(30000, 2, 1.0)
    batch = math.ceil((2 * math.log(2)) ** (1 / 3) * 30000 ** (2 / 3))
    assert p["batch"] == batch
    assert p["gamma"] == pytest.approx(min(1, math.sqrt(2 * math.log(2) / ((math.e - 1) * batch))))


def _exp3s_reference(rewards, alpha, gamma, u):
    """Auer et al. (2002) Fig. 6, unnormalised weights as printed."""
    T, K = rewards.shape
    w = np.ones(K)
    out = []
    for t in range(T):
        p = (1 - gamma) * w / w.sum() + gamma / K
        a = int(np.searchsorted(np.cumsum(p), u[t], side="right"))
        a = min(a, K - 1)
        out.append(a)
        xhat = np.zeros(K)
        xhat[a] = rewards[t, a] / p[a]
        w = w * np.exp(gamma * xhat / K) + math.e * alpha / K * w.sum()
    return np.array(out)


def test_exp3s_matches_auer_fig6():
    rewards = np.random.default_rng(2).random((400, 3))
    algo = EXP3S(variant="exp3s", switches=2)
    got = algo.play(rewards, dict(INFO, d=3), np.random.default_rng(9))
    p = exp3s_parameters(400, 3, 2)
    ref = _exp3s_reference(rewards, p["alpha"], p["gamma"], np.random.default_rng(9).random(400))
    np.testing.assert_array_equal(got, ref)


def test_bob_matches_transcription_of_algorithm_2(sinusoid_trial):
    inst, rewards = sinusoid_trial
    T = len(rewards)
    algo = BanditOverBandit()
    got = algo.play(rewards, inst.info, np.random.default_rng(3))
    p = algo.derived_
    H, J, gamma, Q = p["H"], p["J"], p["gamma"], p["Q"]
    u = np.random.default_rng(3).random(p["n_blocks"])
    s = np.ones(len(J))  # eq. (12), plain (not log) weights
    expected = []
    for i in range(p["n_blocks"]):
        probs = (1 - gamma) * s / s.sum() + gamma / len(J)  # eq. (13)
        j = min(int(np.searchsorted(np.cumsum(probs), u[i], side="right")), len(J) - 1)
        block = rewards[i * H:min(T, (i + 1) * H)]
        acts = play(ReferenceSWUCB(window=J[j], delta=1 / T), block, inst.info, None)
        expected.extend(acts)
        total = block[np.arange(len(block)), acts].sum()
        s[j] *= math.exp(gamma / (len(J) * probs[j]) * (0.5 + total / Q))  # eq. (14)
    np.testing.assert_array_equal(got, expected)
