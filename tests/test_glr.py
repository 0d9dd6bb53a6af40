"""GLR-klUCB (Besson, Kaufmann, Maillard & Seznec, JMLR 2022): the compiled kernel against the
literal transcription, the Bernoulli GLR statistic and the threshold by hand, the exactness of
the two shortcuts (kl-UCB argmax without every Newton solve, pruned GLR scan), detection delay
and false alarms on seeded instances."""

import math

import numpy as np
import pytest

from bandits.algorithms import GLRklUCB
from bandits.algorithms.bernoulli_glrt import (
    chord_spreads,
    glr_detects,
    glr_threshold,
    h_inverse,
    kk_T,
    pair_value,
    phi,
)
from bandits.algorithms.glr import explore_range, klucb_level
from bandits.algorithms.indices import klucb_argmax, klucb_index
from bandits.algorithms.protocol import play_policy
from bandits.environments import PiecewiseBernoulli
from bandits.errors import ConfigError
from bandits.numerics import argmax_lowest
from bandits.reference import ReferenceGLRklUCB
from bandits.simulation import stream


def piecewise(T, seed, K=3, n_changes=3, gap=0.3):
    env = PiecewiseBernoulli(K=K, n_changes=n_changes, min_gap=gap)
    env.check_params(T)
    inst = env.instance(T, stream(seed, 0, T))
    return inst, env.rewards(inst, stream(seed, 1, T, 0))


def beta_rewards(T, seed, lo=-1.0, hi=3.0):
    """Rewards in [lo, hi] that are not 0/1 (Beta draws around piecewise means, rescaled)."""
    inst, _ = piecewise(T, seed)
    rng = np.random.default_rng(seed + 100)
    z = rng.beta(4 * inst.means + 0.2, 4 * (1 - inst.means) + 0.2)
    return {**inst.info, "reward_range": (lo, hi)}, lo + (hi - lo) * z


def both(kw, rewards, info):
    algo = GLRklUCB(**kw)
    algo.check_params()
    fast = algo.play(rewards, info, np.random.default_rng(0))
    ref = ReferenceGLRklUCB(**kw)
    slow = play_policy(ref, rewards, info, np.random.default_rng(0))
    return algo, fast, ref, slow


CONFIGS = [dict(), dict(restart="global"),
           dict(check_every=1, split_every=1), dict(check_every=1, split_every=1, restart="global"),
           dict(check_on="rounds", check_every=3, split_every=2, threshold="experiments", c=3.0),
           dict(tuning="known", threshold="theory", restart="global", split_every=3)]
IDS = ["local", "global", "exact-local", "exact-global", "rounds", "known-theory"]


@pytest.mark.parametrize("kw", CONFIGS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_agrees_with_the_literal_transcription_on_bernoulli_changes(kw, seed):
    inst, rewards = piecewise(900, seed)
    algo, fast, ref, slow = both(kw, rewards, inst.info)
    np.testing.assert_array_equal(fast, slow)
    assert algo.events_["restarts"] == ref.restarts_
    assert algo.derived_["n_restarts"] == len(ref.restarts_) > 0


@pytest.mark.parametrize("kw", [CONFIGS[0], CONFIGS[3], CONFIGS[4]], ids=["local", "exact-global", "rounds"])
def test_kernel_agrees_with_the_literal_transcription_on_rewards_that_are_not_binary(kw):
    info, rewards = beta_rewards(700, 3)
    algo, fast, ref, slow = both(kw, rewards, info)
    np.testing.assert_array_equal(fast, slow)
    assert algo.events_["restarts"] == ref.restarts_
    assert len(ref.restarts_) > 0


def test_the_bernoulli_glr_statistic_by_hand():
    xlogx = np.array([m * math.log(m) if m else 0.0 for m in range(40)])
    stack = np.empty(256, dtype=np.int64)

    def detects(z, beta, every=1):
        prefix = np.r_[0.0, np.cumsum(z)]
        binary = bool(np.isin(z, (0.0, 1.0)).all())
        return glr_detects(prefix, len(z), every, beta, xlogx, binary, stack)

    # 1,1,1,0,0,0: the best split s = 3 gives 3 kl(1, 1/2) + 3 kl(0, 1/2) = 6 ln 2
    z = np.array([1.0, 1, 1, 0, 0, 0])
    assert detects(z, 6 * math.log(2) - 1e-9) and not detects(z, 6 * math.log(2) + 1e-9)
    # only the splits s = 2, 4 (Delta_s = 2): 2 ln 2 + 4 kl(1/4, 1/2) = 2 kl(1, 1/2)... = 1.9095
    kl = lambda p, q: (p * math.log(p / q) if p else 0.0) + ((1 - p) * math.log((1 - p) / (1 - q)) if p < 1 else 0.0)  # noqa: E731
    s2 = 2 * kl(1, 0.5) + 4 * kl(0.25, 0.5)
    assert s2 == pytest.approx(1.9095425, abs=1e-6)
    assert detects(z, s2 - 1e-9, every=2) and not detects(z, s2 + 1e-9, every=2)
    # all equal: no change is ever detected (the statistic is 0)
    assert not detects(np.ones(12), 1e-6) and not detects(np.zeros(12), 1e-6)
    # a sequence in [0, 1]: the decomposition phi(s) + phi(n - s) - phi(n) is s kl + (n - s) kl
    z = np.array([0.2, 0.9, 0.4, 0.1, 0.75, 0.3, 0.05])
    n, Sn = len(z), z.sum()
    by_hand = [s * kl(z[:s].mean(), z.mean()) + (n - s) * kl(z[s:].mean(), z.mean()) for s in range(1, n)]
    ours = [pair_value(float(s), z[:s].sum(), float(n), Sn, xlogx, False) - phi(float(n), Sn) for s in range(1, n)]
    np.testing.assert_allclose(ours, by_hand, rtol=1e-12, atol=1e-12)
    assert detects(z, max(by_hand) - 1e-9) and not detects(z, max(by_hand) + 1e-9)


def test_pruned_scan_decides_as_scanning_every_split():
    """Pruning by convex bounds over blocks must give the answer of the full scan, on
    random sequences with and without a change, binary or not, at thresholds just around the sup."""
    rng = np.random.default_rng(5)
    xlogx = np.array([m * math.log(m) if m else 0.0 for m in range(3001)])
    stack = np.empty(256, dtype=np.int64)
    for trial in range(60):
        n = int(rng.integers(2, 3000))
        cut = int(rng.integers(0, n))
        p0, p1 = rng.uniform(0, 1, 2) if trial % 3 else (0.4, 0.4)
        z = np.r_[rng.random(cut) < p0, rng.random(n - cut) < p1].astype(float)
        if trial % 2:
            z = np.clip(z * 0.7 + rng.uniform(0, 0.3, n), 0, 1)
        binary = trial % 2 == 0
        every = int(rng.integers(1, 12))
        prefix = np.r_[0.0, np.cumsum(z)]
        splits = range(every, n, every)
        if not len(splits):
            continue
        sup = max(pair_value(float(s), prefix[s], float(n), prefix[n], xlogx, binary) for s in splits) \
            - phi(float(n), prefix[n])
        for beta in (sup - 1e-4, sup + 1e-4, 0.5 * sup, 2 * sup + 1):
            assert glr_detects(prefix, n, every, beta, xlogx, binary, stack) == (sup >= beta), (trial, beta)


def test_pruned_scan_on_long_sequences_uses_the_chord_spreads_exactly():
    """Long sequences reach the stored chord spreads (blocks of 8 splits and more) and the
    chi-square pre-bound: the pruned test still decides as the full scan, just below and
    just above the sup, stationary or with a late small change, binary or not; and the spreads
    the kernel builds sample by sample are those built at once."""
    rng = np.random.default_rng(11)
    n_max = 60_000
    xlogx = np.array([m * math.log(m) if m else 0.0 for m in range(n_max + 1)])
    stack = np.empty(256, dtype=np.int64)
    for trial, (n, every, binary) in enumerate([(60_000, 10, True), (20_000, 1, True), (40_000, 10, False),
                                                 (30_000, 3, True)]):
        p = rng.uniform(0.05, 0.95)
        cut = int(0.9 * n)
        z = np.r_[rng.random(cut) < p, rng.random(n - cut) < min(1.0, p + 0.03 * (trial % 2))].astype(float)
        if not binary:
            z = np.clip(z * 0.6 + rng.uniform(0, 0.4, n), 0, 1)
        prefix = np.r_[0.0, np.cumsum(z)]
        s = np.arange(every, n, every, dtype=float)
        S = prefix[every:n:every]
        with np.errstate(divide="ignore", invalid="ignore"):
            def phis(m, x):
                return np.nan_to_num(x * np.log(x / m)) + np.nan_to_num((m - x) * np.log((m - x) / m))
            stat = phis(s, S) + phis(n - s, prefix[n] - S) - phi(float(n), prefix[n])
        sup = float(stat.max())
        for beta in (sup - 1e-4, sup + 1e-4, 0.5 * sup, 20.0):
            assert glr_detects(prefix, n, every, beta, xlogx, binary, stack) == (sup >= beta), (trial, beta, sup)
    emin, emax = chord_spreads(prefix, n, every)
    assert (emin <= 0).all() and (emax >= 0).all() and (emin < 0).any() and (emax > 0).any()


def test_kl_ucb_choice_is_the_argmax_of_every_index():
    """The shared certified / pruned argmax (bandits.algorithms.indices.klucb_argmax) equals
    argmax_lowest of all kl-UCB indices on GLR-klUCB's states (a level per arm after local
    restarts, guesses kept across rounds), ties included."""
    rng = np.random.default_rng(2)
    K = 5
    guess = np.full(K, np.nan)
    index = np.empty(K)
    for trial in range(3000):
        n = rng.integers(1, 400, K)
        if trial % 5 == 0:
            n[1] = n[3]
        prefix = np.zeros((K, 401))
        for a in range(K):
            prefix[a, n[a]] = rng.binomial(n[a], rng.uniform()) if trial % 2 else rng.uniform(0, n[a])
        if trial % 5 == 0:
            prefix[3, n[3]] = prefix[1, n[1]]     # identical arms: a tie, the lowest wins
        tau = rng.integers(0, 50, K) if trial % 3 else np.zeros(K, dtype=np.int64)
        t1 = 600 + trial
        c = 0.0 if trial % 4 else 3.0
        if trial % 7 == 0:
            guess[:] = np.nan
        first = int(rng.integers(0, K))
        totals = np.array([prefix[a, n[a]] for a in range(K)])
        levels = np.array([klucb_level(t1 - tau[a], c) for a in range(K)])
        every = [klucb_index(totals[a], n[a], levels[a]) for a in range(K)]
        assert klucb_argmax(totals, n, levels, first, guess, index) == argmax_lowest(np.array(every))


def test_threshold_formulas_by_hand():
    assert glr_threshold(100, 0.01, "practical") == pytest.approx(math.log(3 * 100 ** 1.5 / 0.01))
    assert glr_threshold(100, 0.01, "experiments") == pytest.approx(math.log(1e5))
    assert glr_threshold(1, 0.5, "practical") == pytest.approx(math.log(6))
    # Lemma 1: h^{-1} inverts h(u) = u - ln u on u >= 1; T(x) ~ x + 4 ln(1 + x + sqrt(2x)) (Kaufmann & Koolen)
    u = np.array([1.5, 3.0, 10.0, 40.0])
    np.testing.assert_allclose(h_inverse(u - np.log(u)), u, rtol=1e-12)
    x = np.array([10.0, 30.0, 100.0])
    np.testing.assert_allclose(kk_T(x), x + 4 * np.log(1 + x + np.sqrt(2 * x)), rtol=0.05)
    x0 = math.log(3 * 100 * 10 / 0.01) / 2
    h1 = float(h_inverse(1 + x0))
    z = (h1 + math.log(2 * math.pi ** 2 / 6)) / 2
    hz = float(h_inverse(z))
    assert z >= float(h_inverse(1 / math.log(1.5)))
    by_hand = 2 * (2 * math.exp(1 / hz) * hz) + 6 * math.log(1 + math.log(100))
    assert glr_threshold(100, 0.01, "theory") == pytest.approx(by_hand, rel=1e-12)
    assert glr_threshold(100, 0.01, "theory") > glr_threshold(100, 0.01, "practical")


def test_tuning_and_what_the_algorithm_needs():
    T, K = 10_000, 5
    inst, rewards = piecewise(T, 0, K=K, n_changes=4)
    algo = GLRklUCB()
    algo.play(rewards, inst.info, None)
    assert algo.derived_["alpha0"] == pytest.approx(math.sqrt(K * math.log(T) / T))
    assert algo.derived_["alpha_grows"] and algo.derived_["delta"] == pytest.approx(1 / math.sqrt(T))
    assert explore_range(K, 0.1, True, 4) == math.floor(K / (0.1 * 2)) and explore_range(K, 0.1, False, 4) == 50
    assert explore_range(K, 0.8, True, 9) == K and explore_range(K, 0.0, True, 1) == 0
    known = GLRklUCB(tuning="known")
    assert set(known.needs()) == {"reward_range", "Upsilon_T"} and GLRklUCB().needs() == ("reward_range",)
    assert GLRklUCB(tuning="known", Upsilon_T=2, reward_range=[0, 1]).needs() == ()
    known.play(rewards, inst.info, None)
    assert known.derived_["alpha0"] == pytest.approx(math.sqrt(K * 4 * math.log(T) / T))
    assert not known.derived_["alpha_grows"] and known.derived_["Upsilon_T"] == 4
    # Upsilon_T = 0 (stationary control): alpha = 0, no forced exploration at all
    zero = GLRklUCB(tuning="known", Upsilon_T=0)
    stat, r0 = piecewise(T, 1, K=K, n_changes=0)
    a0 = zero.play(r0, stat.info, None)
    assert zero.derived_["alpha0"] == 0.0 and (np.bincount(a0, minlength=K) > 0).all()
    for bad in (dict(restart="both"), dict(alpha=1.5), dict(check_every=0), dict(threshold="x"), dict(delta=2.0)):
        with pytest.raises(ConfigError, match="algo\\."):
            GLRklUCB(**bad).check_params()


def test_forced_exploration_is_the_deterministic_schedule():
    """alpha = 1/2, K = 2: floor(K / alpha) = 4, so rounds t = 1, 2 (mod 4) play arms 1, 2
    (1-based, Algorithm 1 lines 3-4)."""
    rewards = np.tile([1.0, 0.0], (400, 1))
    actions = GLRklUCB(alpha=0.5).play(rewards, {"reward_range": (0, 1)}, None)
    t1 = np.arange(1, 401)
    assert (actions[t1 % 4 == 1] == 0).all() and (actions[t1 % 4 == 2] == 1).all()
    assert (actions[(t1 % 4 == 3) | (t1 % 4 == 0)] == 0).all()    # kl-UCB: arm 1 pays 1, arm 2 pays 0


@pytest.mark.parametrize("restart", ["local", "global"])
def test_a_large_change_is_detected_within_a_bounded_delay(restart):
    T, change = 20_000, 10_000
    means = np.where(np.arange(T)[:, None] < change, [0.8, 0.2], [0.2, 0.8])
    rewards = (np.random.default_rng(4).random((T, 2)) < means).astype(float)
    algo = GLRklUCB(restart=restart)
    actions = algo.play(rewards, {"reward_range": (0, 1)}, None)
    times = [t for t, _ in algo.events_["restarts"]]
    assert times and change <= times[0] < change + 300
    assert algo.derived_["n_restarts"] == len(times)
    assert (actions[change + 2000:] == 1).mean() > 0.9


@pytest.mark.parametrize("kw", [dict(), dict(restart="global"), dict(check_every=1, split_every=1)],
                         ids=["local", "global", "exact"])
def test_no_false_alarm_on_a_stationary_instance(kw):
    for seed in (0, 1, 2):
        inst, rewards = piecewise(20_000, seed, K=5, n_changes=0)
        algo = GLRklUCB(**kw)
        algo.play(rewards, inst.info, None)
        assert algo.events_ == {"restarts": []} and algo.derived_["n_restarts"] == 0
