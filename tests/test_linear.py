"""Linear bandits: the incremental sliding-window least squares, the linear kernels,
the piecewise-linear environment, and their bad input."""

import math

import numpy as np
import pytest
from conftest import argmax_ties

from bandits.algorithms import UCB, BanditOverBandit, SlidingWindowUCB, play
from bandits.algorithms.sliding_window_least_squares import window_least_squares
from bandits.environments import PiecewiseLinear, Table
from bandits.environments.piecewise_linear import interpolate
from bandits.errors import ConfigError
from bandits.reference import ReferenceSWUCB


def _direct(X, Y, w, lam):
    Xw, Yw = X[-w:], Y[-w:]
    V = lam * np.eye(X.shape[1]) + Xw.T @ Xw
    return np.linalg.solve(V, Xw.T @ Yw), np.linalg.inv(V)


@pytest.mark.parametrize("w", [1, 37, 2000])
def test_incremental_least_squares_matches_direct_solve_after_1e5_rounds(w):
    rng = np.random.default_rng(0)
    n, d = 100_000, 5
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    theta, Vinv = window_least_squares(X, Y, w, 1.0)
    ref_theta, ref_Vinv = _direct(X, Y, w, 1.0)
    assert np.linalg.norm(theta - ref_theta) <= 1e-8 * np.linalg.norm(ref_theta)
    assert np.linalg.norm(Vinv - ref_Vinv) <= 1e-8 * np.linalg.norm(ref_Vinv)


def test_unbounded_window_least_squares_matches_ridge_on_all_rows():
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((5000, 3)), rng.standard_normal(5000)
    theta, _ = window_least_squares(X, Y, 10 ** 9, 0.5)
    np.testing.assert_allclose(theta, _direct(X, Y, 5000, 0.5)[0], rtol=1e-10)


@pytest.fixture(scope="module")
def linear_trial():
    env = PiecewiseLinear(d=3, n_breakpoints=5, action_set="fresh", n_actions=7)
    inst = env.instance(1500, np.random.default_rng(0))
    return inst, env.rewards(inst, np.random.default_rng(1))


@pytest.mark.parametrize("w", [1, 25, 400])
def test_linear_sw_ucb_matches_literal_algorithm_1(linear_trial, w):
    inst, rewards = linear_trial
    fast = SlidingWindowUCB(window=w).play(rewards, inst.info, None, features=inst.features)
    slow = play(ReferenceSWUCB(window=w), rewards, inst.info, None, inst.features)
    np.testing.assert_array_equal(fast, slow)


def test_linear_kernel_on_basis_vectors_is_the_karmed_kernel():
    env = PiecewiseLinear(d=3, n_breakpoints=4, action_set="basis")
    inst = env.instance(3000, np.random.default_rng(2))
    rewards = env.rewards(inst, np.random.default_rng(3))
    basis = np.eye(3)[None]
    for algo in (SlidingWindowUCB(window=300), UCB()):
        np.testing.assert_array_equal(algo.play(rewards, inst.info, None),
                                      algo.play(rewards, inst.info, None, features=basis))


def test_linear_ucb_is_oful(linear_trial):
    inst, rewards = linear_trial
    got = UCB().play(rewards, inst.info, None, features=inst.features)
    T, (R, L, S, d) = len(rewards), (inst.info[k] for k in ("R", "L", "S", "d"))
    V, b, ref = np.eye(d), np.zeros(d), []
    for t in range(T):
        beta = R * math.sqrt(d * math.log((1 + t * L ** 2) * T)) + S
        Vinv = np.linalg.inv(V)
        theta = Vinv @ b
        D = inst.features[t]
        a = argmax_ties([x @ theta + beta * math.sqrt(x @ Vinv @ x) for x in D])
        ref.append(a)
        V += np.outer(D[a], D[a])
        b += D[a] * rewards[t, a]
    np.testing.assert_array_equal(got, ref)


def test_linear_bob_uses_eq11_and_restarts_linear_sw_ucb(linear_trial):
    inst, rewards = linear_trial
    T = len(rewards)
    algo = BanditOverBandit()
    got = algo.play(rewards, inst.info, np.random.default_rng(4), features=inst.features)
    p = algo.derived_
    assert p["setting"] == "linear" and p["H"] == min(T, math.floor(3 * math.sqrt(T)))
    u = np.random.default_rng(4).random(p["n_blocks"])
    s = np.ones(len(p["J"]))
    expected = []
    for i in range(p["n_blocks"]):
        probs = (1 - p["gamma"]) * s / s.sum() + p["gamma"] / len(s)
        j = min(int(np.searchsorted(np.cumsum(probs), u[i], side="right")), len(s) - 1)
        sl = slice(i * p["H"], min(T, (i + 1) * p["H"]))
        acts = play(ReferenceSWUCB(window=p["J"][j], delta=1 / T), rewards[sl], inst.info, None, inst.features[sl])
        expected.extend(acts)
        total = rewards[sl][np.arange(len(acts)), acts].sum()
        s[j] *= math.exp(p["gamma"] / (len(s) * probs[j]) * (0.5 + total / p["Q"]))
    np.testing.assert_array_equal(got, expected)


def test_piecewise_linear_instance_follows_the_paper():
    T = 10_000
    env = PiecewiseLinear(d=4, action_set="fixed", n_actions=6)
    inst = env.instance(T, np.random.default_rng(5))
    taus = np.array(inst.evaluation["breakpoints"])
    assert len(taus) == 32 and taus[0] == 1 and taus[-1] == T and (np.diff(taus) > 0).all()
    assert taus[1] >= 2 and taus[-2] <= T - 1
    theta = interpolate(T, taus.astype(float), np.eye(32, 4))
    # theta hits each vertex at its breakpoint and is linear between
    assert np.allclose(theta[taus[1] - 1], np.eye(32, 4)[1])
    mid = (taus[3] + taus[4]) // 2
    w = (mid - taus[3]) / (taus[4] - taus[3])
    assert np.allclose(theta[mid - 1], (1 - w) * np.eye(32, 4)[3] + w * np.eye(32, 4)[4])
    # realised B_T = the 2-norm variation; the actions are unit vectors; means are <x, theta_t>
    assert inst.info["B_T"] == pytest.approx(inst.evaluation["variation_l2"])
    np.testing.assert_allclose(np.linalg.norm(inst.features, axis=-1), 1.0)
    assert inst.features.shape == (1, 6, 4)


def test_fresh_action_sets_change_every_round_and_fixed_do_not():
    fresh = PiecewiseLinear(d=3, action_set="fresh", n_actions=5).instance(100, np.random.default_rng(0))
    assert fresh.features.shape == (100, 5, 3) and not np.allclose(fresh.features[0], fresh.features[1])


STEPS = {"d": 3, "theta_path": "steps", "thetas": [[0.9, 0.5, 0.4], [0.4, 0.8, 0.5], [0.3, 0.2, 0.7], [0.9, 0.8, 0.4]],
         "theta_changes": [0.25, 0.45, 0.7]}


def test_a_noise_sd_per_piece_scales_each_piece_and_equal_sds_give_the_one_r_draws():
    T, sds = 40_000, [0.5, 0.25, 1.0, 0.5]
    env = PiecewiseLinear(**STEPS, R_pieces=sds)
    env.check_params(T)
    inst = env.instance(T, np.random.default_rng(0))
    y = env.rewards(inst, np.random.default_rng(1))
    starts = [0, 10_000, 18_000, 28_000, T]
    for j, sd in enumerate(sds):  # the residual sd of each piece is its own (40,000 draws or more a piece)
        resid = (y - inst.means)[starts[j]:starts[j + 1]]
        assert np.std(resid) == pytest.approx(sd, rel=0.02)
    assert inst.info["R"] == 1.0  # a learner is told the largest sd, a scale that holds at every round
    same = PiecewiseLinear(**STEPS, R_pieces=[0.5] * 4)
    one = PiecewiseLinear(**STEPS, R=0.5)
    y_same = same.rewards(same.instance(T, np.random.default_rng(0)), np.random.default_rng(1))
    y_one = one.rewards(one.instance(T, np.random.default_rng(0)), np.random.default_rng(1))
    np.testing.assert_array_equal(y_same, y_one)


@pytest.mark.parametrize("kwargs,fragment", [
    ({**STEPS, "R_pieces": [0.5, 0.25, 1.0]}, "one noise sd >= 0 per piece \\(4 pieces"),
    ({**STEPS, "R_pieces": [0.5, -0.25, 1.0, 0.5]}, "one noise sd >= 0 per piece"),
    ({**STEPS, "R_pieces": "big"}, "one noise sd >= 0 per piece"),
    ({"d": 2, "R_pieces": [0.1, 0.2]}, "env.R_pieces .* needs env.theta_path=steps"),
    ({"d": 0}, "env.d must be >= 1"),
    ({"d": 2, "action_set": "given", "action_vectors": [[1, 0, 0], [0, 1, 0]]}, "dimension 3 but env.d=2"),
    ({"d": 2, "action_set": "nope"}, "env.action_set must be one of"),
    ({"d": 1, "action_set": "basis"}, "basis needs d >= 2"),
])
def test_piecewise_linear_bad_input(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        PiecewiseLinear(**kwargs).check_params(1000)


def test_table_action_sets_must_match_d(tmp_path):
    np.savez(tmp_path / "lin.npz", means=np.zeros((20, 4)), actions=np.ones((20, 4, 3)))
    with pytest.raises(ConfigError, match="dimension 3 but env.d=2"):
        Table(path=str(tmp_path / "lin.npz"), d=2).check_params(20)
    np.savez(tmp_path / "bad.npz", means=np.zeros((20, 4)), actions=np.ones((20, 5, 3)))
    with pytest.raises(ConfigError, match="'actions' must be"):
        Table(path=str(tmp_path / "bad.npz")).check_params(20)
    env = Table(path=str(tmp_path / "lin.npz"), d=3)
    env.check_params(20)
    inst = env.instance(20)
    assert inst.info["linear"] and inst.info["d"] == 3 and inst.features.shape == (20, 4, 3)


def test_pinv_estimator_is_refused_on_linear_action_sets(linear_trial):
    inst, _ = linear_trial
    with pytest.raises(ConfigError, match="pinv"):
        SlidingWindowUCB(window=10, estimator="pinv", lam=0.0).resolve(100, inst.info)
