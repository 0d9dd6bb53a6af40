"""The passively adaptive K-armed baselines (d_ucb, sw_ucb_gm, discounted_ts, sw_ts, and the
kl-UCB variants d_klucb, sw_klucb_gm): round-exact agreement with the literal
transcriptions, hand-computed steps, the tuning formulas by hand, the stationary limit
Upsilon_T = 0, and what the discount / window buys."""

import math

import numpy as np
import pytest

from bandits.algorithms import (
    KLUCB,
    DiscountedThompson,
    DiscountedUCB,
    SlidingWindowThompson,
    SlidingWindowUCBGM,
    play,
)
from bandits.algorithms.discounted import discount_and_add
from bandits.algorithms.forgetting import discount_gm, window_gm
from bandits.environments.piecewise_bernoulli import PiecewiseBernoulli
from bandits.errors import ConfigError
from bandits.reference import ReferenceDiscountedTS, ReferenceDUCB, ReferenceSWTS, ReferenceSWUCBGM

T = 3000
PAIRS = {
    "d_ucb": (DiscountedUCB, ReferenceDUCB),
    "sw_ucb_gm": (SlidingWindowUCBGM, ReferenceSWUCBGM),
    "discounted_ts": (DiscountedThompson, ReferenceDiscountedTS),
    "sw_ts": (SlidingWindowThompson, ReferenceSWTS),
}


def bernoulli_table(seed, T=T):
    """K = 5 arms, 4 change points (evenly spaced), Bernoulli rewards."""
    env = PiecewiseBernoulli(K=5, n_changes=4, min_gap=0.1)
    inst = env.instance(T, np.random.default_rng(seed))
    return inst.means, env.rewards(inst, np.random.default_rng(100 + seed)), dict(inst.info)


def fractional_table(seed):
    """The same means, rewards in [0, 1] that are mostly not 0 / 1 (Beta around the mean), with
    some exact 0s and 1s, so the Bernoulli trial takes all three branches."""
    means, _, info = bernoulli_table(seed)
    rng = np.random.default_rng(200 + seed)
    smooth = rng.beta(4 * means + 0.1, 4 * (1 - means) + 0.1)
    hard = (rng.random(means.shape) < means).astype(float)
    return np.where(rng.random(means.shape) < 0.2, hard, smooth), info


def agree(name, rewards, info, seed, **params):
    fast, slow = PAIRS[name]
    got = fast(**params).play(rewards, info, np.random.default_rng(seed))
    want = play(slow(**params), rewards, info, np.random.default_rng(seed))
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("name", list(PAIRS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernels_agree_with_literal_transcriptions_on_bernoulli_tables(name, seed):
    _, rewards, info = bernoulli_table(seed)
    actions = agree(name, rewards, info, seed)
    assert len(np.unique(actions)) == 5  # every arm played: the check is not vacuous


@pytest.mark.parametrize("name", list(PAIRS))
@pytest.mark.parametrize("seed", [0, 1])
def test_kernels_agree_with_literal_transcriptions_on_rewards_inside_the_unit_interval(name, seed):
    rewards, info = fractional_table(seed)
    agree(name, rewards, info, seed)


@pytest.mark.parametrize("name, params", [
    ("d_ucb", {"gamma": 0.9}), ("d_ucb", {"gamma": 0.99, "xi": 0.125}),
    ("sw_ucb_gm", {"window": 50}), ("sw_ucb_gm", {"window": 7, "xi": 1.0, "B": 2.0}),
    ("discounted_ts", {"gamma": "gm"}), ("discounted_ts", {"gamma": 0.95, "binarize": False, "alpha0": 0.5}),
    ("sw_ts", {"window": 40}), ("sw_ts", {"window": 40, "binarize": False, "beta0": 2.0}),
])
def test_kernels_agree_with_other_constants_and_a_rescaled_range(name, params):
    rewards, info = fractional_table(3)
    if name == "sw_ts" and not params.get("binarize", True):
        rewards = np.clip(rewards, 0.01, 0.99)  # fractional window sums: see the module doc of sliding_window_gm
    agree(name, rewards, info, 3, **params)
    # the same rewards on [-1, 2], told through algo.reward_range (the environment's range is ignored)
    agree(name, 3 * rewards - 1, info, 3, reward_range=[-1.0, 2.0], **params)


@pytest.mark.parametrize("name", list(PAIRS))
def test_reward_range_rescaling_gives_the_same_trajectory_on_bernoulli_rewards(name):
    _, rewards, info = bernoulli_table(4, T=1000)
    fast = PAIRS[name][0]
    plain = fast().play(rewards, info, np.random.default_rng(9))
    scaled = fast(reward_range=[-1.0, 2.0]).play(3 * rewards - 1, info, np.random.default_rng(9))
    np.testing.assert_array_equal(plain, scaled)


KL = [{"index": "kl_ucb"}, {"index": "kl_ucb", "kl_exploration": "log_loglog"},
      {"index": "kl_ucb", "kl_exploration": "log_loglog", "kl_c": 1.0},
      {"index": "kl_ucb", "kl_exploration": "three_log"}]


@pytest.mark.parametrize("name", ["d_ucb", "sw_ucb_gm"])
@pytest.mark.parametrize("kl", KL)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kl_variants_agree_with_literal_transcriptions(name, kl, seed):
    """D-klUCB (kl-UCB on the discounted counts and means, f(n_t(gamma))) and SW-klUCB (on the
    window's, f(min(t, tau))), on Bernoulli rewards and on rewards inside [0, 1]."""
    _, rewards, info = bernoulli_table(seed)
    actions = agree(name, rewards, info, seed, **kl)
    assert len(np.unique(actions)) == 5
    agree(name, fractional_table(seed)[0], info, seed, **kl)


@pytest.mark.parametrize("name, params", [("d_ucb", {"gamma": 0.9}), ("sw_ucb_gm", {"window": 40}),
                                          ("sw_ucb_gm", {"window": 7})])
@pytest.mark.parametrize("kl", KL[:2] + KL[3:])
def test_kl_variants_agree_with_other_constants_and_a_rescaled_range(name, params, kl):
    rewards, info = fractional_table(3)
    agree(name, rewards, info, 3, **params, **kl)
    agree(name, 3 * rewards - 1, info, 3, reward_range=[-1.0, 2.0], **params, **kl)
    # rewards outside the range are clipped to [0, 1] for kl (the transcription clips them too)
    agree(name, 1.4 * rewards - 0.2, info, 3, **params, **kl)


@pytest.mark.parametrize("kl, c", [({}, 0.0), ({"kl_exploration": "log_loglog", "kl_c": 3.0}, 3.0)])
def test_kl_variants_without_forgetting_are_kl_ucb(kl, c):
    """gamma = 1 (n_t(1) = t, the counts and sums undiscounted) and tau = T (the whole
    history): D-klUCB and SW-klUCB are kl-UCB (Garivier & Cappé, Alg. 1, t = rounds played)
    with c = 0 for f = log and c = 3 for log_loglog, round for round."""
    _, rewards, info = bernoulli_table(5)
    want = KLUCB(c=c).play(rewards, info, np.random.default_rng(0))
    for algo in (DiscountedUCB(gamma=1.0, index="kl_ucb", **kl), SlidingWindowUCBGM(window=T, index="kl_ucb", **kl)):
        np.testing.assert_array_equal(algo.play(rewards, info, np.random.default_rng(0)), want)


def test_index_choice_is_recorded_and_checked():
    info = {"Upsilon_T": 4, "reward_range": (0.0, 1.0), "d": 5}
    assert DiscountedUCB().resolve(10_000, info)["index"] == "ucb1"
    p = SlidingWindowUCBGM(index="kl_ucb", kl_exploration="three_log").resolve(10_000, info)
    assert (p["index"], p["kl_exploration"], p["kl_f"]) == ("kl_ucb", "three_log", [3.0, 0.0])
    p = DiscountedUCB(index="kl_ucb", kl_exploration="log_loglog", kl_c=2.0).resolve(10_000, info)
    assert p["kl_f"] == [1.0, 2.0]
    for bad in (DiscountedUCB(index="kl"), SlidingWindowUCBGM(kl_exploration="loglog"), DiscountedUCB(kl_c=-1.0)):
        with pytest.raises(ConfigError, match="algo\\.(index|kl_exploration|kl_c)"):
            bad.check_params()


# ----------------------------------------------------------------------------- steps by hand

def test_discount_step_by_hand():
    N, X = np.zeros(2), np.zeros(2)
    for arm, x in [(0, 1.0), (1, 0.0), (0, 0.0)]:
        discount_and_add(N, X, 0.5, arm, 1.0, x)
    np.testing.assert_allclose(N, [0.25 + 1.0, 0.5])  # arm 0 pulled at rounds 0 and 2, arm 1 at round 1
    np.testing.assert_allclose(X, [0.25, 0.0])


def test_d_ucb_first_rounds_by_hand():
    rewards = np.array([[1.0, 0.9], [0.8, 0.0], [0.0, 0.7], [0.5, 0.5]])
    info = {"reward_range": (0.0, 1.0), "d": 2}
    pad = lambda n, N: 2 * math.sqrt(0.6 * math.log(n) / N)  # noqa: E731  2 B sqrt(xi log n / N), B = 1
    # rounds 0, 1: N = 0 for an arm: infinite padding -> arms 0 then 1. gamma = 1/2:
    # round 2: N = (1/2, 1), X = (1/2, 0), n = 3/2: arm 0 has 1 + pad(1.5, .5) > arm 1's 0 + pad(1.5, 1).
    assert 1 + pad(1.5, 0.5) > pad(1.5, 1.0)
    # round 3: N = (1/4 + 1, 1/2), X = (1/4, 0), n = 7/4: arm 0's 0.2 + 1.037 < arm 1's 0 + 1.639.
    assert 0.25 / 1.25 + pad(1.75, 1.25) < pad(1.75, 0.5)
    algo = DiscountedUCB(gamma=0.5)
    np.testing.assert_array_equal(algo.play(rewards, info, np.random.default_rng(0)), [0, 1, 0, 1])
    assert algo.derived_["gamma"] == 0.5 and algo.derived_["tuning"] == "given"
    # without discount (gamma = 1) round 3 sees N = (2, 1), X = (1, 0), n = 3: arm 0 stays ahead.
    assert 0.5 + pad(3, 2) > pad(3, 1)
    np.testing.assert_array_equal(DiscountedUCB(gamma=1.0).play(rewards, info, np.random.default_rng(0)),
                                  [0, 1, 0, 0])


def test_sw_ucb_gm_first_rounds_by_hand():
    rewards = np.array([[1.0, 0.9], [0.8, 0.2], [0.0, 0.7], [0.5, 0.5]])
    info = {"reward_range": (0.0, 1.0), "d": 2}
    pad = lambda t, N: math.sqrt(0.6 * math.log(t) / N)  # noqa: E731  B sqrt(xi log min(t, tau) / N), B = 1
    # round 2 (t = 2 rounds played, tau = 2): arm 0: 1 + pad(2, 1) > arm 1: 0.2 + pad(2, 1).
    # round 3: the window holds rounds 1 (arm 1, 0.2) and 2 (arm 0, 0.0): arm 0: 0 + pad(2, 1) < 0.2 + pad(2, 1).
    np.testing.assert_array_equal(SlidingWindowUCBGM(window=2).play(rewards, info, np.random.default_rng(0)),
                                  [0, 1, 0, 1])
    # tau = 3 keeps round 0: arm 0: 0.5 + pad(3, 2) = 1.074 > arm 1: 0.2 + pad(3, 1) = 1.012.
    assert 0.5 + pad(3, 2) > 0.2 + pad(3, 1)
    np.testing.assert_array_equal(SlidingWindowUCBGM(window=3).play(rewards, info, np.random.default_rng(0)),
                                  [0, 1, 0, 0])


def test_discounted_ts_first_rounds_by_hand():
    """gamma = 1/2, arm 0 always pays 1 and arm 1 always 0 (no Bernoulli trial is drawn). The
    Beta parameters (S + 1, F + 1) of each round, written out, reproduce the kernel's choices
    from the same stream."""
    rewards = np.array([[1.0, 0.0]] * 5)
    info = {"reward_range": (0.0, 1.0), "d": 2}
    actions = DiscountedThompson(gamma=0.5).play(rewards, info, np.random.default_rng(0))
    np.testing.assert_array_equal(actions, [1, 0, 0, 0, 1])
    params = [[(1, 1), (1, 1)],          # round 0: nothing seen; arm 1 plays and fails: F = (0, 1)
              [(1, 1), (1, 2)],          # round 1: arm 0 plays and succeeds: S = (1, 0), F = (0, 1/2)
              [(2, 1), (1, 1.5)],        # round 2: arm 0 succeeds: S = (1.5, 0), F = (0, 1/4)
              [(2.5, 1), (1, 1.25)],     # round 3: arm 0 succeeds: S = (1.75, 0), F = (0, 1/8)
              [(2.75, 1), (1, 1.125)]]   # round 4
    g = np.random.default_rng(0)
    for t, p in enumerate(params):
        theta = [g.beta(a, b) for a, b in p]
        assert int(np.argmax(theta)) == actions[t]


def test_sw_ts_counts_only_the_window():
    """tau = 1: only the previous round is in the window, so after a failure of arm a the
    next draw is Beta(1, 2) for a and Beta(1, 1) for the other arm."""
    rewards = np.array([[0.0, 0.0]] * 4)
    info = {"reward_range": (0.0, 1.0), "d": 2}
    actions = SlidingWindowThompson(window=1).play(rewards, info, np.random.default_rng(5))
    g = np.random.default_rng(5)
    prev = None
    for t in range(4):
        theta = [g.beta(1.0, 2.0 if a == prev else 1.0) for a in range(2)]
        assert int(np.argmax(theta)) == actions[t]
        prev = actions[t]


# ----------------------------------------------------------------------------- tuning

def test_tuning_formulas_by_hand():
    info = {"Upsilon_T": 4, "reward_range": (0.0, 1.0), "d": 5}
    # G&M: gamma = 1 - (1/4) sqrt(4 / 10^4) = 1 - 0.25 * 0.02 = 0.995
    assert DiscountedUCB().resolve(10_000, info)["gamma"] == pytest.approx(0.995, abs=1e-15)
    assert discount_gm(10_000, 4) == pytest.approx(0.995, abs=1e-15)
    # tau = 2 sqrt(10^4 ln 10^4 / 4) = 2 sqrt(23025.85) = 303.49 -> 303
    assert SlidingWindowUCBGM().resolve(10_000, info)["window"] == 303
    assert SlidingWindowThompson().resolve(10_000, info)["window"] == 303
    assert SlidingWindowUCBGM(B=0.5).resolve(10_000, info)["window"] == 151  # 2 B with B = 1/2
    # Fiandri et al.'s experiments: 4 sqrt(T ln T) = 4 * 303.49 = 1213.9 -> 1213
    assert SlidingWindowThompson(window_constant=4.0, Upsilon_T=1).resolve(10_000, info)["window"] == 1213
    # discounted TS: 0.75 unless gm
    assert DiscountedThompson().resolve(10_000, info)["gamma"] == 0.75
    assert DiscountedThompson(gamma="gm").resolve(10_000, info)["gamma"] == pytest.approx(0.995, abs=1e-15)
    # windows are whole rounds in [1, T]
    assert window_gm(100, 1, 2.0) == 42  # 2 sqrt(100 ln 100) = 42.9
    assert window_gm(100, 99, 0.1) == 1 and window_gm(10, 1, 100.0) == 10 and window_gm(1, 1, 2.0) == 1


def test_upsilon_overrides_and_given_constants():
    info = {"Upsilon_T": 4, "reward_range": (0.0, 1.0), "d": 5}
    assert DiscountedUCB(Upsilon_T=16).resolve(10_000, info)["gamma"] == pytest.approx(0.99)
    assert DiscountedUCB(gamma=0.9).resolve(10_000, {"reward_range": (0.0, 1.0)})["gamma"] == 0.9
    assert SlidingWindowUCBGM(window=77).resolve(10_000, {"reward_range": (0.0, 1.0)})["window"] == 77
    with pytest.raises(ConfigError, match="Upsilon_T"):
        DiscountedUCB().resolve(100, {"reward_range": (0.0, 1.0), "d": 2})


def test_needs_declares_upsilon_only_when_tuned_with_it():
    assert set(DiscountedUCB().needs()) == {"Upsilon_T", "reward_range"}
    assert DiscountedUCB(gamma=0.9).needs() == ("reward_range",)
    assert DiscountedUCB(Upsilon_T=3).needs() == ("reward_range",)
    assert DiscountedUCB(reward_range=[0, 1]).needs() == ("Upsilon_T",)
    assert set(SlidingWindowUCBGM().needs()) == set(SlidingWindowThompson().needs()) == {"Upsilon_T", "reward_range"}
    assert SlidingWindowThompson(window=10, reward_range=[0, 1]).needs() == ()
    assert DiscountedThompson().needs() == ("reward_range",)
    assert set(DiscountedThompson(gamma="gm").needs()) == {"Upsilon_T", "reward_range"}


@pytest.mark.parametrize("algo, key", [
    (DiscountedUCB(gamma=1.5), "algo.gamma"), (DiscountedUCB(gamma=0.0), "algo.gamma"),
    (DiscountedUCB(gamma="gm"), "algo.gamma"), (DiscountedUCB(xi=0.0), "algo.xi"),
    (DiscountedUCB(B=-1.0), "algo.B"), (DiscountedUCB(Upsilon_T=-1), "algo.Upsilon_T"),
    (DiscountedUCB(reward_range=[1.0, 0.0]), "algo.reward_range"),
    (SlidingWindowUCBGM(window=0), "algo.window"), (SlidingWindowUCBGM(window="opt"), "algo.window"),
    (DiscountedThompson(gamma=None), "algo.gamma"), (DiscountedThompson(gamma="fast"), "algo.gamma"),
    (DiscountedThompson(alpha0=0.0), "algo.alpha0"), (SlidingWindowThompson(beta0=-1.0), "algo.beta0"),
    (SlidingWindowThompson(binarize="yes"), "algo.binarize"),
    (SlidingWindowThompson(window_constant=0.0), "algo.window_constant"),
])
def test_bad_parameters_are_named(algo, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        algo.check_params()


# ----------------------------------------------------------------------------- Upsilon_T = 0

def test_stationary_limit_no_discount_and_the_whole_history():
    _, rewards, info = bernoulli_table(5, T=1500)
    info = dict(info, Upsilon_T=0)
    rng = lambda: np.random.default_rng(1)  # noqa: E731
    d_ucb, sw_ucb = DiscountedUCB(), SlidingWindowUCBGM()
    a_d = d_ucb.play(rewards, info, rng())
    a_w = sw_ucb.play(rewards, info, rng())
    assert d_ucb.derived_["gamma"] == 1.0 and sw_ucb.derived_["window"] == 1500
    # both become UCB on the whole history: 2 sqrt(xi log t / N) = sqrt(4 xi log t / N)
    np.testing.assert_array_equal(a_d, SlidingWindowUCBGM(xi=2.4).play(rewards, info, rng()))
    np.testing.assert_array_equal(a_w, SlidingWindowUCBGM(window=10 ** 6).play(rewards, info, rng()))
    # and the two Thompson variants become Beta-Bernoulli Thompson sampling, draw for draw
    np.testing.assert_array_equal(DiscountedThompson(gamma="gm").play(rewards, info, rng()),
                                  SlidingWindowThompson().play(rewards, info, rng()))
    frac, _ = fractional_table(5)
    np.testing.assert_array_equal(DiscountedThompson(gamma="gm").play(frac, info, rng()),
                                  SlidingWindowThompson().play(frac, info, rng()))


def _independent_ucb(rewards, xi):
    """UCB with G&M's padding 2 sqrt(xi log t / N) on the whole history, written out."""
    Tn, K = rewards.shape
    N, S, out = np.zeros(K), np.zeros(K), []
    for t in range(Tn):
        idx = [S[i] / N[i] + 2 * math.sqrt(xi * math.log(t) / N[i]) if N[i] else math.inf for i in range(K)]
        a = int(np.flatnonzero(np.asarray(idx) >= max(idx) - 1e-12 * max(1.0, abs(max(idx))))[0]) \
            if max(idx) < math.inf else idx.index(math.inf)
        out.append(a)
        N[a] += 1
        S[a] += rewards[t, a]
    return np.array(out)


def test_d_ucb_without_changes_is_ucb():
    _, rewards, info = bernoulli_table(6, T=800)
    got = DiscountedUCB(Upsilon_T=0).play(rewards, info, np.random.default_rng(0))
    np.testing.assert_array_equal(got, _independent_ucb(rewards, 0.6))


# ----------------------------------------------------------------------------- forgetting helps

@pytest.mark.parametrize("make_tuned, make_frozen", [
    (lambda: DiscountedUCB(), lambda: DiscountedUCB(gamma=1.0)),
    (lambda: SlidingWindowUCBGM(), lambda: SlidingWindowUCBGM(window=T)),
    (lambda: DiscountedThompson(), lambda: DiscountedThompson(gamma=1.0)),
    (lambda: SlidingWindowThompson(), lambda: SlidingWindowThompson(window=T)),
])
def test_forgetting_follows_a_change_of_the_best_arm(make_tuned, make_frozen):
    """Arm 0 is best (0.9) for 1500 rounds, then arm 2 (0.7; arm 0 drops to 0.5, so its mean
    over the whole history stays above 0.7 until the end): with its discount / window each
    algorithm plays the new best arm far more often after the change than without
    (gamma = 1, tau = T)."""
    env = PiecewiseBernoulli(means=[[0.9, 0.2, 0.5], [0.5, 0.2, 0.7]], change_points=[0.5])
    inst = env.instance(T, np.random.default_rng(0))
    rewards = env.rewards(inst, np.random.default_rng(1))
    after = slice(T // 2, T)
    tuned = make_tuned().play(rewards, inst.info, np.random.default_rng(2))
    frozen = make_frozen().play(rewards, inst.info, np.random.default_rng(2))
    assert (tuned[after] == 2).sum() > (frozen[after] == 2).sum() + 150
