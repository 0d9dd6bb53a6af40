"""env=contextual_table: a user's logged contexts and rewards, and supervised tables turned
into bandits (arm = label), with induced drift and a policy class fitted on held-out rows."""

import subprocess
import sys
import types

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from bandits.environments import ContextualTable
from bandits.environments.contextual_table import best_policy_per_piece, ridge_policies
from bandits.errors import ConfigError
from bandits.simulation import evaluate, stream


def make(tmp_path, name="data.npz", **arrays):
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


def built(path, T, **kw):
    env = ContextualTable(path=str(path), **kw)
    env.check_params(T)
    return env, env.instance(T, stream(0, 0, T))


def test_supervised_conversion_by_hand(tmp_path):
    X = np.arange(8.0).reshape(4, 2)
    path = make(tmp_path, X=X, y=np.array([0, 2, 1, 2]))
    env, inst = built(path, 4, source="supervised", fit_rows=0, n_policies=3, n_fitted=0)
    np.testing.assert_array_equal(inst.means, [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]])
    np.testing.assert_array_equal(inst.means.argmax(axis=1), [0, 2, 1, 2])  # the best arm is the label
    np.testing.assert_array_equal(env.rewards(inst, stream(0, 1, 4, 0)), inst.means)  # replayed
    np.testing.assert_array_equal(inst.info["contexts"], X)
    assert inst.info["K"] == 3 and inst.info["d"] == 2 and inst.info["reward_range"] == (0.0, 1.0)
    # multi-label: the label's indicator; K = env.K widens a label set that misses the last class
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0]])
    _, inst = built(make(tmp_path, "m.npz", X=X, Y=Y), 4, source="supervised", fit_rows=0, n_fitted=0)
    np.testing.assert_array_equal(inst.means, Y)
    _, inst = built(make(tmp_path, "k.npz", X=X, y=np.array([0, 1, 1, 0])), 4, source="supervised", K=4,
                    fit_rows=0, n_fitted=0)
    assert inst.means.shape == (4, 4) and not inst.means[:, 2:].any()


def test_cost_form_and_columnar_files(tmp_path):
    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(6, 2)), rng.random((6, 3))
    _, inst = built(make(tmp_path, X=X, C=C), 6, fit_rows=0, n_fitted=0)
    np.testing.assert_allclose(inst.means, 1 - C)  # reward = 1 - cost
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], **{f"c{k}": C[:, k] for k in range(3)}})
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet")
    for name in ("t.csv", "t.parquet"):
        _, again = built(tmp_path / name, 6, fit_rows=0, n_fitted=0)
        np.testing.assert_allclose(again.means, 1 - C)
        np.testing.assert_allclose(again.info["contexts"], X)
    pd.DataFrame({"x0": X[:, 0], "label": [0, 1, 2, 2, 1, 0]}).to_csv(tmp_path / "s.csv", index=False)
    _, inst = built(tmp_path / "s.csv", 6, source="supervised", fit_rows=0, n_fitted=0)
    np.testing.assert_array_equal(inst.means.argmax(axis=1), [0, 1, 2, 2, 1, 0])


@pytest.mark.parametrize("where", ["even", "random"])
def test_permutation_drift_moves_the_best_arm_exactly_at_the_change_points(tmp_path, where):
    rng = np.random.default_rng(2)
    T = 400
    y = np.zeros(T, dtype=int)  # one label dominates: the best arm of a round is the arm of class 0
    path = make(tmp_path, X=rng.normal(size=(T, 2)), y=y)
    _, inst = built(path, T, source="supervised", K=4, drift="permutation", n_changes=5, change_points=where,
                    fit_rows=0, n_fitted=0)
    cps = inst.evaluation["change_points"]
    assert len(cps) == 5 and "change_points" not in inst.info
    best = inst.means.argmax(axis=1)
    assert (np.flatnonzero(np.diff(best)) + 1).tolist() == cps
    if where == "even":
        assert cps == [int(np.floor(j * T / 6)) for j in range(1, 6)]
    assert inst.info["S_switches"] == 6 and inst.info["Delta_TV"] == pytest.approx(2 * 5)
    # on mixed labels: within a piece a class always pays on one arm (a permutation), and every class moves
    y = rng.integers(0, 4, size=T)
    _, inst = built(make(tmp_path, "mixed.npz", X=rng.normal(size=(T, 2)), y=y), T, source="supervised",
                    drift="permutation", n_changes=3, change_points=where, fit_rows=0, n_fitted=0)
    starts = [0, *inst.evaluation["change_points"], T]
    maps = []
    for s, e in zip(starts[:-1], starts[1:], strict=True):
        arm = inst.means[s:e].argmax(axis=1)
        sigma = {c: set(arm[y[s:e] == c].tolist()) for c in range(4)}
        assert all(len(v) == 1 for v in sigma.values())
        maps.append([sigma[c].pop() for c in range(4)])
        assert sorted(maps[-1]) == [0, 1, 2, 3]
    assert maps[0] == [0, 1, 2, 3]  # sigma_0 is the identity
    assert all((np.array(m0) != np.array(m1)).all() for m0, m1 in zip(maps[:-1], maps[1:], strict=True))


def test_rotation_mixes_neighbouring_arms(tmp_path):
    T, K = 300, 3
    path = make(tmp_path, X=np.zeros((T, 1)), y=np.ones(T, dtype=int))
    env, inst = built(path, T, source="supervised", K=K, drift="rotation", turns=1.0, fit_rows=0, n_fitted=0)
    u = K * np.arange(T) / T
    # the one label that occurs (1) is arm 0 (labels map to arms by the set that occurs);
    t = 150  # u = 1.5: it pays on arm 1 and on arm 2 with probability 1/2 each
    assert u[t] == 1.5 and inst.means[t].tolist() == [0.0, 0.5, 0.5]
    assert inst.means[50].tolist() == pytest.approx([0.5, 0.5, 0.0])
    np.testing.assert_allclose(inst.means.sum(axis=1), 1.0)
    assert inst.evaluation["change_points"] == [50, 150, 250]
    r = env.rewards(inst, stream(0, 1, T, 0))
    assert set(np.unique(r)) <= {0.0, 1.0}


def test_policies_are_fitted_on_held_out_rows_as_documented(tmp_path):
    rng = np.random.default_rng(3)
    rows, fit_rows, T, n_fit, N = 260, 60, 200, 4, 9
    X, y = rng.normal(size=(rows, 3)), rng.integers(0, 3, size=rows)
    kw = dict(source="supervised", fit_rows=fit_rows, n_fitted=n_fit, n_policies=N)
    for fit in ("slices", "bootstrap"):
        _, inst = built(make(tmp_path, X=X, y=y), T, fit=fit, **kw)
        # the played rounds start after the held-out prefix
        np.testing.assert_array_equal(inst.info["contexts"], X[fit_rows:fit_rows + T])
        # redraw the documented construction from the same stream: groups, random W, shuffle
        g = stream(0, 0, T)
        if fit == "slices":
            groups = np.array_split(g.permutation(fit_rows), n_fit)
            assert sorted(np.concatenate(groups).tolist()) == list(range(fit_rows))  # disjoint, covering
        else:
            groups = [g.integers(0, fit_rows, size=fit_rows) for _ in range(n_fit)]
        X1, B = np.column_stack([X[:fit_rows], np.ones(fit_rows)]), np.eye(3)[y[:fit_rows]]
        for i, rws in enumerate(groups):  # W_a = (X1'X1 + I)^-1 X1' B[:, a] on the group's rows only
            W = np.linalg.solve(X1[rws].T @ X1[rws] + np.eye(4), X1[rws].T @ B[rws]).T
            np.testing.assert_allclose(inst.evaluation["policy_weights"][inst.evaluation["fitted_policies"][i]], W)
        np.testing.assert_allclose(ridge_policies(X1, B, groups, 1.0)[0], np.linalg.solve(
            X1[groups[0]].T @ X1[groups[0]] + np.eye(4), X1[groups[0]].T @ B[groups[0]]).T)
        # the played rows never enter the fit
        y2 = y.copy()
        y2[fit_rows:] = (y2[fit_rows:] + 1) % 3
        _, other = built(make(tmp_path, "changed.npz", X=X, y=y2), T, fit=fit, **kw)
        np.testing.assert_array_equal(other.evaluation["policy_weights"], inst.evaluation["policy_weights"])
        assert inst.info["policy_actions"].shape == (T, N)


def test_regret_against_the_best_policy_of_each_piece_by_hand():
    means = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    pred = np.array([[0, 1, 0], [0, 1, 1], [0, 1, 1], [1, 0, 0], [1, 0, 1]])
    # piece [0, 2): policy 0 earns 2, policy 2 earns 1; piece [2, 5): policy 0 earns 2, policy 1 earns 1,
    # policy 2 earns 2 (tie to the lowest index: 0)
    np.testing.assert_array_equal(best_policy_per_piece(means, pred, np.array([0, 2])), [0, 0, 0, 0, 0])
    np.testing.assert_array_equal(best_policy_per_piece(means, pred, np.array([0])), [0] * 5)
    pred[2, 2] = 1
    pred[3, 2] = 1
    np.testing.assert_array_equal(best_policy_per_piece(means, pred, np.array([0, 2])), [0, 0, 2, 2, 2])


def test_instance_regret_and_the_best_action_reference(tmp_path):
    rng = np.random.default_rng(4)
    T = 300
    path = make(tmp_path, X=rng.normal(size=(T + 100, 2)), y=rng.integers(0, 3, size=T + 100))
    env, inst = built(path, T, source="supervised", drift="permutation", n_changes=2, fit_rows=100,
                      n_fitted=5, n_policies=20)
    pred, opt = inst.info["policy_actions"], inst.evaluation["optimal_policy"]
    np.testing.assert_array_equal(inst.optimal, inst.means[np.arange(T), pred[np.arange(T), opt]])
    starts = [0, *inst.evaluation["change_points"], T]
    for s, e in zip(starts[:-1], starts[1:], strict=True):
        values = inst.means[np.arange(s, e)[:, None], pred[s:e]].sum(axis=0)
        assert len(set(opt[s:e])) == 1 and values[opt[s]] == values.max()
    actions = rng.integers(0, 3, size=T)
    regret = evaluate(inst.means, env.rewards(inst, None), actions, inst.optimal)["regret"][-1]
    best_action = evaluate(inst.means, env.rewards(inst, None), actions)["regret"][-1]
    assert best_action == pytest.approx(regret + inst.evaluation["regret_gap_best_action"])


def test_river_source_goes_through_the_loader(tmp_path, monkeypatch):
    calls = []

    def load(name, rows, rng):
        calls.append((name, rows))
        return {"X": rng.normal(size=(rows, 2)), "y": np.arange(rows) % 3, "change_points": [30, 150]}

    import bandits.environments as environments  # the stand-in replaces the module wherever it is looked up

    fake = types.SimpleNamespace(load=load)
    monkeypatch.setitem(sys.modules, "bandits.environments.river_data", fake)
    monkeypatch.setattr(environments, "river_data", fake, raising=False)
    env = ContextualTable(source="river", dataset="toy", fit_rows=50, n_fitted=3, n_policies=10)
    env.check_params(200)
    inst = env.instance(200, stream(0, 0, 200))
    assert calls == [("toy", 250)]
    assert env.footprint(200) >= inst.means.nbytes
    assert inst.evaluation["change_points"] == [100]  # the stream's rows, less the held-out prefix
    assert "S_switches" not in inst.info  # the stream's own drift is not ours to tell
    monkeypatch.setitem(sys.modules, "bandits.environments.river_data", None)
    monkeypatch.delattr(environments, "river_data", raising=False)
    with pytest.raises(ConfigError, match="not part of this installation"):
        env.check_params(200)


BAD = [  # (arrays or a csv frame, settings, T, words of the paragraph)
    ({"R": np.zeros((5, 2))}, {}, 5, ["array 'X' and exactly one of 'R' or 'C'"]),
    ({"X": np.zeros((5, 1)), "y": np.zeros(5)}, {}, 5, ["env.source=supervised?"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 3))}, {"K": 2}, 5, ["env.K=2 but 'R' has 3 columns"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 2)), "C": np.zeros((5, 2))}, {}, 5, ["exactly one of"]),
    ({"X": np.zeros((5, 1)), "R": np.full((5, 2), 1.5)}, {}, 5, ["'R' holds 1.5", "[0, 1]"]),
    ({"X": np.zeros((5, 1)), "C": -np.ones((5, 2))}, {}, 5, ["'C' holds -1", "below"]),
    ({"X": np.full((5, 1), np.nan), "R": np.zeros((5, 2))}, {}, 5, ["'X' holds NaN or inf", "row 0, feature 0"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((4, 2))}, {}, 4, ["'X' has 5 rows but 'R' has 4"]),
    ({"X": np.zeros(5), "R": np.zeros((5, 2))}, {}, 5, ["rows x d array of contexts"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 1))}, {}, 5, ["K >= 2"]),
    ({"X": np.zeros((5, 1)), "R": np.array(["a"] * 10).reshape(5, 2)}, {}, 5, ["holds text"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 2))}, {}, 5, ["fewer than env.fit_rows=500"]),
    ({"X": np.zeros((5, 1)), "y": np.array([0, 1, 0.5, 1, 0])}, {"source": "supervised"}, 5, ["must be integers"]),
    ({"X": np.zeros((5, 1)), "y": np.array([0, 1, 3, 1, 0])}, {"source": "supervised", "K": 2}, 5,
     ["env.K=2 arms", "3 distinct labels"]),
    ({"X": np.zeros((5, 1)), "y": np.array([0, np.nan, 1, 1, 0])}, {"source": "supervised"}, 5, ["row 1"]),
    ({"X": np.zeros((5, 1)), "y": np.zeros((5, 2))}, {"source": "supervised"}, 5, ["one integer per row"]),
    ({"X": np.zeros((5, 1)), "Y": np.full((5, 2), 0.5)}, {"source": "supervised"}, 5, ["must hold 0 or 1"]),
    ({"X": np.zeros((5, 1)), "y": np.zeros(5)}, {"source": "supervised"}, 5, ["K >= 2"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 2))}, {"drift": "permutation"}, 5, ["needs env.source=supervised"]),
    ({"X": np.zeros((5, 1)), "R": np.zeros((5, 2))}, {"policy_class": "linear"}, 5, ["no contextual algorithm"]),
    (pd.DataFrame({"x0": [0.0], "x2": [1.0], "r0": [0.0], "r1": [1.0]}), {}, 1, ["x0..x1 with none missing"]),
    (pd.DataFrame({"x0": [0.0], "r0": [0.0], "r1": ["no"]}), {}, 1, ["column r1, row 0 holds 'no'"]),
    (pd.DataFrame({"x0": [0.0], "label": [1]}), {}, 1, ["columns r0.. or columns c0.."]),
    (pd.DataFrame({"r0": [0.0], "r1": [1.0]}), {}, 1, ["no context columns", "no columns x0"]),
]


@pytest.mark.parametrize("data,settings,T,words", BAD, ids=range(len(BAD)))
def test_each_defect_gives_its_paragraph(tmp_path, data, settings, T, words):
    if isinstance(data, pd.DataFrame):
        path = tmp_path / "bad.csv"
        data.to_csv(path, index=False)
    else:
        path = make(tmp_path, "bad.npz", **data)
    settings = {"fit_rows": 0, "n_fitted": 0, **settings} if "fit_rows" not in words[0] else settings
    with pytest.raises(ConfigError) as err:
        ContextualTable(path=str(path), **settings).check_params(T)
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_runs_from_the_command_line(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(700, 3))
    path = make(tmp_path, "logged.npz", X=X, R=1 / (1 + np.exp(-X @ rng.normal(size=(3, 3)))))
    cmd = [sys.executable, "run.py", "algo=ada_iltcb_plus", "env=contextual_table", f"env.path={path}", "T=200",
           "trials=1", f"results_dir={tmp_path / 'results'}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


# ----------------------------------------------------------------------------- tables as they come: columns by name

def old_form_files(folder):
    """The old-form files of the bit-identity check (x0.. features, r0.. rewards or an integer `label`),
    written exactly as they were when the expected numbers below were computed."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 3)).round(4)
    R = (1 / (1 + np.exp(-X @ rng.normal(size=(3, 3))))).round(4)
    pd.DataFrame({**{f"x{j}": X[:, j] for j in range(3)}, **{f"r{k}": R[:, k] for k in range(3)}}).to_csv(
        folder / "logged.csv", index=False)
    y = rng.integers(0, 4, size=500)
    np.savez(folder / "sup.npz", X=X, y=y)
    pd.DataFrame({**{f"x{j}": X[:, j] for j in range(3)}, "label": y}).to_parquet(folder / "sup.parquet")
    return X, R, y


# final_regret of seeded old-form examples, computed by the code of main (29b1413) before columns could be
# named: (env settings, algorithms, T, trials, seed) -> final_regret sorted by algorithm, then trial
OLD_FORM = {
    "three_classes_perm": ({"source": "supervised", "path": str(ROOT / "examples" / "three_classes.csv"),
                            "drift": "permutation", "n_changes": 2}, ["epsilon_greedy", "exp4"], 700, 2, 3,
                           [215.0, 259.0, 222.0, 228.0]),
    "logged_csv": ({"source": "file", "path": "logged.csv", "fit_rows": 200}, ["epsilon_greedy", "exp4"], 300, 2, 4,
                   [26.72509999999999, 43.3304, 25.083599999999983, 28.97790000000001]),
    "sup_npz_rot": ({"source": "supervised", "path": "sup.npz", "fit_rows": 200, "drift": "rotation"},
                    ["epsilon_greedy"], 300, 2, 5, [26.666666666666664, 29.10666666666666]),
    "sup_parquet": ({"source": "supervised", "path": "sup.parquet", "fit_rows": 200}, ["exp4"], 300, 2, 6,
                    [15.0, 18.0]),
}


def regrets(env, algos, T, trials, seed):
    from bandits import simulate

    table = simulate(env={"name": "contextual_table", **env}, algos=algos, T=T, trials=trials, seed=seed)
    return table.sort_values(["algo", "trial"])["final_regret"].tolist(), table


@pytest.mark.parametrize("case", sorted(OLD_FORM))
def test_old_form_files_give_bit_identical_regret(case, tmp_path):
    old_form_files(tmp_path)
    env, algos, T, trials, seed, expected = OLD_FORM[case]
    env = {**env, "path": str(tmp_path / env["path"]) if not env["path"].startswith("/") else env["path"]}
    got, _ = regrets(env, algos, T, trials, seed)
    assert got == expected  # exactly: the same floats as before columns could be named


def pets(n=600, seed=3):
    """A table as it comes: named features, text labels in no particular order, a text column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    species = np.array(["fish", "cat", "dog"])[(X @ rng.normal(size=(3, 3)) + 0.3 * rng.normal(size=(n, 3)))
                                              .argmax(axis=1)]
    return pd.DataFrame({"age": (40 + 10 * X[:, 0]).round(1), "income": (50 + 20 * X[:, 1]).round(2),
                         "score": X[:, 2].round(3), "label": species, "city": rng.choice(["Paris", "Oslo"], n)})


def test_named_features_and_text_labels_run_from_the_command_line(tmp_path):
    pets().to_csv(tmp_path / "pets.csv", index=False)
    out = tmp_path / "results"
    cmd = [sys.executable, "run.py", "algo=epsilon_greedy", "env=contextual_table", "env.source=supervised",
           f"env.path={tmp_path / 'pets.csv'}", "env.features=[age,income,score]", "env.fit_rows=200", "T=300",
           "trials=2", "seed=1", f"results_dir={out}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = pd.read_parquet(out / "tables" / "adhoc.parquet")
    import json

    info = json.loads(table["env_info"].iloc[0])
    assert info["label_map"] == ["cat", "dog", "fish"]  # arm -> label: the sorted set of the labels that occur
    assert info["feature_columns"] == ["age", "income", "score"] and info["label_column"] == "label"
    assert info["ignored_columns"] == ["city"] and info["K"] == 3 and info["d"] == 3
    # the same through the Python API: the same numbers, the same record
    got, api = regrets({"source": "supervised", "path": str(tmp_path / "pets.csv"), "fit_rows": 200,
                        "features": ["age", "income", "score"]}, ["epsilon_greedy"], 300, 2, 1)
    assert got == table.sort_values("trial")["final_regret"].tolist()
    assert json.loads(api["env_info"].iloc[0])["label_map"] == ["cat", "dog", "fish"]


def test_text_labels_map_to_arms_by_their_sorted_set_never_by_magnitude(tmp_path):
    frame = pets(n=40)
    frame.to_csv(tmp_path / "p.csv", index=False)
    _, inst = built(tmp_path / "p.csv", 40, source="supervised", features=["age", "income", "score"], fit_rows=0,
                    n_fitted=0)
    arm = {"cat": 0, "dog": 1, "fish": 2}
    np.testing.assert_array_equal(inst.means.argmax(axis=1), frame["label"].map(arm))
    assert inst.evaluation["label_map"] == ["cat", "dog", "fish"] and "label_map" not in inst.info
    # a Parquet categorical whose declared order differs and that declares a category no row holds;
    # text that spells numbers is text: "10" < "9" in the sorted set
    codes = pd.Categorical(["z", "b", "z", "a"], categories=["z", "unused", "b", "a"], ordered=True)
    base = pd.DataFrame({"f": [0.1, 0.2, 0.3, 0.4]})
    base.assign(label=codes).to_parquet(tmp_path / "c.parquet")
    base.assign(label=["10", "9", "10", "9"]).to_parquet(tmp_path / "s.parquet")
    for name, labels, arms in (("c.parquet", ["a", "b", "z"], [2, 1, 2, 0]), ("s.parquet", ["10", "9"], [0, 1, 0, 1])):
        env, inst = built(tmp_path / name, 4, source="supervised", fit_rows=0, n_fitted=0, n_policies=2)
        assert inst.evaluation["label_map"] == labels and inst.evaluation["feature_columns"] == ["f"]
        np.testing.assert_array_equal(inst.means.argmax(axis=1), arms)
    # an .npz of text labels; env.K widens with arms no label names
    _, inst = built(make(tmp_path, "t.npz", X=np.zeros((4, 1)), y=np.array(["dog", "cat", "dog", "cat"])), 4,
                    source="supervised", K=3, fit_rows=0, n_fitted=0, n_policies=2)
    assert inst.evaluation["label_map"] == ["cat", "dog", None] and inst.means.tolist()[0] == [0, 1, 0]


def test_named_columns_give_the_numbers_of_the_old_form(tmp_path):
    """The same data with columns renamed (and integer labels written as names in the same sorted
    order): bit-identical regret."""
    X, R, y = old_form_files(tmp_path)
    names = {"x0": "age", "x1": "income", "x2": "score"}
    pd.read_csv(tmp_path / "logged.csv").rename(columns={**names, "r0": "a", "r1": "b", "r2": "c"}).to_csv(
        tmp_path / "named.csv", index=False)
    old, _ = regrets({"source": "file", "path": str(tmp_path / "logged.csv"), "fit_rows": 200}, ["exp4"], 300, 2, 4)
    new, t = regrets({"source": "file", "path": str(tmp_path / "named.csv"), "fit_rows": 200,
                      "rewards": ["a", "b", "c"]}, ["exp4"], 300, 2, 4)  # features: every numeric column left
    assert new == old
    import json

    info = json.loads(t["env_info"].iloc[0])
    assert info["feature_columns"] == ["age", "income", "score"] and info["reward_columns"] == ["a", "b", "c"]
    frame = pd.DataFrame({"age": X[:, 0], "income": X[:, 1], "score": X[:, 2],
                          "species": np.array(["ant", "bee", "cow", "doe"])[y]})
    frame.to_parquet(tmp_path / "named.parquet")
    old, _ = regrets({"source": "supervised", "path": str(tmp_path / "sup.parquet"), "fit_rows": 200}, ["exp4"],
                     300, 2, 6)
    new, _ = regrets({"source": "supervised", "path": str(tmp_path / "named.parquet"), "fit_rows": 200,
                      "label": "species", "features": ["age", "income", "score"]}, ["exp4"], 300, 2, 6)
    assert new == old


def test_costs_and_multi_label_columns_by_name(tmp_path):
    rng = np.random.default_rng(8)
    C = rng.random((6, 2)).round(3)
    pd.DataFrame({"u": rng.normal(size=6), "cost_a": C[:, 0], "cost_b": C[:, 1]}).to_csv(tmp_path / "c.csv",
                                                                                          index=False)
    _, inst = built(tmp_path / "c.csv", 6, costs=["cost_b", "cost_a"], fit_rows=0, n_fitted=0)
    np.testing.assert_allclose(inst.means, 1 - C[:, ::-1])  # arm order = the order named
    assert inst.evaluation["cost_columns"] == ["cost_b", "cost_a"] and inst.evaluation["feature_columns"] == ["u"]
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    pd.DataFrame({"u": np.arange(4.0), "is_cat": Y[:, 0], "is_dog": Y[:, 1]}).to_csv(tmp_path / "m.csv", index=False)
    _, inst = built(tmp_path / "m.csv", 4, source="supervised", label=["is_cat", "is_dog"], fit_rows=0, n_fitted=0,
                    n_policies=2)
    np.testing.assert_array_equal(inst.means, Y)
    assert inst.evaluation["label_map"] == ["is_cat", "is_dog"]


NAMED_BAD = [  # (frame, settings, words): each defect of a table as it comes gives one paragraph
    (pets(8), {"features": ["age", "incme"]},
     ["env.features names 'incme'", "did you mean 'income'", "'age', 'income', 'score', 'label', 'city'",
      "numeric context columns other than the label column"]),
    (pets(8), {"label": "species"}, ["env.label names 'species'", "its columns are 'age'"]),
    (pets(8), {"features": ["age", "city"]}, ["column city, row 0 holds", "not a number", "pandas.get_dummies"]),
    (pets(8).assign(income=[1.0, 2.0, 3.0, None, 5.0, 6.0, 7.0, 8.0]), {"features": ["age", "income"]},
     ["column income, row 3 has no value"]),
    (pets(8).assign(label=["cat", "dog", None, "cat", "dog", "fish", "cat", "dog"]), {"features": ["age"]},
     ["column label, row 2 has no value"]),
    (pets(8).assign(income=["1", "2", "3", "x", "5", "6", "7", "8"]), {},
     ["column income, row 3 holds 'x', not a number", "other values are numbers"]),
    (pets(8), {"features": ["age", "label"]}, ["column 'label' is the label column", "cannot also be"]),
    (pets(8), {"features": ["age", "age"]}, ["names 'age' more than once"]),
    (pets(8), {"features": []}, ["env.features is an empty list"]),
    (pets(8), {"K": 2, "features": ["age"]}, ["env.K=2 arms", "3 distinct labels ('cat', 'dog', 'fish')"]),
    (pets(8), {"source": "file", "label": "label"}, ["env.label names the label column", "env.rewards"]),
    (pets(8), {"rewards": ["age"]}, ["env.rewards and env.costs name the reward or cost columns of a logged"]),
    (pets(8), {"source": "file", "rewards": ["age"], "costs": ["score"]}, ["give one of them"]),
    (pets(8), {"features": [["age"]]}, ["env.features must be a column name or a list of column names"]),
    (pets(8).drop(columns="label"), {}, ["a 'label' column or columns y0..", "env.label=<column>"]),
    (pets(8)[["label", "city"]], {}, ["no numeric column to use as context features", "hold text (city)"]),
]


@pytest.mark.parametrize("frame,settings,words", NAMED_BAD, ids=range(len(NAMED_BAD)))
def test_each_defect_of_a_named_table_gives_its_paragraph(tmp_path, frame, settings, words):
    path = tmp_path / "pets.csv"
    frame.to_csv(path, index=False)
    settings = {"source": "supervised", "fit_rows": 0, "n_fitted": 0, **settings}
    with pytest.raises(ConfigError) as err:
        ContextualTable(path=str(path), **settings).check_params(8)
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_names_are_refused_where_they_do_not_apply(tmp_path):
    path = make(tmp_path, X=np.zeros((5, 1)), y=np.array([0, 1, 0, 1, 0]))
    with pytest.raises(ConfigError, match="env.features names the columns of a .csv or .parquet file"):
        ContextualTable(path=str(path), source="supervised", features=["a"], fit_rows=0, n_fitted=0).check_params(5)
    with pytest.raises(ConfigError, match="a river dataset"):
        ContextualTable(source="river", dataset="toy", label="y").check_params(5)
    dates = pd.DataFrame({"f": pd.to_datetime(["2020-01-01", "2020-01-02"]), "label": [0, 1]})
    dates.to_parquet(tmp_path / "d.parquet")
    with pytest.raises(ConfigError, match="column f holds timestamp"):
        ContextualTable(path=str(tmp_path / "d.parquet"), source="supervised", features=["f"], fit_rows=0,
                        n_fitted=0).check_params(2)
    nulls = pd.DataFrame({"f": [0.0, None], "label": [0, 1]})
    nulls.to_parquet(tmp_path / "n.parquet")
    with pytest.raises(ConfigError, match="column f, row 1 has no value"):
        ContextualTable(path=str(tmp_path / "n.parquet"), source="supervised", fit_rows=0, n_fitted=0,
                        n_policies=2).check_params(2)
