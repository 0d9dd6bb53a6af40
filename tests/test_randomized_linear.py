"""D-RandLinUCB and D-LinTS (Kim & Tewari 2020, the authors' code's reading): the compiled
kernels against the literal transcriptions round by round (fresh and fixed action sets, K
arms, every option and root), the first rounds by hand, the parameter checks, and what the
discount buys after a switch (against the same learners with gamma = 1, i.e. stationary)."""

import math

import numpy as np
import pytest

from bandits.algorithms import DiscountedLinTS, DiscountedRandLinUCB, play
from bandits.algorithms.discounted_linear_ucb import discounted_radius, gamma_opt
from bandits.environments import PiecewiseBernoulli, PiecewiseLinear
from bandits.errors import ConfigError
from bandits.reference import ReferenceDLinTS, ReferenceDRandLinUCB


def linear_trial(seed, action_set="fresh", d=3, K=7, T=1200):
    env = PiecewiseLinear(d=d, n_breakpoints=5, action_set=action_set, n_actions=K)
    inst = env.instance(T, np.random.default_rng(seed))
    return inst, env.rewards(inst, np.random.default_rng(seed + 10))


PAIRS = [(DiscountedRandLinUCB, ReferenceDRandLinUCB, {}), (DiscountedRandLinUCB, ReferenceDRandLinUCB,
                                                            {"option": "couple", "alpha": 1.0, "delta": 0.1}),
         (DiscountedLinTS, ReferenceDLinTS, {}), (DiscountedLinTS, ReferenceDLinTS, {"root": "sqrtm", "alpha": 0.5}),
         (DiscountedLinTS, ReferenceDLinTS, {"warmup": 0, "lam": 0.5}),
         # Wu 2026's corrected radii (Kim & Tewari's Lemma 4 restates the paper's)
         (DiscountedRandLinUCB, ReferenceDRandLinUCB, {"radius": "horizon"}),
         (DiscountedRandLinUCB, ReferenceDRandLinUCB, {"radius": "anytime", "option": "couple"})]


@pytest.mark.parametrize("algo,ref,params", PAIRS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("gamma", [0.95, 0.995])
def test_kernel_agrees_with_the_literal_transcription_on_fresh_action_sets(algo, ref, params, seed, gamma):
    inst, rewards = linear_trial(seed)
    got = algo(gamma=gamma, **params).play(rewards, inst.info, np.random.default_rng(seed), features=inst.features)
    want = play(ref(gamma=gamma, **params), rewards, inst.info, np.random.default_rng(seed), inst.features)
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got)) > 1  # not vacuous


@pytest.mark.parametrize("algo,ref,params", PAIRS[:3], ids=lambda v: getattr(v, "__name__", str(v)))
def test_kernel_agrees_on_fixed_action_sets_with_the_tuned_gamma(algo, ref, params):
    inst, rewards = linear_trial(3, action_set="fixed", d=4, K=9)
    assert inst.features.shape == (1, 9, 4)
    a = algo(**params)
    got = a.play(rewards, inst.info, np.random.default_rng(5), features=inst.features)
    gamma = 1 - (inst.info["B_T"] / (4 * len(rewards))) ** (2 / 3)
    assert a.derived_["gamma"] == pytest.approx(gamma, rel=1e-14)
    want = play(ref(gamma=a.derived_["gamma"], **params), rewards, inst.info, np.random.default_rng(5),
                inst.features)
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(got)) > 1


@pytest.mark.parametrize("algo,ref", [(DiscountedRandLinUCB, ReferenceDRandLinUCB), (DiscountedLinTS, ReferenceDLinTS)])
def test_kernel_agrees_on_k_arms_as_basis_vectors(algo, ref):
    env = PiecewiseBernoulli(K=4, n_changes=4, min_gap=0.2)
    inst = env.instance(1000, np.random.default_rng(5))
    rewards = env.rewards(inst, np.random.default_rng(6))
    info = {**inst.info, "R": 0.5, "L": 1.0, "S": 1.0}
    got = algo(gamma=0.99).play(rewards, info, np.random.default_rng(7))
    np.testing.assert_array_equal(got, play(ref(gamma=0.99), rewards, info, np.random.default_rng(7)))
    np.testing.assert_array_equal(got, algo(gamma=0.99).play(rewards, info, np.random.default_rng(7),
                                                             features=np.eye(4)[None]))
    assert len(np.unique(got)) == 4


def test_d_randlinucb_first_round_by_hand():
    """Round 1: theta_hat = 0 and M = I / lambda, so the index is alpha |Z| beta_0 ||a|| / sqrt(lambda):
    the longest action, whatever Z; round 2 adds the first observation by hand."""
    feats = np.array([[[1.0, 0.0], [0.0, 2.0], [0.6, 0.6]]])
    rewards = np.array([[0.0, -1.0, 0.9]] * 2)
    info = {"d": 2, "R": 0.2, "L": 2.0, "S": 1.0}
    got = DiscountedRandLinUCB(gamma=0.9, lam=1.0).play(rewards, info, np.random.default_rng(3), features=feats)
    assert got[0] == 1
    rng = np.random.default_rng(3)
    rng.normal(0.0, 1.0)
    z = abs(rng.normal(0.0, 1.0))
    a = feats[0, 1]
    V = 0.9 * np.eye(2) + np.outer(a, a) + 0.1 * np.eye(2)
    Vt = 0.81 * np.eye(2) + np.outer(a, a) + 0.19 * np.eye(2)
    theta = np.linalg.solve(V, -1.0 * a)
    Vinv = np.linalg.inv(V)
    beta = discounted_radius(1, 0.9, 1.0, 0.2, 2, 2.0, 1.0, 0.01)
    by_hand = math.sqrt(1.0) * 1.0 + 0.2 * math.sqrt(2 * math.log(100) + 2 * math.log(1 + 4.0 * 1.0 / 2.0))
    assert beta == pytest.approx(by_hand, rel=1e-14)
    idx = [x @ theta + 0.4 * z * beta * math.sqrt(x @ Vinv @ Vt @ Vinv @ x) for x in feats[0]]
    assert got[1] == int(np.argmax(idx))


def test_d_lints_warmup_and_first_sample_by_hand():
    """The first d rounds: the largest of K uniforms; then theta~ = V^{-1}(b + alpha C z), C C^T = V~."""
    feats = np.array([[[1.0, 0.0], [0.0, 1.0], [-0.7, 0.7]]])
    rewards = np.array([[0.5, -0.2, 0.1]] * 3)
    got = DiscountedLinTS(gamma=0.8, alpha=0.7).play(rewards, {"d": 2}, np.random.default_rng(11), features=feats)
    rng = np.random.default_rng(11)
    first = [int(np.argmax([rng.random() for _ in range(3)])) for _ in range(2)]
    assert got[:2].tolist() == first
    V, Vt, b = np.eye(2), np.eye(2), np.zeros(2)
    for arm in first:
        a = feats[0, arm]
        V = 0.8 * V + np.outer(a, a) + 0.2 * np.eye(2)
        Vt = 0.64 * Vt + np.outer(a, a) + 0.36 * np.eye(2)
        b = 0.8 * b + rewards[0, arm] * a
    z = np.array([rng.normal(0.0, 1.0) for _ in range(2)])
    tilde = np.linalg.solve(V, b + 0.7 * np.linalg.cholesky(Vt) @ z)
    assert got[2] == int(np.argmax(feats[0] @ tilde))


def test_the_sample_has_the_authors_covariance_under_both_roots():
    """theta~ - theta_hat has covariance alpha^2 V^{-1} V~ V^{-1} with either root (the default
    Cholesky factor is a deviation in numbers, not in distribution)."""
    from bandits.algorithms.randomized_discounted_linear import perturbed_estimate

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    V = np.eye(3) + X.T @ (X * 0.9 ** np.arange(30)[:, None])
    Vt = np.eye(3) + X.T @ (X * 0.81 ** np.arange(30)[:, None])
    b = rng.standard_normal(3)
    want = 4.0 * np.linalg.inv(V) @ Vt @ np.linalg.inv(V)
    for sqrtm_root in (False, True):
        draws = np.empty((40000, 3))
        gen = np.random.default_rng(1)
        C, R, u, out = np.empty((3, 3)), np.empty((3, 3)), np.empty(3), np.empty(3)
        for i in range(len(draws)):
            perturbed_estimate(V, Vt, b, 2.0, sqrtm_root, gen, C, R, u, out)
            draws[i] = out
        np.testing.assert_allclose(draws.mean(0), np.linalg.solve(V, b), atol=0.03)
        np.testing.assert_allclose(np.cov(draws.T), want, rtol=0.05, atol=0.02 * np.abs(want).max())


def test_needs_and_resolve():
    assert set(DiscountedRandLinUCB().needs()) == {"d", "R", "L", "S", "B_T"}
    assert set(DiscountedRandLinUCB(gamma=0.99, R=0.1, L=1.0, S=1.0).needs()) == {"d"}
    assert set(DiscountedLinTS().needs()) == {"d", "B_T"} and DiscountedLinTS(gamma=0.9).needs() == ("d",)
    info = {"d": 5, "R": 0.1, "L": 1.0, "S": 1.0, "B_T": 2.0}
    p = DiscountedRandLinUCB().resolve(1000, info)
    assert p["gamma"] == gamma_opt(1000, 5, 2.0) and p["delta"] == 0.01 and p["alpha"] == 0.4
    q = DiscountedLinTS().resolve(1000, info)
    assert q["gamma"] == gamma_opt(1000, 5, 2.0) and q["warmup"] == 5 and q["alpha"] == 1.0
    assert DiscountedLinTS(warmup=0).resolve(1000, info)["warmup"] == 0


@pytest.mark.parametrize("algo,kwargs,key", [
    (DiscountedRandLinUCB, {"gamma": 1.5}, "algo.gamma"), (DiscountedRandLinUCB, {"gamma": "best"}, "algo.gamma"),
    (DiscountedRandLinUCB, {"alpha": 0.0}, "algo.alpha"), (DiscountedRandLinUCB, {"option": "decouple"}, "algo.option"),
    (DiscountedRandLinUCB, {"lam": -1.0}, "algo.lam"), (DiscountedRandLinUCB, {"delta": 1.0}, "algo.delta"),
    (DiscountedRandLinUCB, {"delta": None}, "algo.delta"), (DiscountedRandLinUCB, {"S": -1.0}, "algo.S"),
    (DiscountedLinTS, {"gamma": 0.0}, "algo.gamma"), (DiscountedLinTS, {"alpha": -1.0}, "algo.alpha"),
    (DiscountedLinTS, {"lam": 0.0}, "algo.lam"), (DiscountedLinTS, {"warmup": -1}, "algo.warmup"),
    (DiscountedLinTS, {"warmup": 1.5}, "algo.warmup"), (DiscountedLinTS, {"root": "svd"}, "algo.root"),
    (DiscountedLinTS, {"B_T": -2.0}, "algo.B_T"),
])
def test_bad_input_names_the_key(algo, kwargs, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        algo(**kwargs).check_params()


def switch_problem(T=4000, seed=0):
    """d = 2, the fixed actions e_1, e_2, (e_1 + e_2) / sqrt 2; theta = (1, 0) then (0, 1) from T/2."""
    feats = np.array([[[1.0, 0.0], [0.0, 1.0], [0.5 ** 0.5, 0.5 ** 0.5]]])
    theta = np.zeros((T, 2))
    theta[: T // 2] = [1.0, 0.0]
    theta[T // 2:] = [0.0, 1.0]
    means = np.einsum("kd,td->tk", feats[0], theta)
    rewards = means + 0.1 * np.random.default_rng(seed).standard_normal(means.shape)
    info = {"d": 2, "R": 0.1, "L": 1.0, "S": 1.0, "B_T": float(np.sqrt(2.0))}
    return feats, rewards, info


@pytest.mark.parametrize("algo", [DiscountedRandLinUCB, DiscountedLinTS])
def test_the_discount_tracks_a_switch_that_the_stationary_learner_misses(algo):
    """After theta turns from e_1 to e_2 at T/2, the discounted learner (the authors' gamma,
    0.99685 here) has moved to the new best action by the last tenth of the run; the same
    learner with gamma = 1 (no discount: stationary RandLinUCB / LinTS with a ridge) has not
    moved at all (measured: 0 of the 2000 rounds after the switch)."""
    feats, rewards, info = switch_problem()
    T = len(rewards)
    for seed in (0, 1):
        disc = algo().play(rewards, info, np.random.default_rng(seed), features=feats)
        flat = algo(gamma=1.0).play(rewards, info, np.random.default_rng(seed), features=feats)
        assert (disc[-T // 10:] == 1).mean() > 0.9 and (disc[T // 2:] == 1).mean() > 0.25
        assert (flat[T // 2:] == 1).mean() < 0.05
