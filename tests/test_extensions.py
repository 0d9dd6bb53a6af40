"""The hedging paper's other settings: GLB (§8.3), combinatorial semi-bandits (§8.4),
the lower-bound instance (§4), and BOB's eqs. (26)-(27)."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from bandits.algorithms.bob_ext import BanditOverBanditExt
from bandits.algorithms.glb import SlidingWindowGLB, _newton, glb_beta
from bandits.algorithms.semibandit import SlidingWindowSemiBandit, semibandit_windows
from bandits.algorithms.tuning import bob_parameters
from bandits.environments import DriftingLogistic, DriftingSemiBandit, LowerBound
from bandits.errors import ConfigError
from bandits.simulation import evaluate


def test_newton_solves_the_penalised_quasi_likelihood_equation():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 4))
    y = (rng.random(300) < 1 / (1 + np.exp(-X @ np.array([1.0, -0.5, 0.2, 0.0])))).astype(float)
    theta = np.zeros(4)
    _newton(np.column_stack([X, y]), 300, theta, 1.0, 25)  # window rows (x, y)

    def loss(th):
        z = X @ th
        return np.sum(np.logaddexp(0, z) - y * z) + 0.5 * th @ th

    ref = minimize(loss, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(theta, ref, atol=1e-6)
    grad = X.T @ (1 / (1 + np.exp(-X @ theta)) - y) + theta  # eq. (24) with the ridge term
    assert np.abs(grad).max() < 1e-8


@pytest.fixture(scope="module")
def glb():
    env = DriftingLogistic(d=4, n_actions=10)
    env.check_params(3000)
    inst = env.instance(3000, np.random.default_rng(1))
    return env, inst, env.rewards(inst, np.random.default_rng(2))


def test_glb_forced_exploration_every_w_rounds(glb):
    env, inst, r = glb
    a = SlidingWindowGLB(window=50).play(r, inst.info, None, features=inst.features)
    for cycle in range(0, 3000, 50):
        np.testing.assert_array_equal(a[cycle:cycle + 4], [0, 1, 2, 3])  # a_1..a_d are the basis vectors


def test_glb_beta_by_hand():
    c_mu = 0.1
    expected = 2 * 0.25 * 1 * math.sqrt(2 * 5 * math.log(100) * math.log(2 * 5 * 1e8) * (3 + 2 * math.log(3))) / c_mu
    assert glb_beta(5, 100, 10 ** 4, 1.0, 1.0, 1.0, 0.25, c_mu) == pytest.approx(expected)


def test_semibandit_matches_a_transcription():
    env = DriftingSemiBandit(d=6, m=2, B_T_scale=3.0)
    env.check_params(400)
    inst = env.instance(400, np.random.default_rng(3))
    r = env.rewards(inst, np.random.default_rng(4))
    algo = SlidingWindowSemiBandit(window=30)
    got = algo.play(r, inst.info, None)
    c = algo.derived_["bonus"]
    hist = []
    for t in range(400):
        window = hist[-30:]
        N = np.zeros(6)
        s = np.zeros(6)
        for items, w in window:
            N[items] += 1
            s[items] += w[items]
        index = np.where(N > 0, s / np.maximum(N, 1), 0.0) + c / np.sqrt(N + 1)
        items = sorted(np.argsort(-index, kind="stable")[:2])
        assert got[t] == sum(1 << i for i in items)
        hist.append((items, r[t]))


def test_semibandit_given_family_is_maximised_exactly():
    fam = [[0, 1], [2], [3, 4, 5]]
    env = DriftingSemiBandit(d=6, m=3, family=fam)
    env.check_params(200)
    inst = env.instance(200, np.random.default_rng(5))
    r = env.rewards(inst, np.random.default_rng(6))
    a = SlidingWindowSemiBandit(window=200, stationary=True).play(r, inst.info, None)
    allowed = {sum(1 << i for i in s) for s in fam}
    assert set(a.tolist()) <= allowed
    curves = evaluate(inst.means, r, a, inst.optimal, masks=True)
    assert curves["regret"][-1] >= 0
    best = max(inst.means[:, s].sum(axis=1).sum() for s in fam)
    assert inst.optimal.sum() >= best - 1e-9


def test_mask_accounting():
    means = np.array([[0.1, 0.5, 0.9], [0.2, 0.2, 0.2]])
    rewards = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    curves = evaluate(means, rewards, np.array([0b110, 0b011]), optimal=np.array([1.4, 0.4]), masks=True)
    assert curves["regret"].tolist() == pytest.approx([0.0, 0.0])
    assert curves["reward"].tolist() == [2.0, 3.0]


def test_windows_and_bob_parameters_by_hand():
    w = semibandit_windows(10 ** 4, 20, 4, 8.0)
    assert w["obl"] == math.ceil(20 ** (1 / 3) * 4 ** (-1 / 3) * 1e4 ** (2 / 3))
    assert w["opt"] == math.ceil(20 ** (1 / 3) * 4 ** (-1 / 3) * 1e4 ** (2 / 3) / 4)
    g = bob_parameters(10 ** 4, 5, 0.0, "glb", nu=1.0)
    assert g["H"] == math.floor(math.sqrt(5e4)) and g["Q"] == 2 * g["H"]
    s = bob_parameters(10 ** 4, 20, 0.0, "semibandit", m=4)
    assert s["H"] == math.floor(math.sqrt(20e4 / 4)) and s["Q"] == 2 * s["H"] * 4


def test_lower_bound_instance_follows_appendix_11():
    env = LowerBound(d=3)
    env.check_params(5000)
    inst = env.instance(5000, np.random.default_rng(7))
    H = inst.evaluation["H"]
    assert H == math.ceil((3 * 5000) ** (2 / 3))
    theta = inst.means @ np.linalg.pinv(inst.features[0].T)  # recover theta from the means
    np.testing.assert_allclose(np.abs(theta), math.sqrt(3 / (4 * H)), rtol=1e-9)
    assert np.allclose(theta[:H], theta[0]) and inst.features.shape == (1, 8, 3)


@pytest.mark.parametrize("env,fragment", [
    (DriftingSemiBandit(d=3, m=4), "m=4 must not exceed"),
    (DriftingSemiBandit(d=5, m=2, family=[]), "family is empty"),
    (DriftingLogistic(link="identity"), "only the logistic link"),
])
def test_bad_input(env, fragment):
    with pytest.raises(ConfigError, match=fragment):
        env.check_params(1000)


def test_glb_refuses_an_environment_whose_rewards_leave_the_range(glb):
    env, inst, r = glb
    wide = {**inst.info, "reward_range": (0.0, 3.0)}  # what the environment guarantees, not what it drew
    with pytest.raises(ConfigError, match="rewards in"):
        SlidingWindowGLB(window=20).play(r, wide, None, features=inst.features)


def test_bob_ext_runs_both_settings(glb):
    env, inst, r = glb
    a = BanditOverBanditExt("glb").play(r, inst.info, np.random.default_rng(8), features=inst.features)
    assert a.min() >= 0 and a.max() < 10
    senv = DriftingSemiBandit(d=8, m=3)
    sinst = senv.instance(2000, np.random.default_rng(9))
    sr = senv.rewards(sinst, np.random.default_rng(10))
    masks = BanditOverBanditExt("semibandit").play(sr, sinst.info, np.random.default_rng(11))
    assert all(bin(int(c)).count("1") == 3 for c in masks)
