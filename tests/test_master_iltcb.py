"""MASTER over ILTCB (Wei & Luo 2021, Alg. 3 over App. I.6's Alg. 12): the implementation
against the literal transcription on seeded contextual problems (the paper's defaults and
every option), Alg. 12's constraints on the OP's solution, mu, f~, rho and the OP schedule by
hand, and tests that fire once their thresholds are made small."""

import math

import numpy as np
import pytest

from bandits.algorithms import play_policy
from bandits.algorithms.master import rate_at, rate_table
from bandits.contextual.master_iltcb import MasterILTCB, solve_before
from bandits.contextual.op_solver import solve_op
from bandits.contextual.policy_class import FinitePolicyClass
from bandits.environments import DriftingContextual
from bandits.errors import ConfigError
from bandits.reference import ReferenceMasterILTCB


def random_problem(seed, T=700, K=3, N=20, pieces=3):
    """Random policy actions and Bernoulli rewards whose means change at T/pieces, 2T/pieces, ..."""
    rng = np.random.default_rng(seed)
    pred = rng.integers(0, K, (T, N)).astype(np.int16)
    means = np.repeat(rng.random((pieces, K)), -(-T // pieces), axis=0)[:T]
    rewards = (rng.random((T, K)) < means).astype(float)
    return rewards, {"K": K, "policy_actions": pred, "reward_range": (0.0, 1.0)}


def both(rewards, info, seed, **params):
    algo, ref = MasterILTCB(**params), ReferenceMasterILTCB(**params)
    actions = algo.play(rewards, info, np.random.default_rng(seed))
    expected = play_policy(ref, rewards, info, np.random.default_rng(seed))
    return algo, ref, actions, expected


def events_of(ref):
    restarts = [{"round": r, "test": cause} for r, cause in ref.events if cause > 0]
    n0 = ref.first_order()
    orders, n = [n0], n0
    for _, cause in ref.events:
        n = n0 if cause > 0 else n + 1
        orders.append(n)
    return {"restarts": restarts,
            "blocks": [{"round": r, "n": o} for r, o in zip([0] + [r for r, _ in ref.events], orders, strict=True)]}


PARAMS = [{}, {"op_schedule": "every_round"}, {"test_multiplier": 3e-3, "f_tilde_clip": True},
          {"rho_cap": True}, {"start_order": "floor_log2_T"}, {"psi": 1.0, "f_tilde_constant": 0.1},
          {"test_multiplier": 3e-3, "f_tilde_clip": True, "start_order": "floor_log2_T"}]


@pytest.mark.parametrize("params", PARAMS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "paper")
@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_reference_on_random_policy_classes(seed, params):
    rewards, info = random_problem(seed)
    algo, ref, actions, expected = both(rewards, info, seed + 10, **params)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    assert algo.derived_["op_solves"] > 0


def test_agrees_with_reference_on_drifting_contextual():
    env = DriftingContextual(K=3, d=4, mode="switching", n_pieces=3, n_policies=40, mc_contexts=200, eval_points=20)
    T = 900
    env.check_params(T)
    inst = env.instance(T, np.random.default_rng(4))
    rewards = env.rewards(inst, np.random.default_rng(5))
    info = {k: inst.info[k] for k in ("K", "policy_actions", "reward_range")}
    for params in ({}, {"test_multiplier": 3e-3, "f_tilde_clip": True}):
        algo, ref, actions, expected = both(rewards, info, 6, **params)
        np.testing.assert_array_equal(actions, expected)
        assert algo.events_ == events_of(ref)


def test_restart_paths_are_compared():
    """Thresholds 1000 (f~ as written) or 1e4 (f~ clipped) times smaller: some rounds fail a
    test, most do not."""
    rewards, info = random_problem(3, T=900)
    for params in ({"test_multiplier": 1e-3}, {"test_multiplier": 1e-4, "f_tilde_clip": True}):
        algo, ref, actions, expected = both(rewards, info, 2, **params)
        np.testing.assert_array_equal(actions, expected)
        assert algo.events_ == events_of(ref)
        assert 10 <= algo.derived_["test_restarts"] < 100


def test_mu_f_tilde_rho_and_the_op_schedule_by_hand():
    """A = 3, N = 20, T = 1000, delta = 1/T: log(|Pi| T / delta) = log(2e7) = 16.81;
    mu_s = min(1/6, sqrt(16.81 / (3 s))); f~ at s = 1 is c2 A sqrt(16.81 / 3) = 7.10;
    rho(t) = sqrt(3 * 16.81 / t)."""
    T, K, N = 1000, 3, 20
    algo = MasterILTCB()
    p = algo.resolve(T, {"K": K, "policy_actions": np.zeros((1, N), dtype=np.int16)})
    L = math.log(N * T * T)
    assert p["log_term"] == pytest.approx(L) == pytest.approx(16.811, abs=1e-3)
    rate = algo.rate(p)
    assert rate_at(4.0, rate) == pytest.approx(math.sqrt(K * L / 4))
    rho_pow = rate_table(rate, T)
    assert rho_pow[4] / rho_pow[0] == pytest.approx(0.25)  # 2^((m - n) / 2)
    # the first rounds of the drifting problem: s = 1 has no data, f~ = c2 A mu_1 (uncapped)
    rewards, info = random_problem(0, T=T, K=K, N=N)
    ref = ReferenceMasterILTCB()
    ref.reset(K, T, np.random.default_rng(0), info)
    ref.select(0)
    assert ref.f == pytest.approx(K * math.sqrt(L / K)) == pytest.approx(7.101, abs=1e-3)
    assert ref.active.mu == pytest.approx(1 / 6)  # mu_1 = min(1/(2A), sqrt(16.81 / 3) = 2.37)
    assert ref.mu_of(10 ** 4) == pytest.approx(math.sqrt(L / (K * 1e4)))
    # the OP is re-solved before rounds s = 2, 3, 5, 9, 17, ... (doubling) or every round s >= 2
    assert [s for s in range(1, 40) if solve_before(s, "doubling")] == [2, 3, 5, 9, 17, 33]
    assert [s for s in range(1, 6) if solve_before(s, "every_round")] == [2, 3, 4, 5]


def test_the_op_solution_meets_alg12s_constraints():
    """Alg. 12's constraints, written here from the text with c' = psi: sum Q Reg_hat <= 2 c' A mu,
    and for every pi, (1/n) sum 1 / Q^mu(pi(x) | x) <= 2A + Reg_hat(pi) / (c' mu)."""
    rng = np.random.default_rng(1)
    n, K, N, psi = 200, 3, 25, 100.0
    pred = rng.integers(0, K, (n, N))
    actions = rng.integers(0, K, n)
    weights = rng.random(n) * (rng.random(n) < 0.4) * K
    mu = math.sqrt(math.log(N * 1e6) / (K * n))
    res = solve_op(FinitePolicyClass(pred, K), np.arange(n), actions, weights, mu, psi)
    value = np.array([np.mean(weights * (pred[:, pi] == actions)) for pi in range(N)])
    reg = value.max() - value
    Q = np.zeros(N)
    for pi, w in zip(res.support, res.weights, strict=True):
        Q[pi] += w
    assert Q.sum() == pytest.approx(1.0) and (Q >= 0).all()
    assert (Q * reg).sum() <= 2 * psi * K * mu + 1e-9
    qa = np.array([[Q[pred[t] == a].sum() for a in range(K)] for t in range(n)])
    smooth = (1 - K * mu) * qa + mu
    for pi in range(N):
        V = np.mean(1.0 / smooth[np.arange(n), pred[:, pi]])
        assert V <= 2 * K + reg[pi] / (psi * mu) + 1e-7


def test_paper_thresholds_exceed_one_and_no_test_fires():
    rewards, info = random_problem(5, T=1000)
    algo = MasterILTCB()
    algo.play(rewards, info, np.random.default_rng(0))
    assert algo.derived_["test_restarts"] == 0
    assert algo.derived_["min_test1_threshold"] > 100 and algo.derived_["min_test2_threshold"] > 100


def test_only_the_chosen_rewards_are_read():
    rewards, info = random_problem(8, T=500)
    algo = MasterILTCB(test_multiplier=3e-3, f_tilde_clip=True)
    actions = algo.play(rewards, info, np.random.default_rng(2))
    masked = np.full_like(rewards, np.nan)
    masked[np.arange(len(actions)), actions] = rewards[np.arange(len(actions)), actions]
    again = MasterILTCB(test_multiplier=3e-3, f_tilde_clip=True).play(masked, info, np.random.default_rng(2))
    np.testing.assert_array_equal(actions, again)


def test_bad_parameters_are_refused():
    for bad in ({"psi": 0.0}, {"f_tilde_constant": -1.0}, {"op_schedule": "sometimes"}, {"rho_constant": 0.0},
                {"test_multiplier": -1.0}, {"delta": 2.0}, {"rho_cap": "no"}, {"start_order": "n"},
                {"f_tilde_clip": 0}):
        with pytest.raises(ConfigError):
            MasterILTCB(**bad).check_params()
    MasterILTCB().check_params()
    assert MasterILTCB().needs() == ("policy_actions", "reward_range")
    rewards, info = random_problem(0, T=50)
    with pytest.raises(ConfigError):
        MasterILTCB().play(rewards, {**info, "reward_range": (0.0, 2.0)}, np.random.default_rng(0))
