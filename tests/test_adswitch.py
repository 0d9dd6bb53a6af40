"""AdSwitch (Auer, Gajane & Ortner 2019, Algorithm 1): the kernel agrees round by round with the
literal transcription under both readings of the tests (every s; Remark 3's lengths), the
transcription's split of condition (3) agrees with the triple loop as line 16 writes it, the
lengths and the first rounds by hand, the parameter checks, and what the restarts buy."""

import math

import numpy as np
import pytest

from bandits.algorithms import AdSwitch, play
from bandits.algorithms.adswitch import remark3_lengths
from bandits.environments.piecewise_bernoulli import PiecewiseBernoulli
from bandits.errors import ConfigError
from bandits.reference import ReferenceAdSwitch

INFO = {"reward_range": (0.0, 1.0), "Upsilon_T": 0, "d": 1, "K": 3}


def table(seed, T, K=3):
    env = PiecewiseBernoulli(K=K, n_changes=2, min_gap=0.3)
    inst = env.instance(T, np.random.default_rng(seed))
    return dict(inst.info), env.rewards(inst, np.random.default_rng(100 + seed))


@pytest.mark.parametrize("tests,C1,T", [("literal", 1.0, 250), ("literal", 2.0, 250), ("remark3", 1.0, 1500),
                                        ("remark3", 32.0, 1000)])
def test_kernel_agrees_with_the_literal_transcription(tests, C1, T):
    """Both seeds together exercise evictions, bad arms played for their sampling obligations
    (after an eviction, in the same episode) and, with C1 = 1, restarts: the check is not vacuous."""
    seen = {"evictions": 0, "restarts": 0, "owed": 0}
    for seed in (0, 1):
        info, rewards = table(seed, T)
        algo = AdSwitch(C1=C1, tests=tests)
        got = algo.play(rewards, info, np.random.default_rng(seed))
        ref = ReferenceAdSwitch(C1=C1, tests=tests)
        want = play(ref, rewards, info, np.random.default_rng(seed))
        np.testing.assert_array_equal(got, want)
        assert algo.events_["restarts"] == ref.restarts_
        assert algo.events_["evictions"] == ref.evictions_
        seen["evictions"] += len(ref.evictions_)
        seen["restarts"] += len(ref.restarts_)
        for r, arm in ref.evictions_:               # played again in its episode: an obligation
            end = min([s for s in ref.restarts_ if s > r], default=T)
            seen["owed"] += int((got[r + 1:end] == arm).any())
    if C1 < 32:
        assert seen["evictions"] > 0 and seen["owed"] > 0
    if C1 == 1.0:
        assert seen["restarts"] > 0


def test_the_split_of_condition_3_is_the_triple_loop():
    """An arm that pays 1 for 80 rounds, then 0: condition (3) fires; the transcription's max/min
    split and the loop over every (s1, s2, s) of line 16 restart at the same rounds and play the
    same arms (the kernel too)."""
    T = 200
    rewards = np.full((T, 2), 0.5)
    rewards[:80, 0], rewards[80:, 0] = 1.0, 0.0
    info = {"reward_range": (0.0, 1.0), "K": 2, "d": 1, "Upsilon_T": 1}
    split, brute = ReferenceAdSwitch(C1=1.0, tests="literal"), ReferenceAdSwitch(C1=1.0, tests="literal", brute=True)
    a = play(split, rewards, info, np.random.default_rng(0))
    b = play(brute, rewards, info, np.random.default_rng(0))
    np.testing.assert_array_equal(a, b)
    assert split.restarts_ == brute.restarts_ and len(split.restarts_) >= 1
    np.testing.assert_array_equal(AdSwitch(C1=1.0, tests="literal").play(rewards, info, np.random.default_rng(0)), a)


def test_remark3_lengths_by_hand():
    """ceil(2^k ln T) for k = 3, 4, ... up to T samples: at T = 1e5, 8 ln T = 92.1 -> 93, and the
    obligations' lengths ceil(2^(2i+1) ln T) are among them (k = 2i + 1)."""
    lengths = remark3_lengths(100_000).tolist()
    assert lengths[:3] == [math.ceil(8 * math.log(1e5)), math.ceil(16 * math.log(1e5)), math.ceil(32 * math.log(1e5))]
    assert lengths[0] == 93 and lengths[-1] <= 100_000 < math.ceil(2 ** (3 + len(lengths)) * math.log(1e5))
    assert all(math.ceil(2 ** (2 * i + 1) * math.log(1e5)) in lengths for i in range(1, 6))


def test_first_rounds_by_hand():
    """All arms good, none played: line 13 plays the least recently played, lowest index first,
    so the first rounds go round robin."""
    rewards = np.tile([0.2, 0.9, 0.5], (9, 1))
    got = AdSwitch().play(rewards, INFO, np.random.default_rng(0))
    assert got.tolist() == [0, 1, 2] * 3


def test_needs_and_checks():
    assert AdSwitch().needs() == ("reward_range",)
    assert AdSwitch(reward_range=[0, 1]).needs() == ()
    for bad, key in ((AdSwitch(C1=0.0), "algo.C1"), (AdSwitch(C1="big"), "algo.C1"),
                     (AdSwitch(tests="every"), "algo.tests"), (AdSwitch(reward_range=[1, 0]), "algo.reward_range")):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            bad.check_params()


def test_a_swap_starts_a_new_episode_that_evicts_the_old_best_arm():
    """Two arms swap at T/2 (gap 0.6): AdSwitch (Remark 3, C1 = 32) starts a new episode within
    a few thousand rounds of the swap, and in it evicts the arm that was best (arm 0), never
    the new best (arm 1); before the swap it evicts arm 1."""
    T = 20_000
    means = np.zeros((T, 2))
    means[: T // 2] = [0.8, 0.2]
    means[T // 2:] = [0.2, 0.8]
    rewards = (np.random.default_rng(0).random((T, 2)) < means).astype(float)
    info = {"reward_range": (0.0, 1.0), "Upsilon_T": 1, "d": 1, "K": 2}
    algo = AdSwitch()
    algo.play(rewards, info, np.random.default_rng(1))
    restart = [r for r in algo.events_["restarts"] if T // 2 < r < T // 2 + 3000]
    assert len(restart) == 1
    before = [arm for r, arm in algo.events_["evictions"] if r < restart[0]]
    after = [arm for r, arm in algo.events_["evictions"] if r >= restart[0]]
    assert before == [1] and after == [0]
