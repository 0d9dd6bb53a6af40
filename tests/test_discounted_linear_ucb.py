"""D-LinUCB (Russac, Vernade & Cappe 2019, Algorithm 1): the compiled kernel against the
literal transcription, the radius and the tuned gamma by hand, the exact per-round solve
against a direct one after 1e5 rounds, and the gamma = 1 limit (OFUL's kernel)."""

import math

import numpy as np
import pytest

from bandits.algorithms import DiscountedLinUCB, play
from bandits.algorithms.discounted_linear_ucb import (
    discounted_least_squares,
    discounted_radii,
    discounted_radius,
    gamma_opt,
    radius_schedule,
)
from bandits.algorithms.sliding_window_ucb import linear_ucb_segment
from bandits.environments import PiecewiseBernoulli, PiecewiseLinear
from bandits.errors import ConfigError
from bandits.reference import ReferenceDLinUCB


@pytest.fixture(scope="module")
def fresh_trial():
    env = PiecewiseLinear(d=3, n_breakpoints=5, action_set="fresh", n_actions=7)
    inst = env.instance(1500, np.random.default_rng(0))
    return inst, env.rewards(inst, np.random.default_rng(1))


@pytest.mark.parametrize("gamma", [0.9, 0.99, 0.999, 1.0])
def test_kernel_matches_literal_algorithm_1_on_fresh_action_sets(fresh_trial, gamma):
    inst, rewards = fresh_trial
    fast = DiscountedLinUCB(gamma=gamma).play(rewards, inst.info, None, features=inst.features)
    slow = play(ReferenceDLinUCB(gamma=gamma), rewards, inst.info, None, inst.features)
    np.testing.assert_array_equal(fast, slow)
    assert len(np.unique(fast)) > 1


@pytest.mark.parametrize("seed", [3, 4])
def test_kernel_matches_literal_algorithm_1_on_fixed_action_sets_with_tuned_gamma(seed):
    env = PiecewiseLinear(d=4, n_breakpoints=6, action_set="fixed", n_actions=9)
    inst = env.instance(1500, np.random.default_rng(seed))
    rewards = env.rewards(inst, np.random.default_rng(seed + 10))
    assert inst.features.shape == (1, 9, 4)
    algo = DiscountedLinUCB(lam=0.5, delta=0.05)
    fast = algo.play(rewards, inst.info, None, features=inst.features)
    gamma = 1 - (inst.info["B_T"] / (4 * 1500)) ** (2 / 3)
    assert algo.derived_["gamma"] == pytest.approx(gamma, rel=1e-14)
    slow = play(ReferenceDLinUCB(gamma=gamma, lam=0.5, delta=0.05), rewards, inst.info, None, inst.features)
    np.testing.assert_array_equal(fast, slow)


def test_kernel_matches_literal_algorithm_1_on_k_arms():
    env = PiecewiseBernoulli(K=4, n_changes=4, min_gap=0.2)
    inst = env.instance(1500, np.random.default_rng(5))
    rewards = env.rewards(inst, np.random.default_rng(6))
    for gamma in (0.95, 0.995):
        fast = DiscountedLinUCB(gamma=gamma).play(rewards, inst.info, None)
        slow = play(ReferenceDLinUCB(gamma=gamma), rewards, inst.info, None)
        np.testing.assert_array_equal(fast, slow)
        # K arms are the basis vectors: the same run as on the (1, K, K) identity
        np.testing.assert_array_equal(fast, DiscountedLinUCB(gamma=gamma).play(rewards, inst.info, None,
                                                                               features=np.eye(4)[None]))


def test_radius_by_hand():
    # n = 3 observations, gamma = 0.9: (1 - 0.9^6) / (1 - 0.81) = 1 + 0.81 + 0.6561 = 2.4661
    lam, sigma, d, L, S, delta = 0.5, 0.1, 2, 2.0, 1.5, 0.05
    by_hand = math.sqrt(0.5) * 1.5 + 0.1 * math.sqrt(2 * math.log(20) + 2 * math.log(1 + 4 * 2.4661 / (0.5 * 2)))
    assert discounted_radius(3, 0.9, lam, sigma, d, L, S, delta) == pytest.approx(by_hand, rel=1e-12)
    # no observation yet: the log term vanishes
    assert discounted_radius(0, 0.9, lam, sigma, d, L, S, delta) == pytest.approx(
        math.sqrt(0.5) * 1.5 + 0.1 * math.sqrt(2 * math.log(20)), rel=1e-14)
    # gamma = 1: the limit n (OFUL's determinant radius), and continuity as gamma -> 1
    oful = math.sqrt(0.5) * 1.5 + 0.1 * math.sqrt(2 * math.log(20) + 2 * math.log(1 + 4 * 7 / (0.5 * 2)))
    assert discounted_radius(7, 1.0, lam, sigma, d, L, S, delta) == pytest.approx(oful, rel=1e-14)
    assert discounted_radius(7, 1 - 1e-9, lam, sigma, d, L, S, delta) == pytest.approx(oful, rel=1e-7)
    # the kernel's schedule: index t = the t observations before round t + 1
    radii = discounted_radii(5, 0.9, lam, sigma, d, L, S, delta)
    assert radii[3] == discounted_radius(3, 0.9, lam, sigma, d, L, S, delta) and np.all(np.diff(radii) > 0)


def test_tuned_gamma_by_hand():
    # (B_T / (d T))^(2/3) with B_T = 2, d = 5, T = 1000: (4e-4)^(2/3) = 0.00542884...
    assert gamma_opt(1000, 5, 2.0) == pytest.approx(1 - 0.0054288352331898, rel=1e-13)
    assert gamma_opt(1000, 5, 0.0) == 1.0
    with pytest.raises(ConfigError, match="B_T < d T"):
        gamma_opt(10, 2, 20.0)
    algo = DiscountedLinUCB()
    info = {"d": 5, "R": 0.1, "L": 1.0, "S": 1.0, "B_T": 2.0}
    assert algo.resolve(1000, info)["gamma"] == gamma_opt(1000, 5, 2.0)
    assert algo.resolve(1000, info)["delta"] == 1e-3
    assert "B_T" in algo.needs() and "B_T" not in DiscountedLinUCB(gamma=0.99).needs()
    assert "B_T" not in DiscountedLinUCB(B_T=3.0).needs()


def _direct(X, Y, gamma, lam):
    """V, V~, theta, M from the weighted sums: weights gamma^(n-s) and gamma^(2(n-s))."""
    n, d = X.shape
    w = gamma ** np.arange(n - 1, -1, -1, dtype=float)
    V = lam * np.eye(d) + (X * w[:, None]).T @ X
    Vt = lam * np.eye(d) + (X * (w * w)[:, None]).T @ X
    theta = np.linalg.solve(V, X.T @ (w * Y))
    Vinv = np.linalg.inv(V)
    return V, Vt, theta, Vinv @ Vt @ Vinv


@pytest.mark.parametrize("gamma", [0.9, 0.999, 0.99999, 1.0])
def test_exact_solve_matches_direct_solve_after_1e5_rounds(gamma):
    rng = np.random.default_rng(0)
    n, d = 100_000, 5
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    theta, M, V, Vt = discounted_least_squares(X, Y, gamma, 1.0)
    ref_V, ref_Vt, ref_theta, ref_M = _direct(X, Y, gamma, 1.0)
    for got, ref in ((V, ref_V), (Vt, ref_Vt), (theta, ref_theta), (M, ref_M)):
        assert np.linalg.norm(got - ref) <= 1e-8 * np.linalg.norm(ref)
    if gamma == 1.0:  # no discount: V~ = V and M = V^{-1}
        np.testing.assert_allclose(M, np.linalg.inv(ref_V), rtol=1e-9, atol=1e-15)


def test_gamma_one_is_the_oful_kernel_with_the_same_radius(fresh_trial):
    inst, rewards = fresh_trial
    T, c = len(rewards), inst.info
    algo = DiscountedLinUCB(gamma=1.0)
    ours = algo.play(rewards, c, None, features=inst.features)
    betas = discounted_radii(T, 1.0, 1.0, c["R"], c["d"], c["L"], c["S"], 1.0 / T)
    oful = np.empty(T, dtype=np.int64)
    linear_ucb_segment(inst.features, rewards, 0, T, T, 1.0, betas, oful)
    np.testing.assert_array_equal(ours, oful)


@pytest.mark.parametrize("radius", ["horizon", "anytime"])
def test_kernel_matches_literal_algorithm_1_under_wus_corrected_radii(fresh_trial, radius):
    inst, rewards = fresh_trial
    for gamma in (0.95, 0.999):
        fast = DiscountedLinUCB(gamma=gamma, radius=radius).play(rewards, inst.info, None, features=inst.features)
        slow = play(ReferenceDLinUCB(gamma=gamma, radius=radius), rewards, inst.info, None, inst.features)
        np.testing.assert_array_equal(fast, slow)
        # the wider radius explores more: the run differs from the paper's radius
        paper = DiscountedLinUCB(gamma=gamma).play(rewards, inst.info, None, features=inst.features)
        assert np.any(fast != paper)
    env = PiecewiseBernoulli(K=4, n_changes=4, min_gap=0.2)
    k_inst = env.instance(1500, np.random.default_rng(5))
    k_rewards = env.rewards(k_inst, np.random.default_rng(6))
    np.testing.assert_array_equal(DiscountedLinUCB(gamma=0.99, radius=radius).play(k_rewards, k_inst.info, None),
                                  play(ReferenceDLinUCB(gamma=0.99, radius=radius), k_rewards, k_inst.info, None))


def test_corrected_radii_by_hand():
    # Wu 2026: horizon = the level delta / T at every round (2 log T more under the root, §6.1);
    # anytime = delta / (2 n (1 + ln n)^2) after n observations (eq. (5)), n = 0 read as n = 1
    lam, sigma, d, L, S, delta, T, g = 0.5, 0.1, 2, 2.0, 1.5, 0.05, 40, 0.9
    paper = radius_schedule(T, g, lam, sigma, d, L, S, delta, "paper")
    horizon = radius_schedule(T, g, lam, sigma, d, L, S, delta, "horizon")
    anytime = radius_schedule(T, g, lam, sigma, d, L, S, delta, "anytime")
    np.testing.assert_array_equal(paper, discounted_radii(T, g, lam, sigma, d, L, S, delta))
    root = math.sqrt(lam) * S
    np.testing.assert_allclose(((horizon - root) / sigma) ** 2 - ((paper - root) / sigma) ** 2, 2 * math.log(T),
                               rtol=1e-12)
    for n in (0, 1, 3, 39):
        m = max(n, 1)
        assert anytime[n] == pytest.approx(
            discounted_radius(n, g, lam, sigma, d, L, S, delta / (2 * m * (1 + math.log(m)) ** 2)), rel=1e-14)
    # the allocation sums to at most 1 (Wu's bound pi_1 + integral = 1/2 + 1/2)
    t = np.arange(1, 10 ** 6 + 1)
    assert np.sum(1 / (2 * t * (1 + np.log(t)) ** 2)) <= 1
    assert np.all(anytime > paper) and np.all(horizon > paper)
    algo = DiscountedLinUCB(gamma=g, radius="anytime")
    algo.check_params()
    assert algo.resolve(T, {"d": d, "R": sigma, "L": L, "S": S})["radius"] == "anytime"


@pytest.mark.parametrize("kwargs,fragment", [
    ({"radius": "uniform"}, "algo.radius"),
    ({"gamma": 1.5}, "algo.gamma"), ({"gamma": 0.0}, "algo.gamma"), ({"gamma": "best"}, "algo.gamma"),
    ({"lam": 0.0}, "algo.lam"), ({"delta": 1.0}, "algo.delta"), ({"S": -1.0}, "algo.S"),
])
def test_bad_input(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        DiscountedLinUCB(**kwargs).check_params()
