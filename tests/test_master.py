"""MASTER over UCB1 (Wei & Luo 2021, Alg. 3 over Alg. 7): the compiled kernel against the
literal transcription (the paper's defaults and every option), MALG's scheduling, Alg. 7's
index and Eq. (34)'s rho and the test thresholds by hand, and a test that fires on a huge
change once its thresholds are made small."""

import math

import numpy as np
import pytest

from bandits.algorithms import MasterUCB, play_policy
from bandits.algorithms.indices import ucb_alg7_index
from bandits.algorithms.master import (
    Rate,
    malg_active,
    malg_schedule,
    master_test1,
    max_order,
    rate_at,
    rate_table,
)
from bandits.algorithms.master import (
    test2_fails as second_test_fails,
)
from bandits.reference import ReferenceMasterUCB

INFO = {"reward_range": (0.0, 1.0), "d": 5}


def bernoulli_table(seed, T=1200, K=5, pieces=3):
    """Bernoulli rewards whose means change at T/pieces, 2T/pieces, ..."""
    rng = np.random.default_rng(seed)
    means = np.repeat(rng.random((pieces, K)), -(-T // pieces), axis=0)[:T]
    return (rng.random((T, K)) < means).astype(float)


def huge_drop(seed, T=2000, K=5):
    """Every arm pays Bernoulli(0.95) for T/2 rounds, then Bernoulli(0.05)."""
    means = np.full((T, K), 0.95)
    means[T // 2:] = 0.05
    return (np.random.default_rng(seed).random((T, K)) < means).astype(float)


def both(rewards, info, seed, **params):
    algo, ref = MasterUCB(**params), ReferenceMasterUCB(**params)
    actions = algo.play(rewards, info, np.random.default_rng(seed))
    expected = play_policy(ref, rewards, info, np.random.default_rng(seed))
    return algo, ref, actions, expected


def events_of(ref):
    restarts = [r for r, cause in ref.events if cause > 0]
    return {"restarts": restarts, "test": [cause for _, cause in ref.events if cause > 0],
            "blocks": [0] + [r for r, _ in ref.events]}


# the earlier reading (config master_ucb_nolog): rho without logs, Auer's index, f~ clipped
NOLOG = {"rho_rule": "earlier", "base_index": "auer", "f_tilde_clip": True}
OPTIONS = [{}, {"rho_cap": True}, {"start_order": "floor_log2_T"}, {"f_tilde_clip": True}, NOLOG,
           {**NOLOG, "rho_cap": True, "start_order": "floor_log2_T"}]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "paper")
@pytest.mark.parametrize("multiplier", [1.0, 1e-3])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_agrees_with_reference_on_bernoulli_changes(seed, multiplier, options):
    rewards = bernoulli_table(seed)
    algo, ref, actions, expected = both(rewards, INFO, seed + 10, test_multiplier=multiplier, **options)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)


@pytest.mark.parametrize("params", [{"test_multiplier": 3e-4, **NOLOG},
                                    {"test_multiplier": 3e-4, "ucb_c": 0.05, **NOLOG},
                                    {"test_multiplier": 1e-4, "ucb_c": 0.05, "start_order": "floor_log2_T"},
                                    {"test_multiplier": 1e-3}, {"test_multiplier": 1e-3, "rho_cap": True}])
def test_kernel_agrees_with_reference_when_tests_fire(params):
    # a drop with small thresholds: several test restarts, so both restart paths are compared
    # (ucb_c = 0.05 keeps f~ below 1, so Test 2's f~ - R is not just 1 - R)
    rewards = huge_drop(3)
    algo, ref, actions, expected = both(rewards, INFO, 4, **params)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    assert algo.derived_["test_restarts"] >= 2


def test_kernel_agrees_with_reference_when_test1_fires():
    # a rise (arm 0 at 0.3, the others 0.05, then all at 0.95 from round 1100) fires Test 1 once
    # UCB1's bonus is small enough for U_t to drop below 1 (ucb_c = 0.05, a non-default value;
    # with c = 2 a fresh instance's max index stays near 1, so U_t = 1 and Test 1 cannot fire)
    T, K = 1500, 5
    means = np.full((T, K), 0.05)
    means[:, 0] = 0.3
    means[1100:] = 0.95
    rewards = (np.random.default_rng(3).random((T, K)) < means).astype(float)
    algo, ref, actions, expected = both(rewards, INFO, 1, ucb_c=0.05, test1_constant=3e-4, **NOLOG)
    np.testing.assert_array_equal(actions, expected)
    assert algo.events_ == events_of(ref)
    assert 1 in algo.events_["test"] and algo.derived_["test1_restarts"] >= 1
    assert any(r > 1100 for r, cause in zip(algo.events_["restarts"], algo.events_["test"], strict=True) if cause == 1)


@pytest.mark.parametrize("seed", [5, 6])
def test_kernel_agrees_with_reference_on_non_binary_rewards(seed):
    # rewards in [-1, 3] (not 0/1), mapped to [0, 1] through reward_range; means change at T/2
    rng = np.random.default_rng(seed)
    T, K = 900, 4
    means = np.where(np.arange(T)[:, None] < T // 2, rng.random(K), rng.random(K))
    rewards = -1.0 + 4.0 * rng.beta(4 * means + 0.5, 4 * (1 - means) + 0.5, size=(T, K))
    info = {"reward_range": (-1.0, 3.0), "d": K}
    for multiplier, options in ((1.0, {}), (1e-3, {}), (1e-3, NOLOG)):
        algo, ref, actions, expected = both(rewards, info, seed, test_multiplier=multiplier, **options)
        np.testing.assert_array_equal(actions, expected)
        assert algo.events_ == events_of(ref)


def test_malg_schedule_by_hand():
    """A block of order n = 2 (rounds 10..13) with the stream of default_rng(0):
    u = 0.637, 0.270, 0.041 | 0.017 | 0.813, 0.913 | 0.607 (one per aligned order, high to low).
    K = 5: rho(1) = 7.236, rho(2) = 4.081, rho(4) = 2.368, so order 2 starts with
    probability 1, order 1 with 2.368 / 4.081 = 0.580, order 0 with 2.368 / 7.236 = 0.327."""
    u = np.random.default_rng(0).random(7)
    np.testing.assert_allclose(u, [0.637, 0.270, 0.041, 0.017, 0.813, 0.913, 0.607], atol=5e-4)
    rho_pow = rate_table(Rate(math.sqrt(5.0), 0.5, 5.0, math.inf), 2)  # sqrt(5 / t) + 5 / t
    np.testing.assert_allclose(rho_pow[2] / rho_pow, [0.32725, 0.58024, 1.0], atol=1e-5)
    rng = np.random.default_rng(0)
    ends = np.full(3, -1, np.int64)
    started = np.zeros(3, np.bool_)
    seen = []
    for tau in range(4):
        t = 10 + tau
        malg_schedule(ends, t, tau, 2, rho_pow, rng, started)
        seen.append(([m for m in range(3) if started[m]], ends.tolist(), malg_active(ends, t, 2)))
    assert seen == [
        ([0, 1, 2], [10, 11, 13], 0),  # tau 0: u 0.637 < 1, 0.270 < 0.580, 0.041 < 0.327: all three
        ([0], [11, 11, 13], 0),        # tau 1: 0.017 < 0.327: a new order-0 instance on [11, 11]
        ([], [11, 11, 13], 2),         # tau 2: 0.813, 0.913: none; the paused order-2 instance acts
        ([], [11, 11, 13], 2),         # tau 3: 0.607 >= 0.327
    ]
    # the order-1 instance on [10, 11] never acted: order 0 covered both its rounds


class Scripted:
    """A stream of given uniforms, in the order MALG draws them."""

    def __init__(self, values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


def test_active_instance_pauses_and_resumes():
    """Rounds 0..6 are blocks n = 0 (round 0), 1 (rounds 1-2), 2 (rounds 3-6). In block 2
    the order-2 instance acts at rounds 3, 4; an order-0 instance scheduled at round 5
    (tau = 2, u = 0.1 < rho(4) / rho(1) = 0.327) pauses it; at round 6 it resumes with
    its two rounds of data."""
    u = [0.5,                 # block 0: m = 0 (probability 1)
         0.5, 0.9, 0.9,       # block 1: tau 0 m = 1, 0 (0.9 >= 0.564); tau 1 m = 0
         0.5, 0.9, 0.9,       # block 2: tau 0 m = 2, 1 (0.9 >= 0.580), 0 (0.9 >= 0.327)
         0.9, 0.9, 0.1, 0.9]  # tau 1 m = 0; tau 2 m = 1, m = 0 (0.1: scheduled); tau 3 m = 0
    ref = ReferenceMasterUCB(**NOLOG)
    ref.reset(5, 7, Scripted(u), INFO)
    seen = []
    for t in range(7):
        arm = ref.select(t)
        seen.append((ref.n, ref.active.order, ref.active.s, ref.active.rounds))
        ref.update(t, arm, 1.0)
    assert seen == [(0, 0, 0, 0), (1, 1, 1, 0), (1, 1, 1, 1),
                    (2, 2, 3, 0), (2, 2, 3, 1), (2, 0, 5, 0), (2, 2, 3, 2)]


def test_rho_and_thresholds_by_hand():
    """Eq. (34) at T = 1000, K = 5, delta = 1/T: L = log(T / delta) = log(1e6) = 13.8155,
    rho(t) = sqrt(5 L / t) + 5 L / t; rho_hat(t) = 6 (log2 T + 1) L rho(t) (Lemma 3)."""
    T, K = 1000, 5
    algo = MasterUCB()
    p = algo.resolve(T, INFO, K)
    L = math.log(1000 / (1 / 1000))
    hat = 6.0 * (math.log2(1000) + 1.0) * L
    assert p["delta"] == pytest.approx(1e-3) and p["log_T_over_delta"] == pytest.approx(13.8155, abs=1e-4)
    assert p["rho_hat_factor"] == pytest.approx(hat) == pytest.approx(908.99, abs=0.01)
    rate = algo.rate(p, K)
    assert rate_at(4.0, rate) == pytest.approx(math.sqrt(5 * L / 4) + 5 * L / 4)
    rho_pow = rate_table(rate, T)
    thr1 = p["test1_multiple"] * p["rho_hat_factor"] * rho_pow
    assert len(rho_pow) == max_order(T) + 1 == 11
    assert thr1[9] == pytest.approx(9 * hat * (math.sqrt(5 * L / 512) + 5 * L / 512))  # 9 rho_hat(2^9) = 4,108.7
    assert thr1[9] == pytest.approx(4108.67, abs=0.01)
    thr2 = 3 * hat * rate_at(100.0, rate)  # 3 rho_hat(100): a mean of f~ - R never reaches it
    assert thr2 == pytest.approx(3 * hat * (math.sqrt(5 * L / 100) + 5 * L / 100))
    assert second_test_fails(100 * thr2 * (1 + 1e-9), 100, thr2)
    assert not second_test_fails(100 * thr2 * (1 - 1e-9), 100, thr2)
    # the cap (App. F): rho = min(1, .), flat while the uncapped rho exceeds 1 (t < 115 here)
    capped = MasterUCB(rho_cap=True).rate(p, K)
    assert rate_at(64.0, capped) == 1.0 and rate_at(512.0, capped) == pytest.approx(rate_at(512.0, rate))
    # the earlier reading: no log(T / delta)
    early = MasterUCB(rho_rule="earlier").rate(p, K)
    assert rate_at(4.0, early) == pytest.approx(math.sqrt(5 / 4) + 5 / 4)
    # Test 1: the order-2 instance ending at t = 7 has rounds 4..7 with mean 0.75
    xs = np.array([0, 0, 0, 0, 1, 1, 0, 1], dtype=float)
    ends = np.array([5, 6, 7], dtype=np.int64)
    thr = np.array([9.0, 9.0, 0.5])
    assert master_test1(ends, 2, 7, xs, 0.25, thr)          # 0.75 >= 0.25 + 0.5
    assert not master_test1(ends, 2, 7, xs, 0.2501, thr)
    assert not master_test1(ends, 2, 6, xs, 0.0, np.array([9.0, 9.0, 0.0]))  # no instance ends at 6 but order 1
    assert master_test1(ends, 2, 6, xs, 0.0, np.array([9.0, 0.5, 9.0]))      # order 1 on [5, 6]: mean 0.5


def test_alg7_index_by_hand():
    """Alg. 7, Eq. (33): r_hat + c sqrt(log(T/delta) / N+), N+ = max(1, N): an unpulled arm has
    the finite index c sqrt(log(T/delta)); f~ is the largest index, not clipped."""
    L = math.log(1e6)
    assert ucb_alg7_index(0.0, 0.0, L, 2.0) == pytest.approx(2 * math.sqrt(L)) == pytest.approx(7.434, abs=1e-3)
    assert ucb_alg7_index(3.0, 4.0, L, 2.0) == pytest.approx(0.75 + 2 * math.sqrt(L / 4))
    assert ucb_alg7_index(0.6, 1.0, L, 2.0) == pytest.approx(0.6 + 2 * math.sqrt(L))
    # a whole trial's first round: every arm unpulled, all indices tie, arm 0 plays, f~ = 7.43
    ref = ReferenceMasterUCB()
    ref.reset(3, 1000, np.random.default_rng(0), INFO)
    assert ref.select(0) == 0 and ref.f == pytest.approx(2 * math.sqrt(L))


def test_start_order_and_restart_order():
    """start_order: floor_log2_T starts every epoch (the first, and each after a failed test)
    at n0 = floor(log2 T), as the re-implementation's MASTER.cpp does; zero starts at n = 0."""
    T = 2000
    rewards = huge_drop(7, T)
    algo = MasterUCB(start_order="floor_log2_T", test_multiplier=1e-3)
    algo.play(rewards, INFO, np.random.default_rng(1))
    assert algo.derived_["start_order"] == 10
    blocks, restarts = algo.events_["blocks"], algo.events_["restarts"]
    assert len(restarts) >= 3
    # a block that ends without a test is of order 10 (2^10 rounds); order 11 would not fit
    ended = [(a, b) for a, b in zip(blocks, blocks[1:], strict=False) if b not in restarts]
    assert all(b - a == 1024 for a, b in ended)
    assert any(b - a == 1024 for a, b in ended) or len(ended) == 0
    zero = MasterUCB(test_multiplier=1e-3)
    zero.play(rewards, INFO, np.random.default_rng(1))
    assert zero.derived_["start_order"] == 0 and zero.events_["blocks"][:4] == [0, 1, 3, 7]


def test_paper_thresholds_exceed_one_at_practical_horizons():
    """With the paper's constants no test can fire: a mean of rewards in [0, 1] exceeds
    U_t >= 0 by at most 1, and a mean of f~ - R is at most f~'s bonus, but the smallest
    thresholds of a trial (the longest instance, the whole horizon) are far above (K = 5)."""
    for T in (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6):
        algo = MasterUCB()
        algo.play(np.zeros((T, 5)), INFO, np.random.default_rng(0))
        assert algo.derived_["min_test1_threshold"] > 400 and algo.derived_["min_test2_threshold"] > 100
        assert algo.derived_["test_restarts"] == 0
    # T = 1e6: 9 rho_hat(2^19) with L = log(1e12) = 27.63: 9 * 6 * (log2 1e6 + 1) * L * rho(2^19)
    L = math.log(1e12)
    expected = 9 * 6 * (math.log2(1e6) + 1) * L * (math.sqrt(5 * L / 2 ** 19) + 5 * L / 2 ** 19)
    assert algo.derived_["min_test1_threshold"] == pytest.approx(expected)


@pytest.mark.parametrize("T,factor,thr1,thr2,early1,early2", [(10 ** 3, 909, 4109, 905, 888, 206),
                                                               (10 ** 4, 1579, 1667, 498, 360, 108),
                                                               (10 ** 5, 2433, 956, 256, 193, 52),
                                                               (10 ** 6, 3470, 515, 124, 97, 23)])
def test_the_documented_smallest_thresholds(T, factor, thr1, thr2, early1, early2):
    """The table of docs/baselines.md (K = 5, delta = 1/T), for the text's reading and the earlier one."""
    from bandits.algorithms.master import smallest_thresholds

    for params, one, two in (({}, thr1, thr2), (NOLOG, early1, early2)):
        algo = MasterUCB(**params)
        p = algo.resolve(T, INFO, 5)
        assert round(p["rho_hat_factor"]) == factor
        assert [round(v) for v in smallest_thresholds(p, algo.rate(p, 5), T)] == [one, two]


def test_huge_change_fires_a_test_and_restarts():
    T = 2000
    rewards = huge_drop(7, T)
    paper = MasterUCB()
    paper.play(rewards, INFO, np.random.default_rng(1))
    assert paper.derived_["test_restarts"] == 0
    # with Alg. 7's unclipped f~, thresholds 1000 times smaller fire Test 2 on the bonus alone,
    # before the drop: f~ - R stays near c sqrt(log(T/delta) / N), far above 1
    early = MasterUCB(test_multiplier=1e-3)
    early.play(rewards, INFO, np.random.default_rng(1))
    assert early.events_["restarts"][0] < T // 2
    # with f~ clipped at 1 (the earlier reading), only the drop fires them
    algo = MasterUCB(test_multiplier=1e-3, **NOLOG)  # a non-default option: thresholds 1000 times smaller
    algo.play(rewards, INFO, np.random.default_rng(1))
    restarts, blocks = algo.events_["restarts"], algo.events_["blocks"]
    assert algo.derived_["test_restarts"] >= 1 and algo.derived_["test2_restarts"] >= 1
    first = restarts[0]
    assert T // 2 < first < T // 2 + 400      # after the drop, not before
    # a restart starts a new epoch at n = 0: blocks of length 1, 2, 4, ... from the restart round
    i = blocks.index(first)
    assert blocks[i:i + 3] == [first, first + 1, first + 3]
    # before the drop the blocks doubled undisturbed: 0, 1, 3, 7, 15, ...
    assert [b for b in blocks if b <= T // 2] == [2 ** n - 1 for n in range(10)]


def test_only_the_chosen_rewards_are_read():
    rewards = bernoulli_table(8, T=600)
    algo = MasterUCB(test_multiplier=1e-3)
    actions = algo.play(rewards, INFO, np.random.default_rng(2))
    masked = np.full_like(rewards, np.nan)
    masked[np.arange(len(actions)), actions] = rewards[np.arange(len(actions)), actions]
    again = MasterUCB(test_multiplier=1e-3).play(masked, INFO, np.random.default_rng(2))
    np.testing.assert_array_equal(actions, again)


def test_bad_parameters_are_refused():
    from bandits.errors import ConfigError

    for bad in ({"rho_constant": 0.0}, {"test_multiplier": -1.0}, {"delta": 2.0}, {"reward_range": [1.0, 0.0]},
                {"rho_rule": "recalled"}, {"base_index": "kl"}, {"start_order": 1}, {"rho_cap": "yes"},
                {"base_index": "auer", "f_tilde_clip": False}):
        with pytest.raises(ConfigError):
            MasterUCB(**bad).check_params()
    assert MasterUCB().needs() == ("reward_range",)
    assert MasterUCB(reward_range=[0.0, 1.0]).needs() == ()
