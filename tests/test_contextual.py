"""Contextual bandits: the environment, the oracles, the OP solver, ILTCB and the
baselines (ada paper; Agarwal et al. 2014)."""

import itertools
import math

import numpy as np
import pytest

from bandits.contextual.baselines import EpsilonGreedy, Exp4
from bandits.contextual.iltcb import ILTCB, constants, nu_j
from bandits.contextual.op_solver import check_constraints, iteration_bound, solve_op
from bandits.contextual.policy_class import FinitePolicyClass, LinearPolicyClass, PrefixValues
from bandits.environments import DriftingContextual, Sinusoid
from bandits.environments.drifting_contextual import reward_tv
from bandits.errors import ConfigError
from bandits.simulation import learner_info


@pytest.fixture(scope="module")
def switching():
    env = DriftingContextual(K=4, d=5, n_pieces=3, n_policies=60)
    inst = env.instance(3000, np.random.default_rng(0))
    return env, inst


def test_environment_pieces_and_bayes_policies(switching):
    env, inst = switching
    assert inst.info["S_switches"] == 3 and list(inst.evaluation["change_points"]) == [1000, 2000]
    pred = inst.info["policy_actions"]
    opt = inst.evaluation["optimal_policy"]
    # the optimal policy of each piece is in the class and is Bayes-optimal there
    np.testing.assert_array_equal(pred[np.arange(3000), opt], inst.means.argmax(axis=1))
    assert len(set(opt[:1000])) == 1 and opt[0] != opt[1500]
    r = env.rewards(inst, np.random.default_rng(1))
    assert set(np.unique(r)) <= {0.0, 1.0}
    assert inst.info["Delta_TV"] > 0


def test_stationary_instance_has_no_variation():
    inst = DriftingContextual(K=3, d=3, n_pieces=1, n_policies=10).instance(500, np.random.default_rng(0))
    assert inst.info["S_switches"] == 1 and inst.info["Delta_TV"] == 0.0


def test_reward_tv_by_hand():
    p, q = np.array([[0.3]]), np.array([[0.5]])
    assert reward_tv(p, q) == pytest.approx(2 * 0.2)  # |0.3-0.5| + |0.7-0.5|
    p2, q2 = np.array([[0.2, 0.6]]), np.array([[0.4, 0.6]])
    by_hand = sum(abs(np.prod([pa if b else 1 - pa for pa, b in zip(p2[0], bits, strict=True)])
                      - np.prod([qa if b else 1 - qa for qa, b in zip(q2[0], bits, strict=True)]))
                  for bits in itertools.product((0, 1), repeat=2))
    assert reward_tv(p2, q2) == pytest.approx(by_hand)


def test_compiled_instance_parts_equal_numpys_expressions_to_the_bit():
    """The instance's compiled parts (policy actions, the exact TV, the policies' values) give
    numpy's own results exactly, so a faster draw poses the same problem as before."""
    from bandits.environments.drifting_contextual import policy_actions, policy_values

    rng = np.random.default_rng(3)
    W, X = rng.standard_normal((40, 4, 6)), rng.standard_normal((9000, 6))  # two 8,192-context blocks
    by_numpy = np.einsum("nkd,td->tnk", W, X).argmax(axis=2)
    assert np.array_equal(policy_actions(W, X), by_numpy)
    p, q = rng.random((300, 5)), rng.random((300, 5))
    by_loop = np.zeros(300)
    for bits in itertools.product((0, 1), repeat=5):
        b = np.array(bits, dtype=bool)
        by_loop += np.abs(np.where(b, p, 1 - p).prod(axis=1) - np.where(b, q, 1 - q).prod(axis=1))
    assert reward_tv(p, q) == float(by_loop.mean())
    mu, pred = rng.random((300, 4)), rng.integers(0, 4, (300, 40)).astype(np.int8)
    assert np.array_equal(policy_values(mu, pred), mu[np.arange(300)[:, None], pred].mean(axis=0))


def test_drifting_mode_reports_variation_and_best_policy():
    env = DriftingContextual(K=3, d=4, mode="drifting", n_policies=50, eval_points=20, mc_contexts=200)
    inst = env.instance(2000, np.random.default_rng(3))
    assert inst.info["Delta_TV"] > 0 and inst.optimal.shape == (2000,)
    assert len(set(inst.evaluation["optimal_policy"])) > 1


@pytest.mark.parametrize("kwargs", [dict(K=4, d=5, n_pieces=3, n_policies=60),
                                    dict(K=3, d=4, mode="drifting", n_policies=50, eval_points=20, mc_contexts=200)])
def test_instance_is_the_same_problem_at_every_T(kwargs):
    """draw_order by_part: one key gives the same thetas, policy class and Monte-Carlo contexts
    at every T, and the contexts at T are the first T of a longer horizon's; so a run with
    ``instances`` changes only T across horizons. ``sequential`` (the earlier order) does not."""
    def draw(T, order):
        env = DriftingContextual(**kwargs, draw_order=order)
        return env.instance(T, np.random.default_rng(np.random.SeedSequence(7)))
    short, long = draw(900, "by_part"), draw(2700, "by_part")
    np.testing.assert_array_equal(short.evaluation["policy_weights"], long.evaluation["policy_weights"])
    np.testing.assert_array_equal(short.info["contexts"], long.info["contexts"][:900])
    if kwargs.get("mode") != "drifting":  # piece s's theta: the same logits on the shared contexts
        np.testing.assert_allclose(short.means[:300], long.means[:300])
    before = draw(900, "sequential"), draw(2700, "sequential")
    assert not np.array_equal(before[0].evaluation["policy_weights"], before[1].evaluation["policy_weights"])


@pytest.mark.parametrize("kwargs,fragment", [
    ({"K": 1}, "env.K must be >= 2"),
    ({"draw_order": "random"}, "env.draw_order"),
    ({"n_pieces": 8, "n_policies": 5}, "smaller than the 8 stationary pieces"),
])
def test_environment_bad_input(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        DriftingContextual(**kwargs).check_params(1000)


def test_rewards_outside_unit_interval_are_refused():
    env = Sinusoid()
    inst = env.instance(100)
    r = env.rewards(inst, np.random.default_rng(0)) + 1.0
    info = {**inst.info, "policy_actions": np.zeros((100, 3), dtype=np.int16)}
    with pytest.raises(ConfigError, match=r"rewards in \[0, 1\]"):
        ILTCB().play(r, info, np.random.default_rng(0))


def test_finite_oracle_is_exact_and_counts_calls(switching):
    _, inst = switching
    pc = FinitePolicyClass(inst.info["policy_actions"], 4)
    rows = np.arange(100, 400)
    reward = np.random.default_rng(0).random((300, 4))
    brute = [sum(reward[i, pc.pred[t, n]] for i, t in enumerate(rows)) for n in range(pc.size)]
    assert pc.oracle(rows, reward) == int(np.argmax(brute)) and pc.calls_ == 1
    np.testing.assert_allclose(pc.scores(rows, reward), brute, rtol=1e-12)


@pytest.mark.parametrize("K", [2, 5, 7])
def test_finite_scores_are_the_in_order_sums_bit_for_bit(K):
    """The select chain (K <= 5) and the indexed load (K > 5) add the same values in the same order."""
    rng = np.random.default_rng(K)
    pc = FinitePolicyClass(rng.integers(0, K, (500, 37)).astype(np.int16), K)
    rows = np.sort(rng.choice(500, 200, replace=False))
    reward = rng.random((200, K)) * 7.3
    brute = [0.0] * pc.size
    for n in range(pc.size):
        for i, t in enumerate(rows):
            brute[n] += reward[i, pc.pred[t, n]]
    np.testing.assert_array_equal(pc.scores(rows, reward), np.array(brute))


def test_prefix_sums_match_direct_sums(switching):
    _, inst = switching
    pc = FinitePolicyClass(inst.info["policy_actions"], 4)
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, 3000)
    w = rng.random(3000) * (rng.random(3000) < 0.5) * 4
    pv = PrefixValues(pc, a, w, stride=64)
    pv.extend(3000)
    for s, e in [(0, 3000), (5, 6), (63, 129), (1000, 2999), (700, 700)]:
        direct = np.array([(w[s:e] * (pc.pred[s:e, n] == a[s:e])).sum() for n in range(pc.size)])
        np.testing.assert_allclose(pv.interval(s, e), direct, rtol=1e-12, atol=1e-12)


def test_linear_class_oracle_fits_per_action_regression():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((500, 3))
    W = rng.standard_normal((4, 3))
    reward = X @ W.T
    lc = LinearPolicyClass(X, 4, ridge=1e-9)
    p = lc.oracle(np.arange(500), reward)
    np.testing.assert_array_equal(lc.predict(p, np.arange(500)), (X @ W.T).argmax(axis=1))


@pytest.mark.parametrize("seed,nu,C", [(0, 0.01, 1.2e7), (1, 0.05, 1.0), (2, 0.002, 100.0), (3, 0.25, 0.01)])
def test_op_solution_satisfies_both_constraints(switching, seed, nu, C):
    _, inst = switching
    pc = FinitePolicyClass(inst.info["policy_actions"], 4)
    rng = np.random.default_rng(seed)
    T = 3000
    a = rng.integers(0, 4, T)
    p = rng.uniform(0.1, 0.7, T)
    w = (rng.random(T) < inst.means[np.arange(T), a]) / p
    rows = np.arange(200, 2600)
    res = solve_op(pc, rows, a, w, nu, C)
    c1, c2 = check_constraints(pc, res, rows, a, w, nu, C)
    assert c1 <= 1e-9 and c2 <= 1e-7
    assert res.converged and res.iterations <= iteration_bound(4, nu)
    assert abs(sum(res.weights) - 1) < 1e-12 and min(res.weights) >= 0


@pytest.mark.parametrize("nu", [0.0, -0.1, 0.3, "x"])
def test_op_refuses_nu_outside_range(switching, nu):
    _, inst = switching
    pc = FinitePolicyClass(inst.info["policy_actions"], 4)
    with pytest.raises(ConfigError, match=r"nu .* must lie in \(0, 1/K\]"):
        solve_op(pc, np.arange(10), np.zeros(3000, int), np.zeros(3000), nu, 1.0)


def test_iltcb_constants_follow_algorithm_1():
    c = constants(10 ** 5, 5, 500, 0.05)
    assert c["C0"] == pytest.approx(math.log(8 * 1e15 * 500 ** 2 / 0.05))
    assert c["L"] == math.ceil(4 * 5 * c["C0"])
    nu0 = nu_j(0, 5, c["C0"], c["L"])
    assert 1 / 20 <= nu0 <= 1 / 10  # nu_0 in [1/(4K), 1/(2K)] (ada, proof of Lemma 17)
    assert nu_j(2, 5, c["C0"], c["L"]) == pytest.approx(nu0 / 2)


def test_iltcb_block_schedule_and_oracle_restart(switching):
    env, inst = switching
    r = env.rewards(inst, np.random.default_rng(1))
    algo = ILTCB(C0_scale=0.05)
    algo.play(r, inst.info, np.random.default_rng(2))
    L = algo.derived_["L"]
    blocks = [0] + [L * 2 ** j for j in range(20) if L * 2 ** j < 3000]
    assert algo.derived_["n_blocks"] == len(blocks)
    assert len(algo.derived_["op_iterations"]) == len(blocks) - 1  # one OP per block start j >= 1
    assert algo.derived_["epochs"] == [0]
    oracle = ILTCB(C0_scale=0.05, restart_at_changes=True)
    oracle.play(r, learner_info(oracle, inst), np.random.default_rng(2))
    assert oracle.derived_["epochs"] == [0, 1000, 2000]


def test_epsilon_one_is_uniform_play(switching):
    env, inst = switching
    r = env.rewards(inst, np.random.default_rng(1))
    a = EpsilonGreedy(epsilon=1.0).play(r, inst.info, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    rng.random(3000)
    np.testing.assert_array_equal(a, np.minimum((rng.random(3000) * 4).astype(int), 3))


def test_exp4_matches_a_transcription_of_auer_fig5(switching):
    env, inst = switching
    r = env.rewards(inst, np.random.default_rng(1))[:400]
    info = {**inst.info, "policy_actions": inst.info["policy_actions"][:400]}
    got = Exp4(gamma=0.1).play(r, info, np.random.default_rng(5))
    u = np.random.default_rng(5).random(400)
    pred = info["policy_actions"]
    w = np.ones(pred.shape[1])
    for t in range(400):
        p = np.full(4, 0.1 / 4)
        np.add.at(p, pred[t], 0.9 * w / w.sum())
        a = min(int(np.searchsorted(np.cumsum(p), u[t], side="right")), 3)
        assert got[t] == a
        w = w * np.exp(0.1 * (pred[t] == a) * r[t, a] / p[a] / 4)


def vw_through_pyvw(algo, rewards, info, rng):
    """The bridge's round through pyvw's documented predict/learn on text examples."""
    import vowpalwabbit

    from bandits.contextual.vowpal_wabbit import VowpalWabbit

    T, K = rewards.shape
    seed = int(rng.integers(0, 2 ** 31 - 1))
    u = rng.random(T)
    ws = vowpalwabbit.Workspace(algo.arguments(seed))
    actions = np.empty(T, dtype=np.int64)
    for t in range(T):
        x = info["contexts"][t]
        pmf = np.asarray(ws.predict(VowpalWabbit.example(x, K)), dtype=np.float64)
        pmf /= pmf.sum()
        actions[t] = a = int(min(np.searchsorted(np.cumsum(pmf), u[t], side="right"), K - 1))
        ws.learn(VowpalWabbit.example(x, K, (a, 1.0 - rewards[t, a], pmf[a])))
    ws.finish()
    return actions


def test_vw_bridge_runs_on_a_tiny_problem(switching):
    pytest.importorskip("vowpalwabbit")
    from bandits.contextual.vowpal_wabbit import VowpalWabbit

    env, inst = switching
    r = env.rewards(inst, np.random.default_rng(1))[:300]
    info = {**inst.info, "contexts": inst.info["contexts"][:300]}
    for explore in ("epsilon", "cover"):
        algo = VowpalWabbit(explore=explore)
        algo.check_params()
        a1 = algo.play(r, info, np.random.default_rng(6))
        a2 = VowpalWabbit(explore=explore).play(r, info, np.random.default_rng(6))
        assert a1.shape == (300,) and a1.min() >= 0 and a1.max() < 4
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(a1, vw_through_pyvw(algo, r, info, np.random.default_rng(6)))
    lines = VowpalWabbit.example(np.array([0.5, -1.0]), 3, (1, 0.0, 0.25))
    assert lines == ["shared |s 0:0.5 1:-1", "|a a0", "0:0:0.25 |a a1", "|a a2"]


def test_vw_bridge_draws_and_formats_as_numpy_and_f_strings_do():
    """The bridge's fast paths give the numbers of the plain ones, bit for bit: the draw from
    VW's scores as numpy's normalise, cumsum and searchsorted (K below and above numpy's
    in-order sum of fewer than 8 numbers), the shared line as d f-strings."""
    from bandits.contextual.vowpal_wabbit import VowpalWabbit, draw_from_scores, shared_format

    rng = np.random.default_rng(3)
    for K in (2, 3, 5, 7, 8, 9, 16):
        for _ in range(2000):
            scores = (rng.random(K) * rng.choice([1e-3, 1.0, 1e3], K)).tolist()
            u = float(rng.random())
            pmf = np.asarray(scores, dtype=np.float64)
            pmf /= pmf.sum()
            a = int(min(np.searchsorted(np.cumsum(pmf), u, side="right"), K - 1))
            assert draw_from_scores(scores, u) == (a, pmf[a])
    X = rng.normal(size=(500, 7)) * np.exp(5 * rng.normal(size=(500, 7)))
    X[0, :4] = [-0.0, 0.0, 1e-300, -1e300]
    for x in X:
        assert VowpalWabbit.shared_line(x) == shared_format(7).format(*x.tolist()) == \
            "shared |s " + " ".join(f"{i}:{v:.6g}" for i, v in enumerate(x))


def test_sampled_total_variation_agrees_with_the_exact_sum():
    from bandits.environments.drifting_contextual import reward_tv_sampled

    rng = np.random.default_rng(5)
    p, q = rng.random((40, 6)), rng.random((40, 6))
    exact = reward_tv(p, q)
    estimates = [reward_tv_sampled(p, q, 2000, np.random.default_rng(s)) for s in range(5)]
    assert abs(np.mean(estimates) - exact) < 0.01 * exact  # unbiased
    assert reward_tv_sampled(p, p, 100, rng) == 0.0 and reward_tv(p, p) == 0.0


def test_exact_total_variation_is_limited_and_sampling_is_offered():
    with pytest.raises(ConfigError, match="env.tv=monte_carlo"):
        DriftingContextual(K=13, n_policies=50).check_params(1000)
    env = DriftingContextual(K=13, d=4, n_policies=50, tv="monte_carlo", tv_samples=50, mc_contexts=100)
    env.check_params(1000)
    assert env.instance(1000, np.random.default_rng(0)).info["Delta_TV"] > 0


def test_combining_ranges_gives_the_general_unions_numbers_exactly():
    """The dense path of _combine (ranges of rounds, as both tests pass) against np.unique and
    np.add.at: the same rows and bit-identical sums, for nested, overlapping, disjoint and
    touching intervals."""
    from bandits.contextual import nonstationarity_tests as nt

    rng = np.random.default_rng(5)

    def general(parts):
        rows = np.concatenate([r for r, _ in parts])
        mats = np.concatenate([m for _, m in parts])
        uniq, where = np.unique(rows, return_inverse=True)
        out = np.zeros((len(uniq), mats.shape[1]))
        np.add.at(out, where, mats)
        return uniq, out

    for a, b in [((10, 50), (10, 30)), ((10, 50), (40, 90)), ((0, 20), (35, 60)), ((60, 80), (0, 60)),
                 ((5, 6), (5, 6))]:
        parts = [(np.arange(*a), rng.standard_normal((a[1] - a[0], 5)) / 7),
                 (np.arange(*b), rng.standard_normal((b[1] - b[0], 5)) * 3)]
        rows, mat = nt._combine(parts)
        want_rows, want_mat = general(parts)
        assert np.array_equal(rows, want_rows)
        assert np.array_equal(mat, want_mat)


def test_oracle_restart_plays_a_prefix_of_its_instance():
    """Told change points beyond the rounds it plays (the kernels' warm-up plays the first 20
    rounds of an instance with its full info), the oracle restart plays those rounds and
    starts no epoch past its end (it used to index round T and fail)."""
    env = DriftingContextual(mode="switching", n_pieces=4)
    inst = env.instance(4000, np.random.default_rng(3))
    algo = ILTCB(restart_at_changes=True)
    info = learner_info(algo, inst)
    rewards = env.rewards(inst, np.random.default_rng(4))
    actions = algo.play(rewards[:20], {**info, "policy_actions": info["policy_actions"][:20]},
                        np.random.default_rng(0))
    assert actions.shape == (20,) and algo.derived_["epochs"] == [0]


def test_the_compiled_action_distribution_and_sliced_predictions_are_the_gathers_exactly():
    """FinitePolicyClass.distribution (one pass over the rows) against adding each support
    policy's weight at its actions in turn, and predict on a range of rounds (a slice) against
    the fancy-indexed gather: the same numbers, bit for bit, repeated policies included."""
    rng = np.random.default_rng(8)
    pc = FinitePolicyClass(rng.integers(0, 5, (300, 40)).astype(np.int8), 5)
    support, weights = [3, 17, 3, 39, 0], list(rng.random(5) / 3)
    for rows in (np.arange(20, 260), rng.choice(300, 90, replace=False)):
        want = np.zeros((len(rows), 5))
        for p, q in zip(support, weights, strict=True):
            want[np.arange(len(rows)), pc.pred[rows, p].astype(np.int64)] += q
        assert np.array_equal(pc.distribution(support, weights, rows), want)
        for p in support:
            assert np.array_equal(pc.predict(p, rows), pc.pred[rows, p].astype(np.int64))
            assert pc.predict(p, rows).dtype == np.int64
