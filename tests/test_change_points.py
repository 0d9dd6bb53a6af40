"""Change points from the data: the table environment derives Upsilon_T, the change points and
min_change from its means (overridable), contextual_table takes declared change points (a list
or a column of piece ids) into its per-piece comparator, and every environment records where
its change points come from, what its regret is measured against and whether the noise varies
between trials."""

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, compose

from bandits import simulate
from bandits.environments import ContextualTable, Table, change_points
from bandits.environments.base import CHANGE_POINT_SOURCES, COMPARATORS, EVALUATION_KEYS
from bandits.errors import ConfigError
from bandits.experiments import cli
from bandits.experiments.compose import registry
from bandits.simulation import evaluate, stream

TWO_ARMS = ROOT / "examples" / "two_arms.csv"


def step_file(tmp_path, T=1000):
    """Two arms in [0, 1]: arm 1 jumps from 0.3 to 0.7 at round 300, arm 0 falls from 0.6 to 0.5 at 700."""
    means = np.empty((T, 2))
    means[:, 0] = np.where(np.arange(T) < 700, 0.6, 0.5)
    means[:, 1] = np.where(np.arange(T) < 300, 0.3, 0.7)
    path = tmp_path / "steps.csv"
    pd.DataFrame({"mean_0": means[:, 0], "mean_1": means[:, 1]}).to_csv(path, index=False)
    return path, means


def table(path, T, **kw):
    env = Table(path=str(path), **kw)
    env.check_params(T)
    return env.instance(T, stream(0, 0, T))


def test_the_shared_definitions_by_hand():
    means = np.array([[0.5, 0.2], [0.5, 0.2], [0.7, 0.2], [0.7, 0.25], [0.7, 0.25]])
    assert change_points.from_means(means) == [2, 3]
    assert change_points.from_means(means, tol=0.1) == [2]
    assert change_points.smallest_change(means, [2, 3]) == pytest.approx(0.05)  # min(0.2, 0.05)
    assert change_points.smallest_change(means, []) == 0.0
    ids = np.array(["a", "a", "b", "b", "a"], dtype=object)  # piece ids; rows 1..4 played
    assert change_points.from_column(ids, 1, 4) == [1, 3]
    assert change_points.check_declared("env.change_points", [2.0, 3], 5) == [2, 3]


# ----------------------------------------------------------------------------- table: derived, overridable

def test_table_derives_the_change_points_upsilon_and_min_change_from_its_means(tmp_path):
    path, _ = step_file(tmp_path)
    inst = table(path, 1000)
    assert inst.evaluation["change_points"] == [300, 700]
    assert inst.evaluation["change_points_source"] == "derived from means"
    assert inst.evaluation["declared_keys"] == []
    assert inst.info["Upsilon_T"] == 2
    assert inst.info["min_change"] == pytest.approx(0.1)  # the smaller of the moves 0.4 (round 300) and 0.1 (700)
    assert "change_points" not in inst.info and "change_points_note" not in inst.evaluation  # evaluation only
    short = table(path, 500)  # only the rounds played count
    assert short.evaluation["change_points"] == [300] and short.info["min_change"] == pytest.approx(0.4)


def test_sw_ucb_gm_runs_on_a_table_from_the_command_line_told_the_derived_upsilon(tmp_path):
    path, _ = step_file(tmp_path)
    args = ["env=table", f"env.path={path}", "T=1000", "algo=sw_ucb_gm", "trials=1", "env.reward_range=[0,1]",
            "env.noise=bernoulli", f"results_dir={tmp_path / 'out'}"]
    assert cli.entry(args) == 0
    rows = pd.read_parquet(tmp_path / "out" / "tables" / "adhoc.parquet")
    assert json.loads(rows["algo_params"].iloc[0])["derived"]["Upsilon_T"] == 2
    info = json.loads(rows["env_info"].iloc[0])
    assert info["change_points"] == [300, 700] and info["change_points_source"] == "derived from means"
    assert info["trial_noise"] is True and info["comparator"] == "best action per round"
    # the tour's file: its mean_0 drifts slowly, so nearly every round is a change point, and the run says so
    args = ["env=table", f"env.path={TWO_ARMS}", "T=2000", "algo=sw_ucb_gm", "trials=1", "env.reward_range=[0,1]",
            "env.noise=bernoulli", "experiment_name=tour", f"results_dir={tmp_path / 'out'}"]
    assert cli.entry(args) == 0
    info = json.loads(pd.read_parquet(tmp_path / "out" / "tables" / "tour.parquet")["env_info"].iloc[0])
    assert 1000 in info["change_points"] and info["Upsilon_T"] == len(info["change_points"]) > 1000
    assert "gradual drift" in info["change_points_note"]


def test_declared_change_points_upsilon_and_min_change_win_over_the_derived_ones(tmp_path):
    path, _ = step_file(tmp_path)
    inst = table(path, 1000, change_points=[300])
    assert inst.evaluation["change_points"] == [300] and inst.evaluation["change_points_source"] == "declared"
    assert inst.info["Upsilon_T"] == 1 and inst.info["min_change"] == pytest.approx(0.4)  # at the declared round
    assert inst.evaluation["declared_keys"] == ["change_points"]
    inst = table(path, 1000, Upsilon_T=5, min_change=0.05)
    assert inst.info["Upsilon_T"] == 5 and inst.info["min_change"] == 0.05
    assert inst.evaluation["change_points"] == [300, 700]  # still derived: the evaluation's truth
    assert inst.evaluation["declared_keys"] == ["Upsilon_T", "min_change"]
    inst = table(path, 1000, change_points=[])  # declared stationary
    assert inst.info["Upsilon_T"] == 0 and inst.info["min_change"] == 0.0


def test_change_tol_ignores_rounding_noise_and_a_smooth_drift_changes_at_every_round(tmp_path):
    rng = np.random.default_rng(0)
    means = np.column_stack([np.full(400, 0.5), np.where(np.arange(400) < 200, 0.2, 0.8)])
    noisy = means + rng.uniform(-1e-12, 1e-12, means.shape)
    np.savez(tmp_path / "noisy.npz", means=noisy)
    assert len(table(tmp_path / "noisy.npz", 400).evaluation["change_points"]) > 300  # exact: every round moves
    inst = table(tmp_path / "noisy.npz", 400, change_tol=1e-9)
    assert inst.evaluation["change_points"] == [200] and inst.info["min_change"] == pytest.approx(0.6)
    t = np.arange(400)[:, None]
    np.savez(tmp_path / "sine.npz", means=0.5 + 0.3 * np.sin(2 * np.pi * t / 400 + np.array([0.0, 2.0])))
    inst = table(tmp_path / "sine.npz", 400)
    assert inst.info["Upsilon_T"] == 399 and inst.evaluation["change_points"] == list(range(1, 400))
    assert inst.evaluation["change_points_note"] == "the means move at 399 of 399 rounds: gradual drift"


# final_regret on examples/two_arms.csv computed by main before the table told Upsilon_T and min_change
# (cb655d6): (env settings, algorithms) -> final_regret sorted by algorithm, then trial, at T = 500, seed 0
TWO_ARMS_REGRET = {
    "gaussian": ({}, ["sw_ucb", "ucb"], [3.060099999999999, 4.1583, 2.6113999999999993, 3.4286999999999996]),
    "bernoulli": ({"reward_range": [0, 1], "noise": "bernoulli"}, ["kl_ucb", "ucb1"],
                  [2.639099999999999, 11.606499999999997, 7.195599999999998, 18.9189]),
    "clipped": ({"reward_range": [0, 1], "noise": "clipped"}, ["kl_ucb", "sw_ucb"],
                [5.887244444315286, 5.821256524691409, 3.0600824175831174, 4.158272169752719]),
}


@pytest.mark.parametrize("case", sorted(TWO_ARMS_REGRET))
def test_the_table_regret_of_the_tour_file_is_unchanged(case):
    env, algos, expected = TWO_ARMS_REGRET[case]
    rows = simulate(env={"name": "table", "path": str(TWO_ARMS), **env}, algos=algos, T=500, trials=2, seed=0)
    assert rows.sort_values(["algo", "trial"])["final_regret"].tolist() == expected  # the same floats


# Upsilon_T, min_change and B_T of piecewise_bernoulli instances as main computed them (cb655d6), T = 2000, seed 0
PIECEWISE = {
    "default": ([], 4, 0.5212860404472685, 2.6702776927294805),
    "geo": (["env.draw=geo", "env.change_points=bernoulli", "env.change_prob=0.01"], 20, 0.13435811145461818,
            6.593124574341608),
    "geo_worst": (["env.draw=geo_worst", "env.n_changes=6"], 6, 0.021505658346523737, 0.47139481662694305),
    "means": (["env.means=[[0.9,0.1],[0.1,0.9],[0.5,0.5]]"], 2, 0.4, 1.2000000000000002),
}


@pytest.mark.parametrize("case", sorted(PIECEWISE))
def test_piecewise_bernoulli_min_change_is_unchanged_by_the_shared_definition(case):
    extra, upsilon, min_change, B_T = PIECEWISE[case]
    env = built_env(["env=piecewise_bernoulli", *extra])
    env.check_params(2000)
    inst = env.instance(2000, stream(0, 0, 2000))
    assert (inst.info["Upsilon_T"], inst.info["min_change"], inst.info["B_T"]) == (upsilon, min_change, B_T)


# ----------------------------------------------------------------------------- contextual_table: declared

def drifting_log(tmp_path, k=150, rows=300):
    """A logged table whose reward columns swap at row k: arm 0 pays before, arm 1 after."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(rows, 2))
    after = np.arange(rows) >= k
    R = np.column_stack([~after, after]).astype(float)
    path = tmp_path / "drift.csv"
    pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "r0": R[:, 0], "r1": R[:, 1],
                  "regime": np.where(after, "after", "before")}).to_csv(path, index=False)
    return path


def contextual(path, T, **kw):
    env = ContextualTable(path=str(path), fit_rows=0, n_fitted=0, n_policies=20, features=["x0", "x1"], **kw)
    env.check_params(T)
    return env, env.instance(T, stream(0, 0, T))


def test_declared_change_points_give_dynamic_regret_against_the_best_policy_per_piece(tmp_path):
    path = drifting_log(tmp_path)
    _, fixed = contextual(path, 300)
    _, pieces = contextual(path, 300, change_points=[150])
    _, column = contextual(path, 300, change_column="regime")
    assert fixed.evaluation["change_points"] == [] and fixed.evaluation["change_points_source"] == "none"
    assert fixed.evaluation["comparator"] == "best fixed policy"
    for inst in (pieces, column):
        assert inst.evaluation["change_points"] == [150] and inst.evaluation["change_points_source"] == "declared"
        assert inst.evaluation["comparator"] == "best policy per piece"
        np.testing.assert_array_equal(inst.optimal, pieces.optimal)
        assert set(inst.info) == set(fixed.info)  # nothing new is told to a learner
    assert column.evaluation["change_column"] == "regime"
    opt = pieces.evaluation["optimal_policy"]
    assert opt[0] != opt[-1]  # a different policy is best after the drift
    gain = float((pieces.optimal - fixed.optimal).sum())
    assert gain > 0  # the per-piece comparator is strictly better than the fixed one
    actions = np.zeros(300, dtype=np.int64)
    regret = lambda inst: evaluate(inst.means, inst.rewards, actions, inst.optimal)["regret"][-1]  # noqa: E731
    assert regret(pieces) == pytest.approx(regret(fixed) + gain)
    # through the runner: the same actions (the change points are not told), a larger regret by the gain
    runs = {}
    for name, extra in (("fixed", {}), ("pieces", {"change_points": [150]})):
        env = {"name": "contextual_table", "path": str(path), "fit_rows": 0, "n_fitted": 0, "n_policies": 20,
               "features": ["x0", "x1"], **extra}
        runs[name] = simulate(env=env, algos=["epsilon_greedy"], T=300, trials=1, seed=0)
    assert runs["pieces"]["final_regret"].iloc[0] == pytest.approx(runs["fixed"]["final_regret"].iloc[0] + gain)
    info = json.loads(runs["pieces"]["env_info"].iloc[0])
    assert info["change_points"] == [150] and info["comparator"] == "best policy per piece"


def test_change_points_count_among_the_played_rows(tmp_path):
    path = drifting_log(tmp_path, k=250, rows=400)
    env = ContextualTable(path=str(path), fit_rows=100, n_fitted=2, n_policies=10, change_column="regime")
    env.check_params(300)
    inst = env.instance(300, stream(0, 0, 300))
    assert inst.evaluation["change_points"] == [150]  # row 250 is the 150th played row after 100 held out


def test_permutation_drift_takes_a_list_of_rounds(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "sup.npz"
    np.savez(path, X=rng.normal(size=(400, 2)), y=np.zeros(400, dtype=int))
    env = ContextualTable(path=str(path), source="supervised", K=3, drift="permutation", change_points=[50, 320],
                          fit_rows=0, n_fitted=0)
    env.check_params(400)
    inst = env.instance(400, stream(0, 0, 400))
    assert inst.evaluation["change_points"] == [50, 320] and inst.evaluation["change_points_source"] == "generator"
    assert (np.flatnonzero(np.diff(inst.means.argmax(axis=1))) + 1).tolist() == [50, 320]


BAD_POINTS = [  # (value, words of the paragraph)
    ([0], ["env.change_points", "[0]", "0 lies outside 1..99"]),
    ([100], ["env.change_points", "100 lies outside 1..99"]),
    ([40, 20], ["env.change_points", "[40, 20]", "20 follows 40"]),
    ([30, 30], ["30 follows 30"]),
    ([12.5], ["12.5 is not a whole number"]),
    ([True], ["True is not a whole number"]),
    (["ten"], ["'ten' is not a whole number"]),
    (50, ["env.change_points", "got 50", "e.g. env.change_points=[50]"]),
]


@pytest.mark.parametrize("value,words", BAD_POINTS, ids=range(len(BAD_POINTS)))
def test_bad_declared_change_points_give_one_paragraph(tmp_path, value, words):
    path, _ = step_file(tmp_path)
    for env in (Table(path=str(path), change_points=value),
                ContextualTable(path=str(drifting_log(tmp_path)), fit_rows=0, n_fitted=0, change_points=value)):
        with pytest.raises(ConfigError) as err:
            env.check_params(100)
        message = str(err.value)
        assert "\n" not in message and "1..99" in message and all(w in message for w in words), message


def test_a_bad_declaration_stops_the_command_line_with_one_paragraph(tmp_path, capsys):
    path, _ = step_file(tmp_path)
    assert cli.entry(["env=table", f"env.path={path}", "T=100", "algo=ucb", "trials=1", "env.change_points=[0,50]",
                      f"results_dir={tmp_path / 'out'}"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "env.change_points" in errors[0] and "0 lies outside 1..99" in errors[0], err


CONTEXTUAL_BAD = [  # (settings, words)
    ({"change_points": "evenly"}, ["env.change_points='evenly'", "even or random", "a list of the rounds"]),
    ({"change_column": "regime", "change_points": [10]}, ["give one of them"]),
    ({"change_column": ["regime", "x0"]}, ["names one column"]),
    ({"change_column": "regme"}, ["env.change_column names 'regme'", "did you mean 'regime'?"]),
    ({"change_column": "x0"}, ["column 'x0' is a context feature"]),
    ({"change_column": "r1"}, ["column 'r1' is the reward columns"]),
    ({"source": "supervised", "change_points": [10], "drift": "rotation"}, ["env.drift=rotation", "env.turns"]),
    ({"source": "supervised", "change_column": "regime", "drift": "permutation"}, ["env.drift=permutation"]),
    ({"source": "river", "dataset": "sea", "change_points": [10]}, ["a river dataset brings its own"]),
]


@pytest.mark.parametrize("settings,words", CONTEXTUAL_BAD, ids=range(len(CONTEXTUAL_BAD)))
def test_each_bad_change_point_setting_of_contextual_table_gives_its_paragraph(tmp_path, settings, words):
    path = drifting_log(tmp_path)
    if settings.get("source") == "supervised":
        path = tmp_path / "sup.csv"
        pd.DataFrame({"x0": [0.0, 1.0] * 50, "label": [0, 1] * 50, "regime": [0] * 100}).to_csv(path, index=False)
    kw = {"path": str(path), "fit_rows": 0, "n_fitted": 0, **settings}
    if kw.get("source") == "river":
        kw.pop("path")
    with pytest.raises(ConfigError) as err:
        ContextualTable(**kw).check_params(100)
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message


# ----------------------------------------------------------------------------- every environment: evaluation keys

def built_env(overrides):
    from omegaconf import OmegaConf

    from bandits.experiments.compose.building import build

    return build(OmegaConf.to_container(compose(overrides).env, resolve=True), "env")[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("files")
    rng = np.random.default_rng(0)
    means = np.clip(0.5 + np.cumsum(rng.normal(0, 0.02, (300, 3)), axis=0), 0, 1)
    np.savez(d / "means.npz", means=means)
    np.savez(d / "replayed.npz", means=means, rewards=(rng.random(means.shape) < means).astype(float))
    X = rng.normal(size=(300, 3))
    np.savez(d / "logged.npz", X=X, R=1 / (1 + np.exp(-X @ rng.normal(size=(3, 3)))))
    np.savez(d / "classes.npz", X=X, y=rng.integers(0, 3, size=300))
    return d


# environment configs beyond the defaults, with whether their rewards vary between trials
CASES = {
    "table-gaussian": (["env=table", "env.path={d}/means.npz"], True),
    "table-no-noise": (["env=table", "env.path={d}/means.npz", "env.R=0"], False),
    "table-replayed": (["env=table", "env.path={d}/replayed.npz"], False),
    "table-bernoulli": (["env=table", "env.path={d}/means.npz", "env.reward_range=[0,1]", "env.noise=bernoulli"], True),
    "table-clipped": (["env=table", "env.path={d}/means.npz", "env.reward_range=[0,1]", "env.noise=clipped"], True),
    "contextual-file": (["env=contextual_table", "env.path={d}/logged.npz", "env.fit_rows=100"], False),
    "contextual-supervised": (["env=contextual_table", "env.path={d}/classes.npz", "env.source=supervised",
                               "env.fit_rows=100"], False),
    "contextual-permutation": (["env=contextual_table", "env.path={d}/classes.npz", "env.source=supervised",
                                "env.fit_rows=100", "env.drift=permutation"], False),
    "contextual-rotation": (["env=contextual_table", "env.path={d}/classes.npz", "env.source=supervised",
                             "env.fit_rows=100", "env.drift=rotation"], True),
    "contextual-river": (["env=contextual_table", "env.source=river", "env.dataset=sea", "env.fit_rows=50"], False),
    "sinusoid-no-noise": (["env=sinusoid", "env.R=0"], False),
    "piecewise_bernoulli-certain": (["env=piecewise_bernoulli", "env.means=[[1,0],[0,1]]"], False),
    "drifting_contextual-drifting": (["env=drifting_contextual", "env.mode=drifting", "env.n_policies=20",
                                      "env.d=3", "env.K=3"], True),
}
for _name in registry.names("env"):
    if _name not in ("table", "contextual_table"):
        CASES.setdefault(_name, ([f"env={_name}"], None))  # None: the rewards of two trials decide


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_environment_records_its_change_points_comparator_and_trial_noise(case, files):
    overrides, noisy = CASES[case]
    env = built_env([o.format(d=files) for o in overrides])
    T = 200
    env.check_params(T)
    inst = env.instance(T, stream(0, 0, T))
    ev = inst.evaluation
    assert set(EVALUATION_KEYS) - {"change_points"} <= set(ev) and not set(EVALUATION_KEYS) & set(inst.info)
    assert ev["change_points_source"] in CHANGE_POINT_SOURCES and ev["comparator"] in COMPARATORS
    assert "change_points" in ev or ev["change_points_source"] == "none"  # left out only for a gradual drift
    points = ev.get("change_points", [])
    assert isinstance(points, list) and points == sorted(set(points)) and all(1 <= c < T for c in points)
    assert isinstance(ev["trial_noise"], bool)
    # trial_noise says whether two trials see different rewards
    varies = not np.array_equal(env.rewards(inst, stream(0, 1, T, 0)), env.rewards(inst, stream(0, 1, T, 1)))
    assert ev["trial_noise"] == varies and noisy in (None, varies)
    if ev["comparator"] == "best action per round":
        assert inst.optimal is None or (inst.info.get("semibandit") and inst.optimal.shape == (T,))
    if inst.info.get("contextual"):  # the per-piece comparator: the best fixed policy when no change is known
        assert (ev["comparator"] == "best fixed policy") == (not points and ev["comparator"] != "best policy per round")
