"""One conformance suite that every algorithm and every environment must pass
(in the spirit of scikit-learn's estimator checks). New algorithms and
environments are picked up from their configs automatically: the package's
(``bandits/conf``) and your own (the folders of ``DRIFT_BANDITS_CONF``). The
algorithms' checks are the library's (:mod:`bandits.conformance`), the ones
``drift-bandits check`` runs on a user's policy: one suite, not two."""

from functools import cache

import numpy as np
import pytest
from conftest import compose

from bandits.conformance import CHECKS, check, trial
from bandits.environments import Table
from bandits.environments.base import KIND_KEYS, LEARNER_KEYS, PROBLEM_KINDS, kind_of
from bandits.experiments.compose import registry
from bandits.experiments.compose.building import build
from bandits.simulation import evaluate, learner_info, problem_kinds, stream

# every algorithm and environment config, the package's and your own (DRIFT_BANDITS_CONF)
ALGOS = [name for name in registry.names("algo") if name != "custom"]
ENVS = registry.names("env")


def algo_from_conf(name):
    from omegaconf import OmegaConf

    return build(OmegaConf.to_container(compose([f"algo={name}"]).algo, resolve=True), "algo")[1]


def all_algos():
    algos = [(n, algo_from_conf(n)) for n in ALGOS]
    from bandits.reference import ReferenceSWUCB
    algos.append(("reference_protocol_policy", ReferenceSWUCB(window=50)))
    return algos


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    means = np.clip(0.5 + np.cumsum(rng.normal(0, 0.02, (600, 3)), axis=0), 0, 1)
    path = tmp_path_factory.mktemp("table") / "problem.npz"
    np.savez(path, means=means)
    return path


@pytest.fixture(scope="module")
def contextual_file(tmp_path_factory):
    """A logged contextual table: X (1200 x 3) and rewards R in [0, 1] (500 held-out rows + the played ones)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 3))
    path = tmp_path_factory.mktemp("contextual") / "logged.npz"
    np.savez(path, X=X, R=1 / (1 + np.exp(-X @ rng.normal(size=(3, 4)))))
    return path


def env_from_conf(name, table_file, contextual_file=None, extra=()):
    from omegaconf import OmegaConf

    files = {"table": table_file, "contextual_table": contextual_file}
    overrides = [f"env={name}"] + ([f"env.path={files[name]}"] if name in files else []) + list(extra)
    return build(OmegaConf.to_container(compose(overrides).env, resolve=True), "env")[1]


@pytest.fixture(scope="module")
def named_files(tmp_path_factory):
    """Tables as they come: a K-armed table with named mean columns, and a classification table with
    named features, text labels and a text column."""
    import pandas as pd

    d = tmp_path_factory.mktemp("named")
    rng = np.random.default_rng(1)
    means = np.clip(0.5 + np.cumsum(rng.normal(0, 0.02, (600, 3)), axis=0), 0, 1)
    pd.DataFrame({"a": means[:, 0], "b": means[:, 1], "c": means[:, 2], "note": "x"}).to_csv(d / "named.csv",
                                                                                           index=False)
    X = rng.normal(size=(1200, 3))
    species = np.array(["fish", "cat", "dog", "ant"])[(X @ rng.normal(size=(3, 4))).argmax(axis=1)]
    pd.DataFrame({"age": X[:, 0], "income": X[:, 1], "score": X[:, 2], "species": species,
                  "city": rng.choice(["Oslo", "Lima"], 1200)}).to_parquet(d / "pets.parquet")
    return {"table": d / "named.csv", "contextual_table": d / "pets.parquet"}


# the environments' other modes, checked like their default configs (name, overrides; {path}: a named file)
VARIANTS = {
    "table-clipped": ("table", ["env.reward_range=[0,1]", "env.noise=clipped"]),
    "table-bernoulli": ("table", ["env.reward_range=[0,1]", "env.noise=bernoulli"]),
    "table-named-columns": ("table", ["env.path={path}", "env.means=[c,a,b]", "env.reward_range=[0,1]",
                                      "env.noise=clipped", "env.R=0.3"]),
    "contextual_table-named-text-labels": ("contextual_table", ["env.path={path}", "env.source=supervised",
                                                                "env.features=[score,age]", "env.label=species"]),
    "contextual_table-default-features-permutation": ("contextual_table", [
        "env.path={path}", "env.source=supervised", "env.label=species", "env.drift=permutation"]),
}


def variant(key, table_file, contextual_file, named_files):
    name, extra = VARIANTS[key]
    return name, env_from_conf(name, table_file, contextual_file,
                               [e.format(path=named_files[name]) for e in extra])


KINDS = tuple(PROBLEM_KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_the_suites_problems_are_of_their_kind(kind):
    inst, rewards = trial(kind)
    assert kind_of(inst.info) == kind and rewards.shape == inst.means.shape


# every algorithm against every kind of problem it declares (problem_kinds)
PAIRS = [(name, algo, kind) for name, algo in all_algos() for kind in problem_kinds(algo)]
IDS = [f"{n}-{k}" for n, _, k in PAIRS]


@cache
def report(name, kind):
    """The conformance suite (bandits.conformance, what `drift-bandits check` runs) on one pair,
    run once for the tests below, which each assert their part of it."""
    algo = {n: a for n, a, _ in PAIRS}[name]
    return check(algo, kinds=(kind,))


def assert_passes(name, kind, checks):
    found = report(name, kind)
    failed = [n for n in checks if found.outcomes[n].status != "PASS"]
    assert not failed, f"{name} on {kind} does not pass {', '.join(failed)}:\n{found}"


@pytest.mark.parametrize("name,algo,kind", PAIRS, ids=IDS)
def test_algorithm_conformance(name, algo, kind):
    """The methods and declarations, parameters only stored (all recorded), valid actions with the
    rewards left unmodified, the same seed the same trajectory; and the evaluation of that
    trajectory adds up."""
    assert_passes(name, kind, ("protocol", "parameters", "runs", "determinism"))
    inst, rewards = trial(kind)
    a1 = report(name, kind).trajectories[kind]
    T, K = rewards.shape
    masks = bool(inst.info.get("semibandit"))
    curves = evaluate(inst.means, rewards, a1, inst.optimal, masks)
    # no NaN, regret >= 0 and non-decreasing (pseudo-regret against the per-round optimum)
    assert np.isfinite(curves["regret"]).all() and np.isfinite(curves["reward"]).all()
    assert curves["regret"][0] >= 0 and (np.diff(curves["regret"]) >= -1e-12).all()
    # reward accounting matches the environment: realised = sum of the chosen arms' rewards,
    # expected reward + regret = sum of the per-round optimum
    if masks:
        bits = ((a1[:, None] >> np.arange(K)) & 1).astype(bool)
        assert curves["reward"][-1] == pytest.approx((rewards * bits).sum(), rel=1e-12)
        assert (inst.means * bits).sum() + curves["regret"][-1] == pytest.approx(inst.optimal.sum())
        return
    assert curves["reward"][-1] == pytest.approx(rewards[np.arange(T), a1].sum(), rel=1e-12)
    best = inst.means.max(axis=1) if inst.optimal is None else inst.optimal
    assert inst.means[np.arange(T), a1].sum() + curves["regret"][-1] == pytest.approx(best.sum())
    # no policy can lose more than the worst arm every round
    assert curves["regret"][-1] <= (inst.means.max(axis=1) - inst.means.min(axis=1)).sum() + 1e-9


@pytest.mark.parametrize("name,algo,kind", PAIRS, ids=IDS)
def test_algorithm_learns_only_from_the_rewards_it_chose(name, algo, kind):
    """Bandit feedback, enforced: the trajectory does not depend on unchosen rewards."""
    assert_passes(name, kind, ("feedback",))


@pytest.mark.parametrize("name,algo,kind", PAIRS, ids=IDS)
def test_algorithm_declares_what_it_needs_from_the_environment(name, algo, kind):
    """The contract: an algorithm handed only its kind's structure (KIND_KEYS) and what it
    declares in needs() runs exactly as with everything a learner may be told."""
    assert_passes(name, kind, ("needs",))


def test_the_three_tests_above_cover_every_check_of_a_policy_run_alone():
    covered = {"protocol", "parameters", "runs", "determinism", "feedback", "needs"}
    assert covered == set(CHECKS) - {"independence"}  # batched policies only: tests/test_check.py


class Clairvoyant:
    """Plays the arm whose realised reward is largest: it reads every reward."""
    problem_kinds = KINDS

    def play(self, rewards, info, rng, features=None):
        return np.argmax(np.nan_to_num(rewards, nan=-np.inf), axis=1)


def test_feedback_check_catches_an_algorithm_that_peeks():
    found = check(Clairvoyant(), kinds="karmed")
    assert found.failed == ["feedback"], found
    assert "it reads rewards it did not choose" in found.outcomes["feedback"].detail


class InfoSpy:
    """Records the keys of ``info`` it is handed, on every kind of problem."""
    problem_kinds = KINDS
    seen: list = []

    def check_params(self):
        pass

    def play(self, rewards, info, rng, features=None):
        InfoSpy.seen.append(set(info))
        if info.get("semibandit"):
            return np.full(rewards.shape[0], 2 ** info["m"] - 1, dtype=np.int64)
        return np.zeros(rewards.shape[0], dtype=np.int64)


class ProtocolSpy:
    """The same, as a protocol policy (K-armed and linear problems)."""
    problem_kinds = ("karmed", "linear", "pricing", "contextual", "glb")

    def reset(self, n_arms, horizon, rng, info):
        InfoSpy.seen.append(set(info))

    def select(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


@pytest.mark.parametrize("name", ENVS + list(VARIANTS))
def test_no_policy_receives_evaluation_only_data(name, table_file, contextual_file, named_files, tmp_path):
    """Through the real runner, a policy is handed learner information only: no key of
    the instance's evaluation data (change points, optimal policy, variation, the label
    map and the columns read, ...)."""
    from bandits import simulate

    if name in VARIANTS:
        name, env = variant(name, table_file, contextual_file, named_files)
    else:
        env = env_from_conf(name, table_file, contextual_file)
    env.check_params(300)
    inst = env.instance(300, stream(0, 0, 300))
    spies = {"spy": InfoSpy()} if name == "drifting_semibandit" else {"spy": InfoSpy(), "protocol": ProtocolSpy()}
    InfoSpy.seen = []
    simulate(env=env, algos=spies, T=300, trials=1, seed=0)
    assert len(InfoSpy.seen) >= len(spies)  # (the warm-up run of a built-in-like object counts too)
    for keys in InfoSpy.seen:
        assert keys <= set(LEARNER_KEYS) | {"features"}, keys - set(LEARNER_KEYS)
        assert not keys & set(inst.evaluation), keys & set(inst.evaluation)


def test_oracle_reference_gets_change_points_through_its_channel_only():
    inst, _ = trial("contextual")
    oracle, learner = algo_from_conf("oracle_restart"), algo_from_conf("iltcb")
    assert learner_info(oracle, inst)["oracle"] == {"change_points": inst.evaluation["change_points"]}
    assert "oracle" not in learner_info(learner, inst)
    assert not set(learner_info(oracle, inst)) & set(inst.evaluation)


def test_instance_refuses_unclassified_learner_keys():
    from bandits.environments.base import Instance

    with pytest.raises(TypeError, match="optimal_policy"):
        Instance(means=np.zeros((3, 2)), info={"d": 2, "optimal_policy": [0, 1, 0]})


@pytest.mark.parametrize("name", ENVS + list(VARIANTS))
def test_environment_conformance(name, table_file, contextual_file, named_files):
    if name in VARIANTS:
        name, env = variant(name, table_file, contextual_file, named_files)
    else:
        env = env_from_conf(name, table_file, contextual_file)
    T = 500
    env.check_params(T)
    inst = env.instance(T, stream(0, 0, T))
    assert env.problem_kind() == kind_of(inst.info) and env.problem_kind() in env.problem_kinds
    assert set(KIND_KEYS[env.problem_kind()]) <= set(inst.info)  # the structure every algorithm of the kind may read
    assert env.footprint(T) >= inst.means.nbytes  # what the memory check counts covers the instance
    again = env.instance(T, stream(0, 0, T))
    np.testing.assert_array_equal(inst.means, again.means)
    assert inst.means.shape[0] == T and inst.means.shape[1] >= 2 and np.isfinite(inst.means).all()
    if inst.info.get("semibandit"):
        assert inst.optimal.shape == (T,) and (inst.optimal >= np.sort(inst.means, axis=1)[:, -1] - 1e-12).all()
    elif inst.info.get("contextual"):
        # S and Delta are told when known: always for synthetic drift, never for a data file's own drift
        for key in ("S_switches", "Delta_TV") if inst.evaluation.get("synthetic") else ():
            assert key in inst.info
        for key in ("policy_actions", "contexts"):
            assert key in inst.info
        assert "optimal_policy" in inst.evaluation and "change_points" in inst.evaluation
        assert inst.optimal is not None and inst.optimal.shape == (T,)
        assert inst.info["policy_actions"].shape == (T, inst.info["n_policies"])
    else:
        for key in ("R", "L", "S", "B_T", "d"):
            assert key in inst.info
        if not inst.info.get("linear"):  # K arms: theta_t is the row of means
            assert inst.info["S"] >= np.sqrt((inst.means ** 2).sum(axis=1)).max() - 1e-12
        ev = inst.evaluation
        assert ev["variation_inf"] >= 0 and ev["variation_l2"] >= ev["variation_inf"] - 1e-12
    r1 = env.rewards(inst, stream(0, 1, T, 0))
    r2 = env.rewards(inst, stream(0, 1, T, 0))
    np.testing.assert_array_equal(r1, r2)
    assert r1.shape == inst.means.shape and np.isfinite(r1).all()
    if "reward_range" in inst.info:  # a range the learner is told is one the rewards keep
        lo, hi = inst.info["reward_range"]
        assert lo <= r1.min() and r1.max() <= hi and lo <= inst.means.min() and inst.means.max() <= hi
    assert not {"label_map", "feature_columns", "mean_columns"} & set(inst.info)  # evaluation data
    # noise is centred on the means: mean residual within 5 standard errors
    resid = (r1 - inst.means).ravel()
    sd = inst.info.get("R", 0.5)  # Bernoulli rewards: sd <= 1/2
    assert abs(resid.mean()) <= 5 * max(sd, 1e-12) / np.sqrt(resid.size) + 1e-12


def test_sinusoid_is_the_paper_formula():
    from bandits.environments import Sinusoid

    T = 1000
    inst = Sinusoid(B_T_exponent=1 / 3).instance(T)
    B = T ** (1 / 3)
    t = 137
    assert inst.means[t - 1, 0] == pytest.approx(0.5 + 0.3 * np.sin(5 * B * np.pi * t / T))
    assert inst.means[t - 1, 1] == pytest.approx(0.5 + 0.3 * np.sin(np.pi + 5 * B * np.pi * t / T))
    assert inst.info["B_T"] == pytest.approx(B)


def test_table_replays_given_rewards(tmp_path):
    means = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    rewards = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    np.savez(tmp_path / "p.npz", means=means, rewards=rewards)
    env = Table(path=str(tmp_path / "p.npz"))
    env.check_params(2)
    inst = env.instance(2)
    np.testing.assert_array_equal(env.rewards(inst, stream(0)), rewards[:2])


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_table_reads_columnar_files(tmp_path, fmt):
    import pandas as pd

    means = np.random.default_rng(0).random((20, 3))
    frame = pd.DataFrame({f"mean_{k}": means[:, k] for k in range(3)})
    path = tmp_path / f"p.{fmt}"
    frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path)
    env = Table(path=str(path))
    env.check_params(20)
    np.testing.assert_allclose(env.instance(20).means, means, rtol=1e-15)
