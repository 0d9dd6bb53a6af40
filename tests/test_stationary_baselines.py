"""UCB1, kl-UCB, Thompson sampling and the oracle restart: each compiled kernel against
its literal transcription (round by round), hand-computed steps, a bracketing root
finder, and the exactness of the pruned kl-UCB argmax."""

import math

import numpy as np
import pytest
from conftest import argmax_ties

from bandits.algorithms import KLUCB, UCB1, OracleRestartUCB, ThompsonSampling, play_policy
from bandits.algorithms.indices import klucb_argmax, klucb_index
from bandits.errors import ConfigError
from bandits.numerics import kl_bernoulli
from bandits.reference import ReferenceKLUCB, ReferenceOracleRestartUCB, ReferenceThompson, ReferenceUCB1

INFO = {"d": 4, "reward_range": (0.0, 1.0)}
CHANGES = [300, 700, 1100]


def piecewise_table(seed, T=1500, K=4, kind="bernoulli"):
    """Rewards of K arms whose means change at CHANGES: Bernoulli draws, or values in
    [0, 1] that are not 0/1 (means plus noise, clipped, rounded to avoid exact 0 and 1)."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.05, 0.95, (len(CHANGES) + 1, K))
    mu = means[np.searchsorted(CHANGES, np.arange(T), side="right")]
    if kind == "bernoulli":
        return (rng.random((T, K)) < mu).astype(float)
    return np.clip(mu + rng.normal(0.0, 0.25, (T, K)), 0.001, 0.999)


PAIRS = {
    "ucb1": (lambda: UCB1(), lambda: ReferenceUCB1()),
    "ucb1_c1": (lambda: UCB1(c=1.0), lambda: ReferenceUCB1(c=1.0)),
    "kl_ucb": (lambda: KLUCB(), lambda: ReferenceKLUCB()),
    "kl_ucb_c3": (lambda: KLUCB(c=3.0), lambda: ReferenceKLUCB(c=3.0)),
    "thompson": (lambda: ThompsonSampling(), lambda: ReferenceThompson()),
    "oracle_ucb1": (lambda: OracleRestartUCB(), lambda: ReferenceOracleRestartUCB()),
    "oracle_kl_ucb": (lambda: OracleRestartUCB(index="kl_ucb"), lambda: ReferenceOracleRestartUCB(index="kl_ucb")),
}


@pytest.mark.parametrize("kind", ["bernoulli", "continuous"])
@pytest.mark.parametrize("name", list(PAIRS))
def test_kernel_matches_literal_transcription(name, kind):
    fast_algo, slow_algo = PAIRS[name]
    info = dict(INFO, oracle={"change_points": CHANGES})
    for seed in range(3):
        rewards = piecewise_table(seed, kind=kind)
        rng_fast, rng_slow = np.random.default_rng(100 + seed), np.random.default_rng(100 + seed)
        fast = fast_algo().play(rewards, info, rng_fast)
        slow = play_policy(slow_algo(), rewards, info, rng_slow)
        np.testing.assert_array_equal(fast, slow)
        # the same draws were consumed (Thompson: K Betas per round, one uniform per non-0/1 reward)
        assert rng_fast.random() == rng_slow.random()


@pytest.mark.parametrize("name", list(PAIRS))
def test_kernel_matches_transcription_with_a_reward_range(name):
    """Rewards in [2, 5] told through algo.reward_range: both map them to [0, 1] the same way."""
    fast_algo, slow_algo = PAIRS[name]
    rewards = 2.0 + 3.0 * piecewise_table(7, T=800, kind="continuous")
    info = {"d": 4, "oracle": {"change_points": CHANGES}}
    fast, slow = fast_algo(), slow_algo()
    fast.reward_range = slow.reward_range = [2.0, 5.0]
    np.testing.assert_array_equal(fast.play(rewards, info, np.random.default_rng(1)),
                                  play_policy(slow, rewards, info, np.random.default_rng(1)))


def test_ucb1_first_rounds_by_hand():
    rewards = np.array([[1.0, 0.0, 0.5],
                        [0.0, 0.0, 0.5],
                        [0.0, 0.0, 0.5],
                        [0.0, 0.0, 0.5],   # round 3: arm 0 pays 0
                        [0.0, 0.0, 0.5],   # round 4: arm 2 pays 0.5
                        [0.0, 0.0, 0.5]])
    algo = UCB1()
    a = algo.play(rewards, INFO, np.random.default_rng(0))
    # rounds 0-2: each arm once, in order; arms 0, 1, 2 pay 1, 0, 0.5.
    # round 3 (n = 3 plays so far): x_bar + sqrt(2 ln 3 / 1) -> 1 + 1.482 beats 0.5 + 1.482 and 1.482: arm 0.
    # round 4 (n = 4): arm 0: 0.5 + sqrt(2 ln 4 / 2) = 1.677; arm 1: sqrt(2 ln 4) = 1.665;
    #                  arm 2: 0.5 + 1.665 = 2.165 -> arm 2.
    # round 5 (n = 5): arm 0: 0.5 + sqrt(ln 5) = 1.769; arm 1: sqrt(2 ln 5) = 1.794;
    #                  arm 2: 0.5 + sqrt(ln 5) = 1.769 -> arm 1.
    np.testing.assert_array_equal(a, [0, 1, 2, 0, 2, 1])
    assert 0.5 + math.sqrt(math.log(5)) < math.sqrt(2 * math.log(5))
    assert algo.derived_["c"] == 2.0 and algo.derived_["restarts"] == 0
    # c = 0.5 (index mean + sqrt(0.5 ln n / n_j)): round 5 compares 0.5 + sqrt(0.25 ln 5) = 1.134 (arms 0, 2)
    # with sqrt(0.5 ln 5) = 0.897 -> arm 0, the lowest of the tied arms 0 and 2.
    np.testing.assert_array_equal(UCB1(c=0.5).play(rewards, INFO, np.random.default_rng(0))[:6], [0, 1, 2, 0, 2, 0])


def test_ucb1_maps_rewards_with_the_reward_range():
    """Rewards in [0, 10] read as x / 10: the same choices as the table divided by 10."""
    rewards = piecewise_table(3, T=400)
    a = UCB1().play(10.0 * rewards, {"d": 4, "reward_range": (0.0, 10.0)}, np.random.default_rng(0))
    b = UCB1().play(rewards, INFO, np.random.default_rng(0))
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("p", [0.0, 1e-9, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0])
def test_klucb_index_against_a_bracketing_root_finder(p):
    from scipy.optimize import brentq

    for n in (1, 3, 40, 10_000):
        for level in (0.05, 1.0, math.log(1000), math.log(10 ** 6) + 3 * math.log(math.log(10 ** 6))):
            q = klucb_index(p * n, n, level)
            if n * kl_bernoulli(p, 1.0 - 1e-15) <= level:
                assert q == 1.0
                continue
            root = brentq(lambda x, n=n, level=level: n * kl_bernoulli(p, x) - level, max(p, 1e-15), 1.0 - 1e-15,
                          xtol=1e-15)
            assert q == pytest.approx(root, abs=1e-11)


def random_state(rng):
    """Arms' statistics as a kl-UCB round sees them: counts from 1 to 1e5 (some arms unseen),
    means anywhere (some exactly 0 or 1, some tied or nearly tied), a level per arm of a
    plausible round (all equal, as in kl-UCB, or differing, as after GLR's local restarts;
    sometimes <= 0, where the index is the mean)."""
    K = int(rng.integers(2, 9))
    counts = np.floor(10 ** rng.uniform(0, 5, K)) + 1
    means = rng.choice([0.0, 1.0, 0.5], K) if rng.random() < 0.2 else rng.uniform(0, 1, K)
    if rng.random() < 0.3:
        means[1] = means[0] + rng.choice([0.0, 1e-12, 1e-7, 1e-3])
    if rng.random() < 0.2:     # identical arms: an exact tie, the lowest wins
        j = int(rng.integers(1, K))
        counts[j], means[j] = counts[0], means[0]
    if rng.random() < 0.1:
        counts[rng.random(K) < 0.3] = 0
    means = np.clip(means, 0, 1)
    level = float(rng.uniform(0.05, 15.0))
    levels = np.full(K, level) if rng.random() < 0.5 else rng.uniform(0.05, 15.0, K)
    if rng.random() < 0.05:
        levels[:] = rng.choice([0.0, -0.3])
    return counts * means, counts, levels


def test_pruned_klucb_argmax_equals_the_unpruned_one_on_random_states():
    """The shared klucb_argmax returns argmax_lowest of all K exact indices, whatever arm is
    tried first and whatever its guesses hold (none, exact, stale, or wrong), and it does
    prune: most calls certify the first arm, and the others skip most Newton solves."""
    rng = np.random.default_rng(2024)
    certified = skipped = solved = 0
    for _ in range(4000):
        sums, counts, levels = random_state(rng)
        K = len(sums)
        exact = np.array([klucb_index(sums[a], counts[a], levels[a]) for a in range(K)])
        winner = int(np.flatnonzero(counts == 0)[0]) if (counts == 0).any() else argmax_ties(exact)
        first = winner if rng.random() < 0.7 else int(rng.integers(K))
        kind = rng.integers(4)
        guess = (np.full(K, np.nan) if kind == 0 else exact.copy() if kind == 1 else
                 exact + rng.choice([-1, 1], K) * 10 ** rng.uniform(-14, -2, K) if kind == 2 else rng.uniform(0, 1, K))
        index = np.full(K, 7.0)
        assert klucb_argmax(sums, counts, levels, first, guess, index) == winner, (sums, counts, levels, first)
        if (counts == 0).any():
            continue
        if (index == 7.0).all():
            certified += 1
        else:
            skipped += int(np.isinf(index).sum())
            solved += int(np.isfinite(index).sum())
    assert certified > 1000 and skipped > solved / 4  # the certificate and the bounds do prune


def unpruned_klucb_actions(rewards, c):
    """kl-UCB with every index solved every round, and argmax_lowest."""
    T, K = rewards.shape
    sums, counts, out = np.zeros(K), np.zeros(K), np.empty(T, dtype=np.int64)
    for t in range(T):
        if t < K:
            arm = t
        else:
            level = math.log(t) + c * math.log(math.log(t))
            arm = argmax_ties([klucb_index(sums[a], counts[a], level) for a in range(K)])
        out[t] = arm
        counts[arm] += 1
        sums[arm] += rewards[t, arm]
    return out


@pytest.mark.parametrize("means", [[0.1, 0.5, 0.52, 0.9, 0.899], [0.3, 0.3, 0.3, 0.3, 0.3], [0.0, 1.0, 0.999, 0.5, 0.0],
                                   [0.05, 0.06, 0.04, 0.05, 0.055]])
def test_pruned_klucb_trajectory_equals_the_unpruned_one(means):
    rng = np.random.default_rng(5)
    rewards = (rng.random((20_000, len(means))) < np.asarray(means)).astype(float)
    for c in (0.0, 3.0):
        np.testing.assert_array_equal(KLUCB(c=c).play(rewards, INFO, np.random.default_rng(0)),
                                      unpruned_klucb_actions(rewards, c))


def test_klucb_level_below_zero_gives_the_mean():
    """With c = 3 and K = 2, round t = 2 has log 2 + 3 log log 2 < 0: the index is the mean."""
    rewards = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    assert math.log(2) + 3 * math.log(math.log(2)) < 0
    np.testing.assert_array_equal(KLUCB(c=3.0).play(rewards, INFO, np.random.default_rng(0)), [0, 1, 1])


def test_klucb_and_thompson_clip_rewards_outside_the_range_and_ucb1_does_not():
    rewards = piecewise_table(4, T=600, kind="continuous")
    noisy = rewards + np.where(rewards > 0.5, 0.4, -0.4)   # leaves [0, 1] on most rounds
    for algo in (KLUCB(), ThompsonSampling()):
        np.testing.assert_array_equal(algo.play(noisy, INFO, np.random.default_rng(0)),
                                      algo.play(np.clip(noisy, 0, 1), INFO, np.random.default_rng(0)))
    assert not np.array_equal(UCB1().play(noisy, INFO, np.random.default_rng(0)),
                              UCB1().play(np.clip(noisy, 0, 1), INFO, np.random.default_rng(0)))


def test_thompson_best_arm_share_grows():
    rng = np.random.default_rng(11)
    means = np.array([0.3, 0.5, 0.6, 0.45])
    rewards = (rng.random((6000, 4)) < means).astype(float)
    shares = []
    for seed in range(5):
        a = ThompsonSampling().play(rewards, INFO, np.random.default_rng(seed))
        shares.append([np.mean(a[s:s + 1000] == 2) for s in (0, 2500, 5000)])
    shares = np.mean(shares, axis=0)
    assert shares[0] < shares[1] < shares[2] and shares[2] > 0.8, shares


def test_thompson_bernoulli_rewards_draw_no_uniform():
    """On 0/1 rewards the stream holds only the K Betas per round: rewriting the rewards
    it would binarise as 0/1 changes nothing, while a reward inside (0, 1) costs a draw."""
    rewards = piecewise_table(0, T=300)
    rng = np.random.default_rng(3)
    a = ThompsonSampling().play(rewards, INFO, rng)
    replay = np.random.default_rng(3)
    S, F = np.zeros(4), np.zeros(4)
    for t in range(300):
        theta = [replay.beta(S[i] + 1, F[i] + 1) for i in range(4)]
        assert argmax_ties(theta) == a[t]
        S[a[t]] += rewards[t, a[t]]
        F[a[t]] += 1 - rewards[t, a[t]]
    assert rng.random() == replay.random()


def test_oracle_restarts_exactly_at_the_change_points():
    """After each change point the statistics start again: every arm once in order, and the
    piece's actions are those of UCB1 (kl-UCB) run from scratch on that piece alone."""
    rewards = piecewise_table(1, kind="bernoulli")
    T, K = rewards.shape
    info = dict(INFO, oracle={"change_points": CHANGES})
    for index, base in (("ucb1", UCB1()), ("kl_ucb", KLUCB())):
        algo = OracleRestartUCB(index=index)
        a = algo.play(rewards, info, np.random.default_rng(0))
        assert algo.events_ == {"restarts": CHANGES} and algo.derived_["restarts"] == len(CHANGES)
        bounds = [0, *CHANGES, T]
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            np.testing.assert_array_equal(a[lo:lo + K], np.arange(K))
            np.testing.assert_array_equal(a[lo:hi], base.play(rewards[lo:hi], INFO, np.random.default_rng(0)))
    # no change points: the stationary algorithm
    np.testing.assert_array_equal(OracleRestartUCB().play(rewards, dict(INFO, oracle={"change_points": []}),
                                                          np.random.default_rng(0)),
                                  UCB1().play(rewards, INFO, np.random.default_rng(0)))


def test_oracle_is_told_change_points_through_its_channel_only():
    from bandits.environments import Instance, PiecewiseBernoulli, Sinusoid
    from bandits.simulation import learner_info, run_actions, stream

    env = PiecewiseBernoulli(K=3, n_changes=2)
    env.check_params(500)
    inst = env.instance(500, stream(0, 0, 500))
    oracle = OracleRestartUCB()
    assert learner_info(oracle, inst)["oracle"] == {"change_points": inst.evaluation["change_points"]}
    for learner in (UCB1(), KLUCB(), ThompsonSampling()):
        assert "oracle" not in learner_info(learner, inst)
    run_actions(oracle, inst, env.rewards(inst, stream(0, 1, 500, 0)), stream(0, 2))
    assert oracle.events_["restarts"] == inst.evaluation["change_points"]
    # a problem without change points (the sinusoid's best-arm switches are its change points)
    sinusoid = Sinusoid(noise="bernoulli").instance(100)
    assert learner_info(oracle, sinusoid)["oracle"]["change_points"] == sinusoid.evaluation["change_points"]
    without = Instance(means=sinusoid.means, info=sinusoid.info, evaluation={"synthetic": True})
    with pytest.raises(ConfigError, match="change_points"):
        learner_info(oracle, without)
    with pytest.raises(ConfigError, match="oracle reference"):
        oracle.play(np.zeros((10, 2)), INFO, np.random.default_rng(0))


@pytest.mark.parametrize("algo,message", [
    (UCB1(c=-1.0), "algo.c"),
    (KLUCB(c="x"), "algo.c"),
    (UCB1(c=None), "algo.c"),
    (OracleRestartUCB(index="ucb2"), "algo.index"),
    (OracleRestartUCB(c=-0.5), "algo.c"),
    (ThompsonSampling(reward_range=[1.0, 0.0]), "algo.reward_range"),
    (UCB1(reward_range=[0.0]), "algo.reward_range"),
])
def test_bad_parameters_are_refused(algo, message):
    with pytest.raises(ConfigError, match=message):
        algo.check_params()


def test_needs_reward_range_unless_set():
    OracleRestartUCB(c=None).check_params()   # null = the index's paper value
    assert UCB1().needs() == ("reward_range",) and KLUCB(reward_range=[0, 1]).needs() == ()
    assert ThompsonSampling().needs() == ("reward_range",) and OracleRestartUCB().needs() == ("reward_range",)
    assert OracleRestartUCB().oracle_knowledge == ("change_points",)
    assert not hasattr(UCB1(), "oracle_knowledge")
