"""MASTER over contextual epsilon-greedy (Wei & Luo 2021): the compiled kernel against
the literal transcription on seeded contextual problems, the base's epsilon schedule and
f~ by hand, the thresholds by hand, and tests that fire on a huge change once their
thresholds are made small."""

import json
import math

import numpy as np
import pytest

from bandits.algorithms import play_policy
from bandits.algorithms.master import Rate, rate_at, rate_table
from bandits.contextual.master_contextual import (
    MasterContextual,
    MasterCtxConstants,
    eg_act,
    eg_reset,
    eg_update,
    eps_of,
)
from bandits.environments import DriftingContextual
from bandits.errors import ConfigError
from bandits.reference import ReferenceMasterCtx


def random_problem(seed, T=1500, K=3, N=30, pieces=3):
    """Random policy actions and Bernoulli rewards whose means change at T/pieces, 2T/pieces, ..."""
    rng = np.random.default_rng(seed)
    pred = rng.integers(0, K, (T, N)).astype(np.int16)
    means = np.repeat(rng.random((pieces, K)), -(-T // pieces), axis=0)[:T]
    rewards = (rng.random((T, K)) < means).astype(float)
    return rewards, {"K": K, "policy_actions": pred, "reward_range": (0.0, 1.0)}


def both(rewards, info, seed, **params):
    algo, ref = MasterContextual(**params), ReferenceMasterCtx(**params)
    actions = algo.play(rewards, info, np.random.default_rng(seed))
    expected = play_policy(ref, rewards, info, np.random.default_rng(seed))
    return algo, ref, actions, expected


def events_of(ref):
    """The reference's (round, cause) list in the kernel's events_ form."""
    restarts = [{"round": r, "test": cause} for r, cause in ref.events if cause > 0]
    n0 = ref.first_order()
    orders, n = [n0], n0
    for _, cause in ref.events:
        n = n0 if cause > 0 else n + 1
        orders.append(n)
    blocks = [{"round": r, "n": o} for r, o in zip([0] + [r for r, _ in ref.events], orders, strict=True)]
    return {"restarts": restarts, "blocks": blocks}


@pytest.mark.parametrize("params", [{}, {"test_multiplier": 1e-4}, {"test_multiplier": 3e-5, "epsilon_constant": 0.3},
                                    {"epsilon_constant": 0.2, "rho_constant": 1.5}, {"rho_cap": True},
                                    {"start_order": "floor_log2_T", "test_multiplier": 1e-4}])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_agrees_with_reference_on_random_policy_classes(seed, params):
    rewards, info = random_problem(seed)
    algo, ref, actions, expected = both(rewards, info, seed + 10, **params)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    if params.get("test_multiplier", 1.0) < 1e-3:
        assert algo.derived_["test2_restarts"] > 10  # the restart path is compared too


@pytest.mark.parametrize("mode", ["switching", "drifting"])
def test_kernel_agrees_with_reference_on_drifting_contextual(mode):
    env = DriftingContextual(K=3, d=4, mode=mode, n_pieces=3, n_policies=40, mc_contexts=200, eval_points=20)
    T = 1200
    env.check_params(T)
    inst = env.instance(T, np.random.default_rng(4))
    rewards = env.rewards(inst, np.random.default_rng(5))
    info = {k: inst.info[k] for k in ("K", "policy_actions", "reward_range")}
    for params in ({}, {"test_multiplier": 1e-4, "epsilon_constant": 0.3}):
        algo, ref, actions, expected = both(rewards, info, 6, **params)
        np.testing.assert_array_equal(actions, expected)
        assert algo.events_ == events_of(ref)


def test_kernel_agrees_with_reference_when_test1_fires():
    # a rise (action 0 pays 0.3, the others 0.05, then all 0.95 from round 1100) with a small
    # rate constant (0.4, the smallest near what Assumption 1 allows here: f~ close to the best IW
    # mean, so U_t drops below 1) and a tiny Test 1 constant (false alarms before the rise too)
    T, K, N = 1500, 3, 20
    rng = np.random.default_rng(3)
    pred = rng.integers(0, K, (T, N)).astype(np.int16)
    means = np.full((T, K), 0.05)
    means[:, 0] = 0.3
    means[1100:] = 0.95
    rewards = (rng.random((T, K)) < means).astype(float)
    info = {"K": K, "policy_actions": pred, "reward_range": (0.0, 1.0)}
    algo, ref, actions, expected = both(rewards, info, 1, rho_constant=0.4, test1_constant=1e-4)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    fired = [e["round"] for e in algo.events_["restarts"] if e["test"] == 1]
    assert algo.derived_["test1_restarts"] >= 1 and any(r >= 1100 for r in fired)


def test_epsilon_schedule_and_f_tilde_by_hand():
    """K = 2, N = 3, K log(N / delta) set to 8: rho(s) = eps(s) = (8 / s)^(1/3) (C = c_eps = 1)."""
    rate = Rate(2.0, 1 / 3, 0.0, math.inf)  # 8^(1/3) / s^(1/3)
    assert rate_at(8.0, rate) == pytest.approx(1.0) and rate_at(27.0, rate) == pytest.approx(2 / 3)
    assert eps_of(1.0, 8.0, 1.0) == 1.0 and eps_of(8.0, 8.0, 1.0) == 1.0   # min(1, .): full exploration early
    assert eps_of(64.0, 8.0, 1.0) == pytest.approx(0.5) and eps_of(64.0, 8.0, 0.5) == pytest.approx(0.25)
    c = MasterCtxConstants(8.0, rate, rate, 1.0, 1.0, 1.0, 0)
    pred = np.array([[1, 1, 0]], dtype=np.int16)
    values, plays = np.zeros((2, 3)), np.zeros(2)
    u = np.random.default_rng(0).random(2)
    np.testing.assert_allclose(u, [0.637, 0.270], atol=5e-4)
    # a fresh instance: f~ = 1, eps_1 = 1, u1 < 1 explores: a = floor(0.270 * 2) = 0, p = 1/2
    assert eg_act(pred, 0, 2, values, plays, 1, c, np.random.default_rng(0)) == (0, 0.5, 1.0)
    # after 27 rounds with S = (6.75, 6.75, 2): greedy = policy 0 (tie to the lowest), action 1;
    # f~ = 6.75 / 27 + (8/27)^(1/3) = 0.25 + 2/3; eps_28 = (8/28)^(1/3) = 0.6586 > u1 = 0.637:
    # explore, a = 0, p = eps / 2
    values[1], plays[1] = [6.75, 6.75, 2.0], 27.0
    eps = (8 / 28) ** (1 / 3)
    a, p, f = eg_act(pred, 0, 2, values, plays, 1, c, np.random.default_rng(0))
    assert (a, p, f) == (0, pytest.approx(eps / 2), pytest.approx(0.25 + 2 / 3))
    # reward 1: w = 1 / p goes to the one policy that picks action 0 (policy 2)
    eg_update(pred, 0, values, plays, 1, a, 1.0 / p)
    np.testing.assert_allclose(values[1], [6.75, 6.75, 2.0 + 2 / eps])
    assert plays[1] == 28.0 and plays[0] == 0.0 and not values[0].any()  # other orders untouched
    # with c_eps = 0.1, eps_28 = 0.0659 <= u1: the greedy action 1, p = eps / 2 + 1 - eps
    values[1], plays[1] = [6.75, 6.75, 2.0], 27.0
    c = MasterCtxConstants(8.0, rate, rate, 0.1, 1.0, 1.0, 0)
    a, p, f = eg_act(pred, 0, 2, values, plays, 1, c, np.random.default_rng(0))
    assert (a, p) == (1, pytest.approx(1 - 0.1 * eps / 2))
    # f~ is clipped to 1; a reset forgets everything
    values[1] = [30.0, 0.0, 0.0]
    assert eg_act(pred, 0, 2, values, plays, 1, c, np.random.default_rng(0))[2] == 1.0
    eg_reset(values, plays, 1)
    assert plays[1] == 0.0 and not values[1].any()


def test_rho_and_thresholds_by_hand():
    T, K, N = 1000, 5, 100
    algo = MasterContextual()
    info = {"K": K, "policy_actions": np.zeros((1, N), dtype=np.int16)}
    p = algo.resolve(T, info)
    hat = 6.0 * (math.log2(1000) + 1.0) * math.log(1000 / (1 / 1000))
    assert p["delta"] == pytest.approx(1e-3) and p["n_policies"] == N
    assert p["log_scale"] == pytest.approx(5 * math.log(1e5)) == pytest.approx(57.565, abs=1e-3)
    assert p["rho_hat_factor"] == pytest.approx(hat) == pytest.approx(908.99, abs=0.01)
    rho_pow = rate_table(algo.rate(p), T)
    thr1 = p["test1_multiple"] * p["rho_hat_factor"] * rho_pow
    assert len(rho_pow) == 11
    np.testing.assert_allclose(rho_pow, (57.565 / 2.0 ** np.arange(11)) ** (1 / 3), rtol=1e-5)
    # MALG's scheduling probability rho(2^n) / rho(2^m) = 2^((m - n) / 3) for this rate
    assert rho_pow[9] / rho_pow[6] == pytest.approx(0.5)
    assert thr1[9] == pytest.approx(9 * hat * (57.565 / 512) ** (1 / 3), rel=1e-5)  # 9 rho_hat(2^9)
    assert thr1[9] == pytest.approx(3948.3, abs=0.5)


def test_paper_thresholds_exceed_one_at_practical_horizons():
    """The smallest thresholds of a trial (the longest instance, the whole horizon) are far
    above 1 with the paper's constants, so no test can fire (means lie in [-1, 1])."""
    for T, N in ((10 ** 3, 40), (10 ** 5, 500), (10 ** 6, 500)):
        algo = MasterContextual()
        p = algo.resolve(T, {"K": 5, "policy_actions": np.zeros((1, N))})
        thr1 = p["test1_multiple"] * p["rho_hat_factor"] * rate_table(algo.rate(p), T)
        thr2_T = p["test2_multiple"] * p["rho_hat_factor"] * rate_at(float(T), algo.rate(p))
        assert thr1[-2] > 1000 and thr2_T > 300
    assert thr2_T == pytest.approx(3 * p["rho_hat_factor"] * (5 * math.log(500e6) / 1e6) ** (1 / 3))
    rewards, info = random_problem(0, T=1000)
    algo = MasterContextual()
    algo.play(rewards, info, np.random.default_rng(0))
    assert algo.derived_["test_restarts"] == 0 and algo.derived_["min_test2_threshold"] > 300


def huge_drop(seed, T=2000, K=3, N=20):
    """Every action pays Bernoulli(0.95) for T/2 rounds, then Bernoulli(0.05)."""
    rng = np.random.default_rng(seed)
    means = np.full((T, K), 0.95)
    means[T // 2:] = 0.05
    pred = rng.integers(0, K, (T, N)).astype(np.int16)
    return (rng.random((T, K)) < means).astype(float), {"K": K, "policy_actions": pred, "reward_range": (0.0, 1.0)}


def test_huge_change_fires_a_test_and_restarts():
    T = 2000
    rewards, info = huge_drop(7, T)
    paper = MasterContextual()
    paper.play(rewards, info, np.random.default_rng(1))
    assert paper.derived_["test_restarts"] == 0
    algo = MasterContextual(test_multiplier=1e-4)  # a non-default option: thresholds 1e4 times smaller
    algo.play(rewards, info, np.random.default_rng(1))
    restarts = [e["round"] for e in algo.events_["restarts"]]
    blocks = [b["round"] for b in algo.events_["blocks"]]
    assert algo.derived_["test2_restarts"] >= 1
    first = restarts[0]
    assert T // 2 < first < T // 2 + 100  # after the drop, not before
    # before the drop the blocks doubled undisturbed (0, 1, 3, 7, ...); a restart starts n = 0
    assert [b for b in blocks if b <= T // 2] == [2 ** n - 1 for n in range(10)]
    i = blocks.index(first)
    assert algo.events_["blocks"][i]["n"] == 0
    # the contextual figures read restarts as dicts with "round" (experiments/figures/ada.py)
    from bandits.experiments.studies.ctx_synthetic import detection_delay

    row = {"events": json.dumps(algo.events_), "T": T}
    assert detection_delay(row, T // 2) == (float(first - T // 2), True)


def test_only_the_chosen_rewards_are_read():
    rewards, info = random_problem(8, T=600)
    algo = MasterContextual(test_multiplier=1e-4)
    actions = algo.play(rewards, info, np.random.default_rng(2))
    masked = np.full_like(rewards, np.nan)
    masked[np.arange(len(actions)), actions] = rewards[np.arange(len(actions)), actions]
    again = MasterContextual(test_multiplier=1e-4).play(masked, info, np.random.default_rng(2))
    np.testing.assert_array_equal(actions, again)


def test_bad_parameters_are_refused():
    for bad in ({"base": "iltcb"}, {"rho_constant": 0.0}, {"epsilon_constant": -1.0}, {"test_multiplier": -1.0},
                {"delta": 2.0}, {"rho_cap": 1}, {"start_order": "one"}):
        with pytest.raises(ConfigError):
            MasterContextual(**bad).check_params()
    MasterContextual().check_params()
    assert MasterContextual().needs() == ("policy_actions", "reward_range")
    rewards, info = random_problem(0, T=50)
    with pytest.raises(ConfigError):
        MasterContextual().play(rewards, {**info, "reward_range": (0.0, 2.0)}, np.random.default_rng(0))
