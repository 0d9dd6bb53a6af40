"""Ada-ILTCB+: the tests computed by oracle calls against brute force, the replay
machinery, and restarts on seeded instances."""

import numpy as np
import pytest

from bandits.contextual.ada_iltcb_plus import AdaILTCBPlus
from bandits.contextual.common import mixture, play_mixture
from bandits.contextual.nonstationarity_tests import (
    BruteForceTests,
    Logged,
    OracleTests,
    end_of_block_test,
    end_of_replay_test,
)
from bandits.contextual.policy_class import FinitePolicyClass
from bandits.environments import DriftingContextual


@pytest.fixture(scope="module")
def logged():
    env = DriftingContextual(K=4, d=5, n_pieces=2, n_policies=80)
    inst = env.instance(4000, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, 4000)
    p = rng.uniform(0.1, 0.6, 4000)
    w = (rng.random(4000) < inst.means[np.arange(4000), a]) / p
    return Logged(FinitePolicyClass(inst.info["policy_actions"], 4), a, w)


@pytest.mark.parametrize("A,B", [((2500, 2900), (0, 2000)), ((100, 400), (0, 1000)), ((0, 4000), (0, 1024))])
def test_oracle_path_equals_brute_force(logged, A, B):
    A, B = np.arange(*A), np.arange(*B)
    oracle, brute = OracleTests(logged), BruteForceTests(logged)
    Q = (np.array([3, 7, 11]), np.array([0.5, 0.3, 0.2]))
    for f in (4.0, 1.0):
        assert oracle.regret_gap(A, B, f)[0] == pytest.approx(brute.regret_gap(A, B, f)[0], abs=1e-9)
        assert oracle.regret_gap(B, A, f)[0] == pytest.approx(brute.regret_gap(B, A, f)[0], abs=1e-9)
    assert oracle.variance_gap(A, B, Q, 0.05)[0] == pytest.approx(brute.variance_gap(A, B, Q, 0.05)[0], abs=1e-9)


def test_both_tests_decide_alike_around_the_threshold(logged):
    oracle, brute = OracleTests(logged), BruteForceTests(logged)
    A, B = np.arange(3000, 3500), np.arange(0, 2000)
    Q = (np.array([5]), np.array([1.0]))
    value = brute.regret_gap(A, B)[0]
    for D1, first in ((value * 0.999, 3), (value * 1.001, None)):  # (3) just failing, then just passing
        got = [end_of_replay_test(e, A, B, Q, 0.1, 4, 1.0, D1 / 0.1, 1e9) for e in (oracle, brute)]
        assert (got[0] is None) == (got[1] is None)
        if got[0] is not None:
            assert got[0][:2] == got[1][:2]
            if first is not None:
                assert got[0][0] == first
            else:
                assert got[0][0] != 3
    Bks = [np.arange(0, 500), np.arange(0, 1000)]
    for D4 in (0.01, 1e9):
        got = [end_of_block_test(e, np.arange(0, 2000), Bks, [Q, Q], [0.2, 0.1, 0.07], 4, 1.0, D4, 1e9)
               for e in (oracle, brute)]
        assert (got[0] is None) == (got[1] is None)
        if got[0] is not None:
            assert got[0][:3] == got[1][:3]


def test_algorithm_runs_the_same_with_oracle_or_brute_force_tests():
    env = DriftingContextual(K=3, d=4, n_pieces=2, n_policies=40)
    inst = env.instance(6000, np.random.default_rng(2))
    r = env.rewards(inst, np.random.default_rng(3))
    runs = []
    for tests in ("oracle", "brute_force"):
        algo = AdaILTCBPlus(tests=tests, C0_scale=0.1, D_scale=1e-5)
        runs.append((algo.play(r, inst.info, np.random.default_rng(4)), algo.events_))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    assert [e["round"] for e in runs[0][1]["restarts"]] == [e["round"] for e in runs[1][1]["restarts"]]


def test_mixture_probabilities_by_hand():
    pred = np.array([[0, 1, 2]], dtype=np.int16)  # policies 0, 1, 2 pick actions 0, 1, 2 at t = 0
    actions, probs = np.zeros(1, dtype=np.int64), np.zeros(1)
    # Q_a = policy 0 w.p. 1, nu = 0.1; Q_b = policy 1 w.p. 0.5 and policy 2 w.p. 0.5, nu = 0.2
    mix = mixture([((np.array([0]), np.array([1.0])), 0.1), ((np.array([1, 2]), np.array([0.5, 0.5])), 0.2)])
    np.testing.assert_array_equal(mix[2], [0, 1, 3])  # distribution m is supports[offsets[m]:offsets[m + 1]]
    play_mixture(pred, mix, 3, np.array([0.0]), 0, 1, actions, probs)
    p0 = 0.5 * (0.1 + 0.7 * 1.0) + 0.5 * 0.2  # action 0: Q_a^nu(0) = 0.8, Q_b^nu(0) = 0.2
    assert actions[0] == 0 and probs[0] == pytest.approx(p0)


def test_replay_schedule_and_events():
    env = DriftingContextual(K=3, d=4, n_pieces=1, n_policies=30)
    inst = env.instance(20000, np.random.default_rng(5))
    r = env.rewards(inst, np.random.default_rng(6))
    algo = AdaILTCBPlus(C0_scale=0.05, D_scale=1.0)  # thresholds never met: one epoch
    algo.play(r, inst.info, np.random.default_rng(7))
    L = algo.derived_["L"]
    ev = algo.events_
    assert ev["restarts"] == []
    assert [b["round"] for b in ev["blocks"]] == [0] + [L * 2 ** j for j in range(20) if L * 2 ** j < 20000]
    assert ev["replays"], "replays are expected over this many blocks"
    for rep in ev["replays"]:
        block_start = L * 2 ** (rep["j"] - 1)
        block_end = L * 2 ** rep["j"] - 1
        assert 0 <= rep["m"] < rep["j"] and block_start <= rep["start"] <= block_end
        assert rep["planned_end"] == rep["start"] + 2 ** rep["m"] * L - 1
        assert rep["end"] == min(rep["planned_end"], block_end, 19999)
        assert rep["cut"] == (rep["end"] < rep["planned_end"])


def test_restart_soon_after_a_large_switch_and_none_when_stationary():
    T, change = 20000, 10000
    found = {}
    for pieces in (2, 1):
        env = DriftingContextual(n_pieces=pieces, shift=1.0, n_policies=200)
        inst = env.instance(T, np.random.default_rng(8))
        r = env.rewards(inst, np.random.default_rng(9))
        algo = AdaILTCBPlus(D_scale=1e-5)  # the tuning runs' largest scale without false alarms
        algo.play(r, inst.info, np.random.default_rng(10))
        found[pieces] = algo.derived_["restarts"]
    assert any(change <= t <= change + 5000 for t in found[2]), found[2]
    assert found[1] == []


def test_theory_preset_is_the_papers_constants():
    k = AdaILTCBPlus(preset="theory").knobs()
    assert k == {"C_scale": 1.0, "D_scale": 1.0, "V_scale": 1.0, "C0_scale": 1.0}


# ----------------------------------------------------------------------------- how often replays start

def replay_counts(seeds=(7, 8, 9), T=20000):
    """Replays started, against Algorithm 1's Step 1 (ada paper, lines 6-8): at every round of block
    j >= 1, rep ~ Bernoulli((1/L) 2^(-j/2) sum_{m<j} 2^(-m/2)), and m is drawn with Pr[m = b]
    proportional to 2^(-b/2). Returns the z-score of the total count against its expectation and
    variance (summed over every block actually played, each as long as it ran), and the
    chi-square p-value of the m drawn against that law, pooled over runs of a stationary instance
    whose thresholds are never met (one epoch)."""
    from scipy import stats

    env = DriftingContextual(K=3, d=4, n_pieces=1, n_policies=30)
    inst = env.instance(T, np.random.default_rng(5))
    r = env.rewards(inst, np.random.default_rng(6))
    started, expected, variance = 0, 0.0, 0.0
    observed_m, expected_m = np.zeros(20), np.zeros(20)
    for seed in seeds:
        algo = AdaILTCBPlus(C0_scale=0.05, D_scale=1.0)
        algo.play(r, inst.info, np.random.default_rng(seed))
        L, ev = algo.derived_["L"], algo.events_
        starts = [b["round"] for b in ev["blocks"]] + [T]
        for block, end in zip(ev["blocks"], starts[1:], strict=True):
            j, length = block["j"], end - block["round"]
            p = (1 / L) * 2 ** (-j / 2) * sum(2 ** (-m / 2) for m in range(j))
            expected += length * p
            variance += length * p * (1 - p)
        for rep in ev["replays"]:
            started += 1
            law = np.array([2 ** (-b / 2) for b in range(rep["j"])])
            observed_m[rep["m"]] += 1
            expected_m[:rep["j"]] += law / law.sum()
    used = expected_m > 0
    chi2 = float((((observed_m - expected_m) ** 2)[used] / expected_m[used]).sum())
    return (started - expected) / np.sqrt(variance), float(stats.chi2.sf(chi2, used.sum() - 1)), started, expected


def test_replays_start_as_often_as_the_paper_says():
    z, p_m, started, expected = replay_counts()
    assert expected > 100  # enough replays that a doubled rate stands out (z about sqrt(expected))
    assert abs(z) < 3.5, (started, expected, z)
    assert p_m > 1e-3, p_m


def test_a_doubled_replay_probability_fails_the_frequency_test(monkeypatch):
    """The frequency test is not blind: rep ~ Bernoulli(2 / L ...) in place of 1 / L fails it."""
    import bandits.contextual.ada_iltcb_plus as ada

    original = ada.replay_starts

    def doubled(run, block, last):
        L = run.L
        run.L = L / 2  # L enters Step 1's probability only here
        try:
            return original(run, block, last)
        finally:
            run.L = L

    monkeypatch.setattr(ada, "replay_starts", doubled)
    z, _, started, expected = replay_counts()
    assert z > 3.5, (started, expected, z)


# ----------------------------------------------------------------------------- against the literal transcription

def fast_and_literal(pieces, D_scale, replay=True, T=6000, monkeypatch=None):
    """Ada-ILTCB+ and bandits/reference/ada_iltcb_plus.py on one instance and one stream; the
    fast run's probabilities and OP distributions are taken from its internals as it runs."""
    import bandits.contextual.ada_iltcb_plus as ada
    from bandits.reference.ada_iltcb_plus import ReferenceAdaILTCBPlus

    env = DriftingContextual(K=3, d=4, n_pieces=pieces, shift=1.0, n_policies=20)
    inst = env.instance(T, np.random.default_rng(11))
    r = env.rewards(inst, np.random.default_rng(12))
    seen = {"runs": [], "Q": []}
    distribution, run_block = ada.block_distribution, ada.run_block

    def recorded_distribution(run, block):
        seen["Q"].append(distribution(run, block))
        return seen["Q"][-1]

    def recorded_block(run, *args):
        seen["runs"].append(run)
        return run_block(run, *args)

    patch = monkeypatch.setattr
    patch(ada, "block_distribution", recorded_distribution)
    patch(ada, "run_block", recorded_block)
    fast = AdaILTCBPlus(C0_scale=0.05, D_scale=D_scale, replay=replay)
    actions = fast.play(r, inst.info, np.random.default_rng(13))
    literal = ReferenceAdaILTCBPlus(C0_scale=0.05, D_scale=D_scale, replay=replay)
    literal_actions = literal.play(r, inst.info, np.random.default_rng(13))
    return fast, actions, seen["runs"][0].probs, seen["Q"], literal, literal_actions


@pytest.mark.parametrize("pieces, D_scale, replay", [(1, 1.0, True), (3, 1e-5, True), (3, 1e-5, False)],
                         ids=["stationary, replays", "switching, restarts and replays", "no replay"])
def test_the_kernel_plays_the_literal_transcription_round_by_round(pieces, D_scale, replay, monkeypatch):
    """Actions, probabilities p_t(a_t), the OP's distribution of every block, every block start,
    every replay (start, m, planned end) and every restart (round, test, inequality), as the
    transcription of Algorithm 1 and Figure 1 has them; and each OP solution meets the text's
    constraints (1) and (2)."""
    fast, actions, probs, Qs, literal, literal_actions = fast_and_literal(pieces, D_scale, replay,
                                                                          monkeypatch=monkeypatch)
    np.testing.assert_array_equal(actions, literal_actions)
    np.testing.assert_allclose(probs, literal.p_, rtol=1e-12)
    assert len(Qs) == len(literal.distributions_)
    for (support, weights), (lit_support, lit_weights) in zip(Qs, literal.distributions_, strict=True):
        np.testing.assert_array_equal(support, lit_support)
        np.testing.assert_allclose(weights, lit_weights, rtol=1e-12)
    assert max(literal.op_excess_, default=0.0) == 0.0
    ev, lit = fast.events_, literal.events_
    assert ev["blocks"] == lit["blocks"]
    assert [(e["start"], e["m"], e["planned_end"]) for e in ev["replays"]] == \
        [(e["start"], e["m"], e["planned_end"]) for e in lit["replays"]]
    assert [(e["round"], e["test"], e["inequality"]) for e in ev["restarts"]] == \
        [(e["round"], e["test"], e["inequality"]) for e in lit["restarts"]]
    if replay:
        assert ev["replays"], "the case exercises replays"
    if pieces > 1:
        tests = {e["test"] for e in ev["restarts"]}
        assert tests == ({"replay", "block"} if replay else {"block"}), tests


def test_the_comparison_with_the_transcription_is_not_blind(monkeypatch):
    """A kernel that starts replays twice as often (2 / L in Step 1) no longer plays the
    transcription's rounds."""
    import bandits.contextual.ada_iltcb_plus as ada

    original = ada.replay_starts

    def doubled(run, block, last):
        L = run.L
        run.L = L / 2
        try:
            return original(run, block, last)
        finally:
            run.L = L

    monkeypatch.setattr(ada, "replay_starts", doubled)
    fast, actions, _, _, literal, literal_actions = fast_and_literal(1, 1.0, monkeypatch=monkeypatch)
    assert len(fast.events_["replays"]) > len(literal.events_["replays"])
    assert not np.array_equal(actions, literal_actions)
