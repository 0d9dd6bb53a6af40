"""MASTER over OFUL (Wei & Luo 2021, Alg. 3 over Alg. 8): the compiled kernel against the
literal transcription on seeded linear tables (action vectors and basis vectors; the paper's
defaults and every option), Eq. (36)'s rho, beta and the thresholds by hand, the base's
incremental V^{-1}, and tests that fire on a huge change once their thresholds are made small."""

import math

import numpy as np
import pytest
from conftest import piecewise_linear_problem

from bandits.algorithms import MasterOFUL, play_policy
from bandits.algorithms.master import max_order, rate_at, rate_table
from bandits.algorithms.master_oful import paper_beta
from bandits.algorithms.sliding_window_least_squares import ridge_push
from bandits.errors import ConfigError
from bandits.reference import ReferenceMasterOFUL

INFO = {"d": 2, "R": 0.1, "L": 1.0, "S": 1.0, "reward_bound": 1.0, "linear": True}


@pytest.fixture(scope="module")
def vectors():
    return piecewise_linear_problem(1500, 3, "fresh", 0, n_breakpoints=5)


@pytest.fixture(scope="module")
def basis():
    return piecewise_linear_problem(2000, 4, "basis", 2, n_breakpoints=4)


def two_arms(means, seed, noise=0.1):
    """Actions e_1, e_2 (one fixed set), Gaussian rewards around the (T, 2) means."""
    rng = np.random.default_rng(seed)
    return np.eye(2)[None], means + noise * rng.standard_normal(means.shape)


def huge_drop(T=2000):
    """Both arms at 0.9 / 0.7 for T/2 rounds, then at -0.9 / -0.7."""
    means = np.tile([0.9, 0.7], (T, 1))
    means[T // 2:] *= -1
    return means


def both(rewards, info, features, seed, **params):
    algo, ref = MasterOFUL(**params), ReferenceMasterOFUL(**params)
    actions = algo.play(rewards, info, np.random.default_rng(seed), features=features)
    expected = play_policy(ref, rewards, info, np.random.default_rng(seed), features=features)
    return algo, ref, actions, expected


def events_of(ref):
    return {"restarts": [r for r, cause in ref.events if cause > 0],
            "test": [cause for _, cause in ref.events if cause > 0], "blocks": [0] + [r for r, _ in ref.events]}


# the earlier reading (config master_oful_nolog): OFUL's usual radius, rho without logs, f~ clipped
NOLOG = {"rho_rule": "earlier", "rho_linear": 1.0, "radius": "oful", "f_tilde_clip": True}
OPTIONS = [{}, {"rho_cap": True}, {"start_order": "floor_log2_T"}, {"f_tilde_clip": True}, NOLOG,
           {**NOLOG, "rho_cap": True, "start_order": "floor_log2_T"}]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "paper")
@pytest.mark.parametrize("multiplier", [1.0, 1e-3])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_agrees_with_reference_on_vectors(vectors, seed, multiplier, options):
    inst, rewards = vectors
    algo, ref, actions, expected = both(rewards, inst.info, inst.features, seed, test_multiplier=multiplier,
                                        **options)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)


@pytest.mark.parametrize("options", [{}, NOLOG])
def test_kernel_agrees_with_reference_on_basis_vectors(basis, options):
    inst, rewards = basis
    assert inst.features is None
    algo, ref, actions, expected = both(rewards, inst.info, None, 5, test_multiplier=1e-3, **options)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)


@pytest.mark.parametrize("options", [{}, NOLOG])
def test_kernel_agrees_with_reference_when_tests_fire(options):
    features, rewards = two_arms(huge_drop(), 6)
    algo, ref, actions, expected = both(rewards, INFO, features, 7, test_multiplier=3e-4, **options)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    assert algo.derived_["test_restarts"] >= 2


def test_kernel_agrees_with_reference_when_test1_fires():
    # a rise: both arms near -0.8 for 1100 rounds (f~ falls well below 1 as OFUL's bonus shrinks),
    # then at 0.9: an instance ending after the rise has a mean reward far above U_t
    T = 1500
    means = np.tile([-0.8, -0.85], (T, 1))
    means[1100:] = [0.9, 0.85]
    features, rewards = two_arms(means, 8)
    algo, ref, actions, expected = both(rewards, INFO, features, 1, test1_constant=1e-3, **NOLOG)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    assert algo.derived_["test1_restarts"] + algo.derived_["both_tests_restarts"] >= 1
    fired = [r for r, cause in zip(algo.events_["restarts"], algo.events_["test"], strict=True) if cause & 1]
    assert fired and all(r > 1100 for r in fired)


def test_rho_and_thresholds_by_hand():
    """Eq. (35)-(36) at T = 1000, d = 5, delta = 1/T: L = log(T / delta) = 13.8155,
    beta = 4 sqrt(d L) = 33.25, rho(t) = beta sqrt(d L / t) = 4 d L / sqrt(t)."""
    T, d = 1000, 5
    algo = MasterOFUL()
    p = algo.resolve(T, dict(INFO, d=d))
    L = math.log(1000 / (1 / 1000))
    hat = 6.0 * (math.log2(1000) + 1.0) * L  # 6 (log2 T + 1) log(T / delta)
    assert p["rho_hat_factor"] == pytest.approx(hat) == pytest.approx(908.99, abs=0.01)
    assert p["beta"] == pytest.approx(4 * math.sqrt(d * L)) == pytest.approx(33.25, abs=0.01)
    assert paper_beta(d, T, 1e-3) == p["beta"]
    np.testing.assert_allclose(algo.radii(p, 3), 2 * p["beta"])  # Alg. 8's doubled radius, every play
    assert (p["lo"], p["scale"]) == (-1.0, 0.5)  # [-reward_bound, reward_bound] to [0, 1]
    rate = algo.rate(p)
    assert rate_at(4.0, rate) == pytest.approx(p["beta"] * math.sqrt(d * L / 4)) == pytest.approx(4 * d * L / 2)
    rho_pow = rate_table(rate, T)
    thr1 = p["test1_multiple"] * p["rho_hat_factor"] * rho_pow
    assert len(rho_pow) == max_order(T) + 1 == 11
    assert thr1[9] == pytest.approx(9 * hat * (4 * d * L / math.sqrt(512)))  # 9 rho_hat(2^9)
    # MALG's probabilities rho(2^n) / rho(2^m) = 2^((m - n) / 2): rho(4) / rho(1) = 1/2
    assert rho_pow[2] / rho_pow[0] == pytest.approx(0.5)
    # the cap: 4 d L / sqrt(t) > 1 for every t < (4 d L)^2 = 76,344: rho is flat at 1, so MALG
    # schedules an instance at every slot (probability 1)
    capped = rate_table(MasterOFUL(rho_cap=True).rate(p), T)
    np.testing.assert_array_equal(capped, 1.0)
    # the earlier reading: C d / sqrt(t) + c_lin d / t
    early = MasterOFUL(**NOLOG).rate({**p, "rho_linear": 1.0})
    assert rate_at(4.0, early) == pytest.approx(5 / 2 + 5 / 4)
    assert MasterOFUL(reward_range=[0.0, 2.0]).resolve(T, dict(INFO, d=d))["lo"] == 0.0


def test_the_cap_makes_malg_play_a_fresh_instance_every_round():
    """rho_cap with the OFUL rate at practical horizons: every slot gets an instance, so the
    order-0 one acts at every round and never learns (each round a fresh OFUL with no data)."""
    features, rewards = two_arms(np.tile([0.9, 0.1], (512, 1)), 3)
    capped = MasterOFUL(rho_cap=True).play(rewards, INFO, np.random.default_rng(0), features=features)
    # a fresh OFUL ties both arms (theta_hat = 0, equal widths): arm 0 always
    np.testing.assert_array_equal(capped, 0)
    flipped = MasterOFUL(rho_cap=True).play(rewards[:, ::-1].copy(), INFO, np.random.default_rng(0),
                                           features=features)
    np.testing.assert_array_equal(flipped, 0)  # ... even when arm 1 is the better one
    learned = MasterOFUL().play(rewards[:, ::-1].copy(), INFO, np.random.default_rng(0), features=features)
    assert (learned == 1).mean() > 0.4  # uncapped, long instances learn (slowly: Alg. 8 explores with 2 beta = 40)


def test_paper_thresholds_exceed_one_and_no_test_fires():
    features, rewards = two_arms(huge_drop(), 9)
    algo = MasterOFUL()
    algo.play(rewards, INFO, np.random.default_rng(0), features=features)
    assert algo.derived_["min_test1_threshold"] > 10 and algo.derived_["min_test2_threshold"] > 5
    assert algo.derived_["test_restarts"] == 0


def test_huge_change_fires_a_test_and_restarts():
    T = 2000
    features, rewards = two_arms(huge_drop(T), 10)
    algo = MasterOFUL(test_multiplier=3e-4, **NOLOG)  # a non-default option: thresholds 3333 times smaller
    algo.play(rewards, INFO, np.random.default_rng(1), features=features)
    restarts, blocks = algo.events_["restarts"], algo.events_["blocks"]
    assert algo.derived_["test2_restarts"] + algo.derived_["both_tests_restarts"] >= 1
    first = restarts[0]
    assert T // 2 < first < T // 2 + 100  # after the drop, not before
    i = blocks.index(first)  # a new epoch at n = 0: blocks of length 1, 2, 4, ...
    assert blocks[i:i + 3] == [first, first + 1, first + 3]
    assert [b for b in blocks if b <= T // 2] == [2 ** n - 1 for n in range(10)]


def test_ridge_push_keeps_the_inverse_of_the_running_ridge_matrix():
    rng = np.random.default_rng(11)
    X, Y = rng.standard_normal((2500, 4)), rng.standard_normal(2500)
    V, Vinv, b, u = 0.5 * np.eye(4), np.eye(4) / 0.5, np.zeros(4), np.zeros(4)
    for n in range(2500):
        ridge_push(X[n], Y[n], n, V, Vinv, b, u)
    direct = 0.5 * np.eye(4) + X.T @ X
    np.testing.assert_allclose(V, direct, rtol=1e-12)
    np.testing.assert_allclose(Vinv, np.linalg.inv(direct), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(b, X.T @ Y, rtol=1e-12)


def test_needs_and_bad_parameters():
    assert MasterOFUL().needs() == ("d", "reward_bound")  # no B_T: parameter-free; Alg. 8's beta needs no R, L, S
    assert MasterOFUL(radius="oful").needs() == ("d", "R", "L", "S", "reward_bound")
    assert MasterOFUL(radius="oful", reward_range=[-2.0, 2.0], R=0.1).needs() == ("d", "L", "S")
    for bad in ({"rho_constant": 0.0}, {"test_multiplier": -1.0}, {"delta": 2.0}, {"reward_range": [1.0, 0.0]},
                {"lam": 0.0}, {"S": -1.0}, {"radius": "big"}, {"rho_rule": "x"}, {"f_tilde_clip": 1}):
        with pytest.raises(ConfigError):
            MasterOFUL(**bad).check_params()
