"""CUSUM-UCB, PHT-UCB (bandits/algorithms/change_detection.py) and M-UCB (bandits/algorithms/m_ucb.py),
with UCB1 and kl-UCB: the
kernels against the literal transcriptions, the detectors and the tuning (both gamma rules)
by hand, and detection on seeded instances at the papers' thresholds."""

import json
import math

import numpy as np
import pytest

from bandits.algorithms import CUSUMUCB, KLUCB, PHTUCB, MonitoredUCB, play_policy
from bandits.algorithms.change_detection import cusum_ucb_kernel
from bandits.algorithms.indices import UCB1_INDEX, IndexRule
from bandits.algorithms.m_ucb import half_sums, m_ucb_kernel, new_arm_windows, observe_half_sums
from bandits.environments import PiecewiseBernoulli, Sinusoid
from bandits.errors import ConfigError
from bandits.reference import ReferenceCUSUMUCB, ReferenceMUCB, ReferencePHTUCB
from bandits.simulation import check_needs, stream

MEANS = [[0.8, 0.5, 0.2], [0.2, 0.5, 0.8], [0.2, 0.9, 0.4], [0.7, 0.1, 0.4]]


def piecewise(T, means=MEANS, seed=1):
    env = PiecewiseBernoulli(means=means)
    env.check_params(T)
    inst = env.instance(T, stream(seed, 0, T))
    return inst, env.rewards(inst, stream(seed, 1, T, 0))


def tables(seed=1):
    """Bernoulli rewards with three change points, and rewards in [0, 1] that are not 0/1."""
    inst, bern = piecewise(2400, seed=seed)
    noisy = np.clip(inst.means + np.random.default_rng(5 + seed).uniform(-0.35, 0.35, inst.means.shape), 0.0, 1.0)
    return inst.info, {"bernoulli": bern, "continuous": noisy}


UCB1_RULE = IndexRule(UCB1_INDEX, 2.0, 0.0)   # UCB1's sqrt(2 log u / n)
# the kl-UCB variants (CUSUM-klUCB, M-klUCB) with each exploration function f
KL = [{"index": "kl_ucb"}, {"index": "kl_ucb", "kl_exploration": "log_loglog"},
      {"index": "kl_ucb", "kl_exploration": "log_loglog", "kl_c": 1.0},
      {"index": "kl_ucb", "kl_exploration": "three_log"}]


def restarts_of(ref):
    return {"restarts": [t for t, _ in ref.alarms_], "arms": [a for _, a in ref.alarms_]}


# ----------------------------------------------------------------------------- round-exact agreement

# (the kernel's class, its literal transcription, the constants): CUSUM-UCB and PHT-UCB share the kernel
LOCAL_RESTARTS = [(CUSUMUCB, ReferenceCUSUMUCB, {}), (CUSUMUCB, ReferenceCUSUMUCB, {"M": 15}),
                  (CUSUMUCB, ReferenceCUSUMUCB, {"M": 30, "epsilon": 0.1, "h": 4.0, "alpha": 0.2, "xi": 1.0}),
                  (PHTUCB, ReferencePHTUCB, {}), (PHTUCB, ReferencePHTUCB, {"epsilon": 0.05}),
                  (PHTUCB, ReferencePHTUCB, {"epsilon": 0.02, "h": 3.0, "alpha": 0.2, "xi": 1.0}),
                  (PHTUCB, ReferencePHTUCB, {"index": "kl_ucb"})]


@pytest.mark.parametrize("table", ["bernoulli", "continuous"])
@pytest.mark.parametrize(("kernel", "literal", "params"), LOCAL_RESTARTS)
def test_cusum_and_pht_ucb_kernels_match_literal_transcriptions(table, kernel, literal, params):
    info, rewards = tables()
    detections = 0
    for seed in range(3):
        algo = kernel(**params)
        fast = algo.play(rewards[table], info, np.random.default_rng(seed))
        ref = literal(**params)
        slow = play_policy(ref, rewards[table], info, np.random.default_rng(seed))
        np.testing.assert_array_equal(fast, slow)
        assert algo.events_ == restarts_of(ref)
        detections += len(ref.alarms_)
    assert detections > 0  # the comparison covers local restarts


@pytest.mark.parametrize("table", ["bernoulli", "continuous"])
@pytest.mark.parametrize("kl", KL)
@pytest.mark.parametrize("params", [{"M": 15}, {"M": 30, "epsilon": 0.1, "h": 4.0, "alpha": 0.2}])
def test_cusum_klucb_kernel_matches_literal_transcription(table, kl, params):
    """CUSUM-klUCB: kl-UCB at f(n_t) on the samples since each arm's reset, several seeds
    and reward tables, local restarts included."""
    detections = 0
    for seed in range(3):
        info, rewards = tables(seed)
        algo = CUSUMUCB(**params, **kl)
        fast = algo.play(rewards[table], info, np.random.default_rng(seed))
        ref = ReferenceCUSUMUCB(**params, **kl)
        slow = play_policy(ref, rewards[table], info, np.random.default_rng(seed))
        np.testing.assert_array_equal(fast, slow)
        assert algo.events_ == restarts_of(ref)
        detections += len(ref.alarms_)
    assert detections > 0


@pytest.mark.parametrize("table", ["bernoulli", "continuous"])
@pytest.mark.parametrize("params", [{}, {"window": 200}, {"window": 120, "gamma": 0.05}, {"window": 60, "b": 6.0}])
def test_m_ucb_kernel_matches_literal_transcription(table, params):
    info, rewards = tables()
    algo = MonitoredUCB(**params)
    fast = algo.play(rewards[table], info, np.random.default_rng(0))
    ref = ReferenceMUCB(**params)
    slow = play_policy(ref, rewards[table], info, np.random.default_rng(0))
    np.testing.assert_array_equal(fast, slow)
    assert algo.events_ == restarts_of(ref)
    assert len(ref.alarms_) > 0 or "window" not in params  # the tuned w (1254) exceeds these pieces (600)


@pytest.mark.parametrize("table", ["bernoulli", "continuous"])
@pytest.mark.parametrize("kl", KL)
@pytest.mark.parametrize("params", [{"window": 200}, {"window": 120, "gamma": 0.05},
                                    {"window": 60, "b": 6.0, "gamma_rule": "theorem"}])
def test_m_klucb_kernel_matches_literal_transcription(table, kl, params):
    """M-klUCB: kl-UCB at f(t - tau) on the samples since the last global restart, on three
    reward tables, restarts included."""
    detections = 0
    for seed in range(3):
        info, rewards = tables(seed)
        algo = MonitoredUCB(**params, **kl)
        fast = algo.play(rewards[table], info, np.random.default_rng(seed))
        ref = ReferenceMUCB(**params, **kl)
        slow = play_policy(ref, rewards[table], info, np.random.default_rng(seed))
        np.testing.assert_array_equal(fast, slow)
        assert algo.events_ == restarts_of(ref)
        detections += len(ref.alarms_)
    assert detections > 0


def test_cusum_klucb_without_detection_is_kl_ucb():
    """No detection and no forced exploration: CUSUM-klUCB's u = n_t is the number of rounds
    played, kl-UCB's t (Garivier & Cappé, Alg. 1), so f = log is kl-UCB with c = 0 and
    log_loglog with kl_c = 3 is kl-UCB with c = 3, round for round."""
    info, rewards = tables()
    for table in rewards.values():
        for kl, c in (({}, 0.0), ({"kl_exploration": "log_loglog", "kl_c": 3.0}, 3.0)):
            cusum = CUSUMUCB(h=math.inf, alpha=0.0, epsilon=0.1, index="kl_ucb", **kl)
            np.testing.assert_array_equal(cusum.play(table, info, np.random.default_rng(0)),
                                          KLUCB(c=c).play(table, info, np.random.default_rng(0)))


def test_rewards_are_rescaled_from_the_reward_range():
    """Rewards in [-1, 3] are read as (y + 1) / 4: the same trajectory as the [0, 1] table."""
    info, rewards = tables()
    wide = dict(info, reward_range=(-1.0, 3.0))
    y = rewards["bernoulli"] * 4.0 - 1.0
    for make in (lambda: CUSUMUCB(M=15), lambda: MonitoredUCB(window=40)):
        np.testing.assert_array_equal(make().play(y, wide, np.random.default_rng(2)),
                                      make().play(rewards["bernoulli"], info, np.random.default_rng(2)))
    np.testing.assert_array_equal(CUSUMUCB(M=15).play(y, wide, np.random.default_rng(2)),
                                  play_policy(ReferenceCUSUMUCB(M=15), y, wide, np.random.default_rng(2)))


# ----------------------------------------------------------------------------- the detectors by hand

def test_cusum_statistic_by_hand():
    """One arm, M = 2, eps = 0.1, h = 1 (Alg. 2): y = 0, 1 give u0 = 0.5; then each 1 adds
    s+ = 1 - 0.5 - 0.1 = 0.4 to g+ (g- stays 0): g+ = 0.4, 0.8, 1.2 > 1 at the 5th sample
    (round 4). The arm restarts: 1, 1 (rounds 5, 6) give u0 = 1; then each 0 adds
    s- = 1 - 0 - 0.1 = 0.9 to g-: 0.9 at round 7, then 1.8 > 1 at round 8."""
    y = np.array([0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0], dtype=float)[:, None]
    actions, rounds, arms, n = cusum_ucb_kernel(y, 0.0, 1.0, 0.0, 2, 0.1, 1.0, UCB1_RULE, np.random.default_rng(0))
    assert (actions == 0).all()
    assert rounds[:n].tolist() == [4, 8] and arms[:n].tolist() == [0, 0]
    # h = 1.3: g+ = 1.2 < 1.3 at round 4, 1.6 > 1.3 at round 5; then 1, 0 give u0 = 0.5 and the
    # three 0s g- = 0.4, 0.8, 1.2 < 1.3
    _, rounds, _, n = cusum_ucb_kernel(y, 0.0, 1.0, 0.0, 2, 0.1, 1.3, UCB1_RULE, np.random.default_rng(0))
    assert rounds[:n].tolist() == [5]
    # the alarm needs g > h: eps = 0.25 gives g+ = 0.25, 0.5, 0.75, 1.0 (exact), 1.25 -> round 6 for h = 1
    _, rounds, _, n = cusum_ucb_kernel(y[:7], 0.0, 1.0, 0.0, 2, 0.25, 1.0, UCB1_RULE, np.random.default_rng(0))
    assert rounds[:n].tolist() == [6]


def test_page_hinkley_statistic_by_hand():
    """One arm, eps = 0.1, h = 0.5, no M: y = 1, 1 keep y-hat = 1 (g = 0); y = 0 gives
    y-hat = 2/3, g- = 2/3 - 0 - 0.1 = 0.5667 > 0.5: an alarm at round 2, the arm restarts.
    Then 0, 0, 0, 1: y-hat = 0, 0, 0, then 1/4 and g+ = 1 - 0.25 - 0.1 = 0.65 > 0.5 at round 6."""
    y = np.array([1, 1, 0, 0, 0, 0, 1], dtype=float)[:, None]
    actions, rounds, arms, n = cusum_ucb_kernel(y, 0.0, 1.0, 0.0, 0, 0.1, 0.5, UCB1_RULE,
                                                np.random.default_rng(0), True)
    assert (actions == 0).all()
    assert rounds[:n].tolist() == [2, 6] and arms[:n].tolist() == [0, 0]
    # h = 0.6: g- = 0.5667 stays below at round 2; then y = 0, 0 give y-hat = 0.5, 0.4 and
    # g- = 0.5667 + 0.4 = 0.9667 > 0.6 at round 3
    _, rounds, _, n = cusum_ucb_kernel(y, 0.0, 1.0, 0.0, 0, 0.1, 0.6, UCB1_RULE, np.random.default_rng(0), True)
    assert rounds[:n][0] == 3
    # without the flag it is CUSUM, which waits for its first M samples
    _, rounds, _, n = cusum_ucb_kernel(y, 0.0, 1.0, 0.0, 100, 0.1, 0.5, UCB1_RULE, np.random.default_rng(0))
    assert n == 0  # CUSUM waits for M = 100 samples


def test_pht_ucb_records_its_detector_and_shares_cusum_ucb_tuning():
    info, rewards = tables()
    pht, cusum = PHTUCB(), CUSUMUCB()
    pht.play(rewards["bernoulli"], info, np.random.default_rng(0))
    cusum.play(rewards["bernoulli"], info, np.random.default_rng(0))
    assert pht.derived_["detector"] == "pht" and "M" not in pht.derived_
    for key in ("h", "alpha", "epsilon"):
        assert pht.derived_[key] == cusum.derived_[key]


def test_m_ucb_detector_on_a_handmade_window():
    """Alg. 1 with w = 4, b = 1.5: the window 0, 0, 1, 1 has halves 0 and 2, |2 - 0| > 1.5."""
    y = np.array([0, 0, 1, 1], dtype=float)[:, None]
    _, rounds, _, n = m_ucb_kernel(y, 0.0, 1.0, 0, 4, 1.5, UCB1_RULE)
    assert rounds[:n].tolist() == [3]
    for seq in ([0, 1, 0, 1], [1, 1, 1, 0], [0, 0, 1, 1]):       # |1 - 1|, |1 - 2|, |2 - 0| = 2 not > 2
        _, _, _, n = m_ucb_kernel(np.array(seq, dtype=float)[:, None], 0.0, 1.0, 0, 4, 2.0, UCB1_RULE)
        assert n == 0
    # the test needs w samples since the restart: after the detection at round 3 nothing fires until round 7
    y = np.array([0, 0, 1, 1, 1, 1, 0, 0, 0], dtype=float)[:, None]
    _, rounds, _, n = m_ucb_kernel(y, 0.0, 1.0, 0, 4, 1.5, UCB1_RULE)
    assert rounds[:n].tolist() == [3, 7]


@pytest.mark.parametrize("w", [2, 6, 10])
def test_window_half_sums_follow_the_last_w_samples(w):
    rows, states = new_arm_windows(1, w)
    halves = np.zeros(2)
    xs = np.random.default_rng(w).random(70)
    for i, x in enumerate(xs):
        d_old, d_new, wrapped = observe_half_sums(rows[0], states[0], x)
        halves = np.array(half_sums(rows[0])) if wrapped else halves + [d_old, d_new]
        assert wrapped == ((i + 1) % w == 0)
        if i + 1 >= w:
            last = xs[i + 1 - w:i + 1]
            assert halves == pytest.approx([last[:w // 2].sum(), last[w // 2:].sum()], abs=1e-12)


# ----------------------------------------------------------------------------- tuning

INFO = {"d": 5, "Upsilon_T": 4, "min_change": 0.5, "reward_range": (0.0, 1.0)}


def test_cusum_tuning_by_hand():
    p = CUSUMUCB().resolve(10_000, INFO)
    # h = log(10000 / 4) = log 2500 = 7.8240; alpha = sqrt(7.8240 / 2500) = 0.055943; eps = 0.5 / 2
    assert p["h"] == pytest.approx(7.8240, abs=1e-4)
    assert p["alpha"] == pytest.approx(0.055943, abs=1e-6)
    assert p["epsilon"] == 0.25 and p["M"] == 100 and p["xi"] == 2.0
    told = CUSUMUCB(epsilon=0.05, h=3.0, alpha=0.1, Upsilon_T=9, min_change=0.2).resolve(10_000, INFO)
    assert (told["epsilon"], told["h"], told["alpha"]) == (0.05, 3.0, 0.1)


def test_m_ucb_tuning_by_hand():
    p = MonitoredUCB(gamma_rule="theorem").resolve(10_000, INFO)
    # log(2 K T^2) = log(1e9) = 20.7233, log(2T) = 9.9035; (4.5523 + 3.1470)^2 = 59.278;
    # w = 4 / 0.25 * 59.278 = 948.45 -> 949 -> even 950
    assert p["window"] == 950
    # b = sqrt(475 * 20.7233) = 99.215
    assert p["b"] == pytest.approx(99.215, abs=1e-3)
    # gamma = sqrt(4 * 5 * min(475, ceil(198.43) + 3 sqrt(950)) / 20000) = sqrt(20 * 291.466 / 20000) = 0.53988
    assert p["gamma"] == pytest.approx(0.53988, abs=1e-5)
    assert p["period"] == 9 and p["detection"] and p["gamma_rule"] == "theorem"
    told = MonitoredUCB(window=100, b=10.0, gamma=0.1).resolve(10_000, INFO)
    assert (told["window"], told["b"], told["gamma"], told["period"]) == (100, 10.0, 0.1, 50)
    assert told["gamma_rule"] == "given"


def test_m_ucb_gamma_rules_by_hand():
    """K = 3, T = 50 000, delta = 0.6, Upsilon_T = 2, each gamma written out from its formula
    with the w and b the class resolves; ``experiments`` is the default; the cap at 1; an
    explicit gamma wins over both rules; the rules use the b in force."""
    K, T, delta, ups = 3, 50_000, 0.6, 2
    info = {"d": K, "Upsilon_T": ups, "min_change": delta, "reward_range": (0.0, 1.0)}
    # w = (4 / 0.36) (sqrt(log(2 * 3 * 50000^2)) + sqrt(log(100000)))^2 = 11.111 (4.8406 + 3.3931)^2
    #   = 753.26 -> 754; b = sqrt(377 log(1.5e10)) = sqrt(377 * 23.431) = 93.987
    w = 754
    b = math.sqrt(w / 2 * math.log(2 * K * T ** 2))
    # experiments: sqrt(6 (187.97 + 82.38) / 1e5) = sqrt(6 * 270.35 / 1e5) = 0.12736
    experiments = math.sqrt(ups * K * (2 * b + 3 * math.sqrt(w)) / (2 * T))
    # theorem: sqrt(6 min(377, ceil(156.65) + 82.38) / 1e5) = sqrt(6 * 239.38 / 1e5) = 0.11984
    theorem = math.sqrt(ups * K * min(w / 2, math.ceil(b / delta) + 3 * math.sqrt(w)) / (2 * T))
    assert experiments == pytest.approx(0.12736, abs=1e-5) and theorem == pytest.approx(0.11984, abs=1e-5)
    default = MonitoredUCB().resolve(T, info)
    assert (default["window"], default["gamma_rule"]) == (w, "experiments")
    assert default["b"] == pytest.approx(b, rel=1e-15)
    assert default["gamma"] == pytest.approx(experiments, rel=1e-15)
    assert default["period"] == math.floor(K / experiments) == 23
    got = MonitoredUCB(gamma_rule="theorem").resolve(T, info)
    assert got["gamma"] == pytest.approx(theorem, rel=1e-15) and got["period"] == math.floor(K / theorem) == 25
    assert MonitoredUCB(gamma=0.3, gamma_rule="theorem").resolve(T, info)["gamma"] == 0.3
    # a b set by hand enters both rules: b = 10 gives 2 b + 3 sqrt(w) = 102.38 and ceil(10 / 0.6) = 17
    assert MonitoredUCB(b=10.0).resolve(T, info)["gamma"] == pytest.approx(
        math.sqrt(ups * K * (20 + 3 * math.sqrt(w)) / (2 * T)), rel=1e-15)
    assert MonitoredUCB(b=10.0, gamma_rule="theorem").resolve(T, info)["gamma"] == pytest.approx(
        math.sqrt(ups * K * (17 + 3 * math.sqrt(w)) / (2 * T)), rel=1e-15)
    # many change points on a short horizon: capped at 1 (floor(K / 1) = K: every round explores)
    capped = MonitoredUCB(window=100).resolve(1000, dict(info, Upsilon_T=50))
    assert capped["gamma"] == 1.0 and capped["period"] == K
    # a window set by hand and no change size: experiments needs no delta, the theorem gives 0
    flat = dict(info, min_change=0.0)
    assert MonitoredUCB(window=100).resolve(T, flat)["gamma"] == pytest.approx(
        math.sqrt(ups * K * (2 * math.sqrt(50 * math.log(2 * K * T ** 2)) + 30) / (2 * T)), rel=1e-15)
    assert MonitoredUCB(window=100, gamma_rule="theorem").resolve(T, flat)["gamma"] == 0.0
    assert "min_change" not in MonitoredUCB(window=100).needs()
    assert "min_change" in MonitoredUCB(window=100, gamma_rule="theorem").needs()


def test_stationary_limits():
    """Upsilon_T = 0: no forced exploration (and, for CUSUM-UCB, no detection);
    min_change = 0: no detector. Recorded constants stay JSON numbers."""
    rewards = piecewise(2000, means=[[0.6, 0.4, 0.5]])[1]
    for info in (dict(INFO, d=3, Upsilon_T=0), dict(INFO, d=3, min_change=0.0)):
        cusum, mucb = CUSUMUCB(), MonitoredUCB()
        cusum.play(rewards, info, np.random.default_rng(0))
        mucb.play(rewards, info, np.random.default_rng(0))
        assert cusum.derived_["alpha"] == 0.0 and cusum.derived_["h"] is None and not cusum.derived_["detection"]
        assert cusum.events_ == {"restarts": [], "arms": []}
        assert mucb.derived_["gamma"] == 0.0 and mucb.derived_["period"] == 0
        json.dumps([cusum.derived_, cusum.events_, mucb.derived_, mucb.events_], allow_nan=False)
    assert not mucb.derived_["detection"]  # min_change = 0: nothing to size the window by
    # without forced exploration and detection M-UCB is UCB1 (bonus sqrt(2 log t / n))
    info = dict(INFO, d=3, min_change=0.0)
    counts, sums, expected = np.zeros(3), np.zeros(3), []
    for t in range(200):
        idx = [math.inf if counts[k] == 0 else sums[k] / counts[k] + math.sqrt(2 * math.log(t + 1) / counts[k])
               for k in range(3)]
        a = int(np.argmax(idx))
        expected.append(a)
        counts[a] += 1
        sums[a] += rewards[t, a]
    np.testing.assert_array_equal(MonitoredUCB().play(rewards[:200], info, np.random.default_rng(0)), expected)


def test_m_ucb_without_a_usable_window():
    """At T = 600 the tuned w (1052 for delta = 0.4) cannot fill: gamma_without_detector=zero
    (default) plays UCB1 without forced rounds, =paper keeps Thm. 1's gamma; the literal
    transcription agrees in both cases."""
    info, rewards = tables()
    r = rewards["bernoulli"][:600]
    for option in ("zero", "paper"):
        for rule in ("experiments", "theorem"):
            algo = MonitoredUCB(gamma_without_detector=option, gamma_rule=rule)
            fast = algo.play(r, info, np.random.default_rng(0))
            assert not algo.derived_["detection"] and algo.derived_["window"] > 600
            assert (algo.derived_["gamma"] == 0.0) == (option == "zero")
            slow = play_policy(ReferenceMUCB(gamma_without_detector=option, gamma_rule=rule), r, info,
                               np.random.default_rng(0))
            np.testing.assert_array_equal(fast, slow)


def test_impossible_or_bad_constants_are_refused():
    with pytest.raises(ConfigError, match="Upsilon_T < T"):
        CUSUMUCB().resolve(10, dict(INFO, Upsilon_T=10))
    for bad in (CUSUMUCB(M=0), CUSUMUCB(alpha=1.5), CUSUMUCB(xi=0.0), MonitoredUCB(window=7),
                MonitoredUCB(gamma=2.0), MonitoredUCB(b=-1.0), CUSUMUCB(min_change=-0.1),
                MonitoredUCB(gamma_without_detector="one"), MonitoredUCB(gamma_rule="paper"),
                MonitoredUCB(index="klucb"), CUSUMUCB(index="kl"), CUSUMUCB(kl_exploration="loglog"),
                MonitoredUCB(index="kl_ucb", kl_c=-1.0)):
        with pytest.raises(ConfigError, match="algo\\."):
            bad.check_params()


def test_min_change_is_needed_unless_set():
    """A problem that does not report min_change is refused (naming algo.min_change),
    unless the algorithm sets it."""
    from bandits.environments import Instance

    env = Sinusoid(noise="bernoulli")
    env.check_params(500)
    full = env.instance(500)
    inst = Instance(means=full.means, info={k: v for k, v in full.info.items() if k != "min_change"},
                    evaluation=full.evaluation)
    for algo in (CUSUMUCB(), MonitoredUCB()):
        assert "min_change" in algo.needs()
        with pytest.raises(ConfigError, match="algo.min_change="):
            check_needs(algo, "x", inst, "sinusoid")
    for algo in (CUSUMUCB(min_change=0.2), MonitoredUCB(min_change=0.2)):
        check_needs(algo, "x", inst, "sinusoid")
        algo.play(env.rewards(inst, np.random.default_rng(0)), inst.info, np.random.default_rng(0))


# ----------------------------------------------------------------------------- detection at the papers' thresholds

def test_a_large_change_is_detected_quickly_and_no_false_alarm_before():
    """Arm 0 falls from 0.9 to 0.1 at round 2000 (min_change 0.8): both detect it within a
    bounded delay, at the tuned thresholds, and never before it."""
    T = 4000
    for seed in range(3):
        inst, rewards = piecewise(T, means=[[0.9, 0.1], [0.1, 0.9]], seed=seed)
        assert inst.evaluation["change_points"] == [2000]
        for algo, delay in ((CUSUMUCB(), 150), (MonitoredUCB(), 400)):
            algo.play(rewards, inst.info, np.random.default_rng(seed))
            first = algo.events_["restarts"]
            assert first and 2000 <= first[0] < 2000 + delay, (type(algo).__name__, seed, first)
            assert algo.events_["arms"][0] == 0


def test_no_false_alarm_on_a_stationary_instance():
    """Means 0.7 / 0.3 never change; each algorithm is tuned as if one change of at least
    0.4 could happen (algo.Upsilon_T, algo.min_change) and raises no alarm."""
    T = 5000
    for seed in range(3):
        inst, rewards = piecewise(T, means=[[0.7, 0.3]], seed=seed)
        for algo in (CUSUMUCB(Upsilon_T=1, min_change=0.4), MonitoredUCB(Upsilon_T=1, min_change=0.4)):
            algo.play(rewards, inst.info, np.random.default_rng(seed))
            assert algo.derived_["detection"] and algo.events_["restarts"] == [], (type(algo).__name__, seed)
