"""RestartUCB (Zhao et al., AISTATS 2020): the compiled epochs against the literal
transcription, H by hand, restarts exactly at multiples of H (each epoch is a fresh OFUL),
and the BOB variant's blocks and EXP3 layer by hand."""

import math

import numpy as np
import pytest
from conftest import piecewise_linear_problem

from bandits.algorithms import UCB, RestartLinUCB, play_policy
from bandits.algorithms.restart_linear_ucb import restart_period
from bandits.errors import ConfigError
from bandits.reference import ReferenceRestartLinUCB


@pytest.fixture(scope="module")
def vectors():
    return piecewise_linear_problem(1500, 3, "fresh", 0, n_breakpoints=5)


@pytest.fixture(scope="module")
def basis():
    return piecewise_linear_problem(2500, 4, "basis", 2, n_breakpoints=4)


@pytest.mark.parametrize("params", [{"period": 37}, {"period": 1}, {"period": 400}, {"period": "opt"},
                                    {"period": "opt", "period_rule": "corrected"}])
def test_kernel_agrees_with_literal_restart_ucb_on_vectors(vectors, params):
    inst, rewards = vectors
    info = dict(inst.info, B_T=60.0)  # a large budget, so that H < T under both rules
    algo = RestartLinUCB(**params)
    fast = algo.play(rewards, info, None, features=inst.features)
    ref = ReferenceRestartLinUCB(**params)
    slow = play_policy(ref, rewards, info, None, features=inst.features)
    np.testing.assert_array_equal(fast, slow)
    assert algo.derived_["period"] == ref.H < len(rewards)
    assert algo.events_["restarts"] == ref.restarts


@pytest.mark.parametrize("period", [60, 333])
def test_kernel_agrees_with_literal_restart_ucb_on_basis_vectors(basis, period):
    inst, rewards = basis
    assert inst.features is None  # K arms: the K-armed kernel
    fast = RestartLinUCB(period=period).play(rewards, inst.info, None)
    slow = play_policy(ReferenceRestartLinUCB(period=period), rewards, inst.info, None)
    np.testing.assert_array_equal(fast, slow)


def test_period_by_hand():
    # aistats: ceil((5 * 20000 / (1 + 4))^(2/3)) = ceil(20000^(2/3)) = ceil(736.8) = 737
    assert 20000 ** (2 / 3) == pytest.approx(736.806, abs=1e-3)
    assert restart_period(20000, 5, 4.0) == 737
    # corrected: ceil(5^(1/4) sqrt(20000 / 5)) = ceil(1.4953 * 63.246) = ceil(94.57) = 95
    assert restart_period(20000, 5, 4.0, "corrected") == 95
    # no variation (1 + B_T = 1): ceil(100000^(2/3)) = ceil(2154.4) and ceil(5^(1/4) sqrt(20000)) = ceil(211.5)
    assert restart_period(20000, 5, 0.0) == 2155 and restart_period(20000, 5, 0.0, "corrected") == 212
    # capped at T (ceil(50^(2/3)) = 14 > 10); a huge budget: at least 1
    assert restart_period(10, 5, 0.0) == 10
    assert restart_period(100, 2, 1e9) == restart_period(100, 2, 1e9, "corrected") == 1
    algo = RestartLinUCB()
    p = algo.resolve(20000, {"d": 5, "R": 0.1, "L": 1.0, "S": 1.0, "B_T": 4.0})
    assert p["period"] == 737 and p["period_rule"] == "aistats" and p["delta"] == 1 / 20000
    with pytest.raises(ConfigError):
        restart_period(100, 2, 1.0, "other")


def test_restarts_exactly_at_multiples_of_H_each_epoch_a_fresh_oful(vectors):
    inst, rewards = vectors
    T, H = len(rewards), 400
    algo = RestartLinUCB(period=H)
    got = algo.play(rewards, inst.info, None, features=inst.features)
    assert algo.events_["restarts"] == [400, 800, 1200] and algo.derived_["n_restarts"] == 3
    for start in range(0, T, H):  # OFUL (our UCB) on the epoch alone, with the trial's delta = 1/T
        sl = slice(start, min(T, start + H))
        epoch = UCB(delta=1 / T).play(rewards[sl], inst.info, None, features=inst.features[sl])
        np.testing.assert_array_equal(got[sl], epoch)
    # and the restart matters: OFUL run across the boundary differs after round 400
    whole = UCB(delta=1 / T).play(rewards[:800], inst.info, None, features=inst.features[:800])
    assert (whole[:400] == got[:400]).all() and (whole[400:800] != got[400:800]).any()


def test_bob_variant_blocks_exp3_and_restart_periods_by_hand(vectors):
    inst, rewards = vectors
    T = len(rewards)
    algo = RestartLinUCB(period="bob")
    got = algo.play(rewards, inst.info, np.random.default_rng(4), features=inst.features)
    p = algo.derived_
    # eq. (11) for linear action sets: H = floor(d sqrt(T)) = floor(3 sqrt(1500)) = 116
    assert p["setting"] == "linear" and p["H"] == math.floor(3 * math.sqrt(T)) == 116
    assert p["Delta"] == math.ceil(math.log(116)) == 5 and p["J"] == [1, 2, 6, 17, 44, 116]
    u = np.random.default_rng(4).random(p["n_blocks"])
    s = np.ones(len(p["J"]))
    expected, periods = [], []
    for i in range(p["n_blocks"]):
        probs = (1 - p["gamma"]) * s / s.sum() + p["gamma"] / len(s)
        j = min(int(np.searchsorted(np.cumsum(probs), u[i], side="right")), len(s) - 1)
        sl = slice(i * p["H"], min(T, (i + 1) * p["H"]))
        acts = play_policy(ReferenceRestartLinUCB(period=p["J"][j], delta=1 / T), rewards[sl], inst.info, None,
                           inst.features[sl])
        expected.extend(acts)
        periods.append(p["J"][j])
        total = rewards[sl][np.arange(len(acts)), acts].sum()
        s[j] *= math.exp(p["gamma"] / (len(s) * probs[j]) * (0.5 + total / p["Q"]))
    np.testing.assert_array_equal(got, expected)
    assert algo.events_["blocks"] == list(range(0, T, 116)) and algo.events_["periods"] == periods
    assert len(set(periods)) > 1


def test_what_each_variant_is_told():
    assert RestartLinUCB().needs() == ("d", "R", "L", "S", "B_T")          # knows B_T
    assert RestartLinUCB(period="bob").needs() == ("d", "R", "L", "S", "reward_bound")  # does not
    assert RestartLinUCB(period=50).needs() == ("d", "R", "L", "S")
    assert RestartLinUCB(B_T=2.0, R=0.1).needs() == ("d", "L", "S")
    for bad in ({"period": "obl"}, {"period": 0}, {"period_rule": "x"}, {"lam": 0.0}, {"delta": 1.5},
                {"setting": "glb"}):
        with pytest.raises(ConfigError):
            RestartLinUCB(**bad).check_params()
