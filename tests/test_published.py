"""The published experiments (GLR-klUCB's thesis and journal problems, D-LinUCB's notebook,
Gerogiannis et al.'s MASTER experiment): the environment options they need, their
problems as the sources define them, a tiny run of every experiment config, and their
figures and claims from small tables."""

import math

import numpy as np
import pytest

from bandits.environments import PiecewiseBernoulli, PiecewiseLinear
from bandits.errors import ConfigError

# ----------------------------------------------------------------------------- piecewise_bernoulli


def test_change_points_as_rounds_are_the_same_at_every_T():
    env = PiecewiseBernoulli(means=[[0.1, 0.9], [0.9, 0.1], [0.5, 0.6]], change_points=[1000, 2500])
    for T in (3000, 20000):
        env.check_params(T)
        inst = env.instance(T, np.random.default_rng(0))
        assert inst.evaluation["change_points"] == [1000, 2500]
        assert inst.means[999].tolist() == [0.1, 0.9] and inst.means[1000].tolist() == [0.9, 0.1]
        assert inst.means[2500].tolist() == [0.5, 0.6] and inst.info["Upsilon_T"] == 2
    with pytest.raises(ConfigError, match="not below T=2500"):
        env.check_params(2500)


@pytest.mark.parametrize("cp, fragment", [([1000, 1000], "increasing"), ([0.5, 2000], "fractions"),
                                          ([1000.5, 2000], "integers"), ([1000], "must list 2")])
def test_change_points_as_rounds_bad_input(cp, fragment):
    with pytest.raises(ConfigError, match=fragment):
        PiecewiseBernoulli(means=[[0.1, 0.9], [0.9, 0.1], [0.5, 0.6]], change_points=cp).check_params(5000)


def test_fractions_still_work_as_before():
    env = PiecewiseBernoulli(means=[[0.1, 0.9], [0.9, 0.1]], change_points=[0.25])
    assert env.instance(4000, np.random.default_rng(0)).evaluation["change_points"] == [1000]


def test_existing_draws_are_unchanged_by_the_new_options():
    """The uniform draw with even / random change points uses the stream as before (means first)."""
    for cp in ("even", "random"):
        env = PiecewiseBernoulli(K=4, n_changes=3, min_gap=0.1, change_points=cp)
        inst = env.instance(1000, np.random.default_rng(7))
        rng = np.random.default_rng(7)
        rows = env._draw(rng)
        assert np.array_equal(inst.means[0], rows[0]) and np.array_equal(inst.means[-1], rows[-1])


def test_bernoulli_change_points_have_the_binomial_count_and_geometric_gaps():
    T, xi = 20000, 0.5
    counts, gaps = [], []
    for seed in range(40):
        env = PiecewiseBernoulli(K=3, change_points="bernoulli", change_exponent=xi, draw="geo")
        env.check_params(T)
        cp = env.instance(T, np.random.default_rng(seed)).evaluation["change_points"]
        assert cp == sorted(set(cp)) and 1 <= cp[0] and cp[-1] <= T - 1
        counts.append(len(cp))
        gaps += np.diff(cp).tolist()
    rho = T ** -xi
    assert abs(np.mean(counts) - rho * (T - 1)) < 4 * math.sqrt(rho * T / 40)
    assert abs(np.mean(gaps) - 1 / rho) < 0.1 / rho  # geometric pieces of mean 1 / rho


def test_bernoulli_even_spaces_at_least_rho_T_minus_one_changes_like_their_problem_unif():
    T = 10000
    env = PiecewiseBernoulli(K=5, change_points="bernoulli_even", change_exponent=0.6, draw="geo")
    cp = env.instance(T, np.random.default_rng(3)).evaluation["change_points"]
    m = len(cp)
    assert m + 1 >= T ** 0.4
    assert cp == [c * (T // (m + 1)) for c in range(1, m + 1)]


def test_geo_draw_moves_a_random_subset_by_a_reflected_gap():
    env = PiecewiseBernoulli(K=5, change_points="bernoulli", change_prob=0.01, draw="geo", gap_min=0.1, gap_max=0.4)
    inst = env.instance(20000, np.random.default_rng(1))
    starts = [0] + inst.evaluation["change_points"]
    rows = inst.means[starts]
    assert ((rows >= 0) & (rows <= 1)).all()
    moves = np.abs(np.diff(rows, axis=0))
    moved = moves > 0
    assert moved.any(axis=1).all()  # at least one arm moves at every change
    assert ((moves[moved] >= 0.1 - 1e-12) & (moves[moved] < 0.4)).all()
    assert moved.sum(axis=1).max() == 5 and moved.sum(axis=1).min() == 1


@pytest.mark.parametrize("draw, jump_low", [("geo_worst", 0.0), ("geo_worst_unif", 0.005)])
def test_worst_draw_makes_the_worst_arm_the_best_at_every_change(draw, jump_low):
    env = PiecewiseBernoulli(K=5, change_points="bernoulli", change_prob=0.002, draw=draw)
    inst = env.instance(20000, np.random.default_rng(2))
    starts = [0] + inst.evaluation["change_points"]
    rows = inst.means[starts]
    assert (rows[0] >= 0.3).all() and (rows[0] < 0.305).all()
    climbs = 0
    for prev, new in zip(rows[:-1], rows[1:], strict=True):
        worst = len(prev) - 1 - int(np.argmin(prev[::-1]))
        if new[worst] > prev.max() and (np.delete(new, worst) == np.delete(prev, worst)).all():
            assert prev.max() + jump_low <= new[worst] < prev.max() + 0.05 + 1e-12
            climbs += 1
    assert climbs >= 0.8 * (len(rows) - 1)  # the rest are the reshuffles near 1


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(change_points="bernoulli"), "exactly one of"),
    (dict(change_points="bernoulli", change_prob=0.1, change_exponent=0.5), "exactly one of"),
    (dict(change_points="bernoulli", change_prob=1.5), r"\(0, 1\)"),
    (dict(change_points="bernoulli", change_prob=0.1, means=[[0.1, 0.2], [0.2, 0.1]]), "drawn means"),
    (dict(draw="geo", means=[[0.1, 0.2]]), "explicit env.means"),
    (dict(draw="geo", gap_min=0.3, gap_max=0.2), "gap_min"),
    (dict(draw="other"), "env.draw"),
])
def test_new_options_bad_input(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        PiecewiseBernoulli(**kwargs).check_params(10000)


# ----------------------------------------------------------------------------- piecewise_linear

def test_steps_path_and_box_actions_of_the_notebook():
    env = PiecewiseLinear(d=2, action_set="fresh_box", n_actions=50, R=1.0, theta_path="steps",
                          thetas=[[1, 0], [-1, 0], [0, 1], [0, -1]], theta_changes=[1001, 2001, 3001])
    env.check_params(6000)
    inst = env.instance(6000, np.random.default_rng(0))
    assert inst.features.shape == (6000, 50, 2)
    norms = np.linalg.norm(inst.features, axis=-1)
    assert norms.max() <= 1 + 1e-12 and (norms < 1 - 1e-9).mean() > 0.5  # in the ball, not on the sphere
    assert inst.evaluation["change_points"] == [1001, 2001, 3001]
    assert inst.info["B_T"] == pytest.approx(4 + math.sqrt(2))  # the notebook's B_T
    theta = np.array([[1, 0]] * 1001 + [[-1, 0]] * 1000 + [[0, 1]] * 1000 + [[0, -1]] * 2999, dtype=float)
    assert np.allclose(inst.means, np.einsum("tkd,td->tk", inst.features, theta))


def test_arc_path_of_the_slow_notebook():
    env = PiecewiseLinear(d=2, action_set="fresh_box", n_actions=5, theta_path="arc", arc_rounds=3000,
                          arc_angles=[0.0, math.pi / 2])
    env.check_params(6000)
    inst = env.instance(6000, np.random.default_rng(0))
    theta = env._given_path(6000)
    assert np.allclose(theta[0], [1, 0]) and np.allclose(theta[3000:], [0, 1])
    assert np.allclose(theta[1500], [math.cos(math.pi / 4), math.sin(math.pi / 4)])
    assert inst.info["B_T"] == pytest.approx(math.pi / 2, rel=1e-6)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(theta_path="steps", thetas=[[1, 0], [0, 1]], theta_changes=[]), "1 change"),
    (dict(theta_path="steps", thetas=[[1, 0, 0]], theta_changes=[]), "d=2"),
    (dict(theta_path="steps", thetas=[[1, 0], [0, 1]], theta_changes=[7000]), "increasing rounds"),
    (dict(theta_path="arc", d=3), "env.d=2"),
    (dict(theta_path="other"), "theta_path"),
])
def test_given_paths_bad_input(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        PiecewiseLinear(**kwargs).check_params(6000)


def test_drawn_path_unchanged():
    a = PiecewiseLinear(d=3, action_set="fresh", n_breakpoints=4).instance(200, np.random.default_rng(5))
    b = PiecewiseLinear(d=3, action_set="fresh", n_breakpoints=4, theta_path="drawn").instance(
        200, np.random.default_rng(5))
    assert np.array_equal(a.means, b.means) and "change_points" not in a.evaluation


# ----------------------------------------------------------------------------- the problems as configured

def scenario_envs(experiment: str) -> dict:
    """name -> environment object of every scenario of an experiment config."""
    from conftest import compose

    from bandits.experiments.compose.building import build
    from bandits.experiments.setup.setups import scenario_configs

    cfg = compose([f"+experiment={experiment}"])
    return {job.experiment_name.partition(".")[2] or job.experiment_name: build(job.env, "env")[1]
            for job in scenario_configs(cfg)}


def changes_per_arm(inst) -> int:
    starts = [0] + inst.evaluation["change_points"]
    return int((np.diff(inst.means[starts], axis=0) != 0).sum())


@pytest.mark.parametrize("experiment, scenario, T, K, upsilon, C", [
    ("glr_thesis", "pb1", 5000, 3, 4, 4), ("glr_thesis", "pb2", 5000, 3, 4, 12), ("glr_thesis", "pb4", 5000, 3, 4, 12),
    ("glr_thesis_pb3", "pb3", 20000, 6, 8, 19), ("glr_thesis_pb5", "pb5", 100000, 5, 81, 179),
])
def test_thesis_problems_have_the_chapters_K_upsilon_and_C(experiment, scenario, T, K, upsilon, C):
    """The chapter's captions: Problem 3 'C = 19 changes ... at Upsilon = 8 break-points',
    Problem 5 'C = 179 changes occur on some arms at Upsilon = 81 break-points'."""
    env = scenario_envs(experiment)[scenario]
    inst = env.instance(T, np.random.default_rng(0))
    assert inst.K == K and inst.info["Upsilon_T"] == upsilon and changes_per_arm(inst) == C


def test_thesis_change_points_are_smpybandits_ones():
    envs = scenario_envs("glr_thesis")
    assert envs["pb1"].instance(5000, np.random.default_rng(0)).evaluation["change_points"] == [1000, 2000, 3000, 4000]
    assert envs["pb4"].instance(5000, np.random.default_rng(0)).evaluation["change_points"] == [2500, 3125, 3750, 4375]
    pb5 = scenario_envs("glr_thesis_pb5")["pb5"].instance(100000, np.random.default_rng(0))
    assert pb5.evaluation["change_points"] == np.linspace(0, 100000, num=82, endpoint=False, dtype=int)[1:].tolist()


def test_journal_problems_are_the_julia_benchmarks():
    envs = scenario_envs("glr_journal")
    pb1 = envs["pb1"].instance(20000, np.random.default_rng(0))
    assert pb1.evaluation["change_points"] == [4000, 8000, 12000, 16000]  # ProblemUnif: part = round(T / 5)
    assert pb1.means[0].tolist() == [0.9, 0.5, 0.3] and pb1.means[-1].tolist() == [0.1, 0.7, 0.5]
    k5 = scenario_envs("glr_journal_k5")
    # the HDF5 files' BreakPoints (1-based first rounds of the new pieces) minus one
    assert k5["pb3"].instance(20000, np.random.default_rng(0)).evaluation["change_points"] == [
        6946, 9399, 10886, 13632, 16253]
    assert k5["pb4"].instance(20000, np.random.default_rng(0)).evaluation["change_points"] == [
        7387, 8402, 11865, 15715, 18182]


def test_dlinucb_scenarios_are_the_notebooks():
    from bandits.algorithms.discounted_linear_ucb import gamma_opt

    abrupt = scenario_envs("dlinucb_abrupt")["abrupt"].instance(6000, np.random.default_rng(0))
    assert abrupt.evaluation["change_points"] == [1001, 2001, 3001]
    assert abrupt.features.shape == (6000, 50, 2) and abrupt.info["R"] == 1.0
    assert gamma_opt(6000, 2, abrupt.info["B_T"]) == pytest.approx(0.9941173985691094)  # the notebook's output
    smooth = scenario_envs("dlinucb_smooth")["smooth"].instance(6000, np.random.default_rng(0))
    assert smooth.info["B_T"] == pytest.approx(math.pi / 2, rel=1e-6)


def test_master_problems_draw_new_instances_per_seed():
    envs = scenario_envs("master_geo")
    assert len(envs) == 12
    env = envs["normal_xi05"]
    a, b = (env.instance(10000, np.random.default_rng(s)) for s in (0, 1))
    assert a.evaluation["change_points"] != b.evaluation["change_points"]
    assert a.K == 5 and 40 < a.info["Upsilon_T"] < 180  # rho T = 100
    unif = scenario_envs("master_geo_unif")["worst_unif_xi05"].instance(10000, np.random.default_rng(0))
    assert unif.info["Upsilon_T"] + 1 >= 100


# ----------------------------------------------------------------------------- tiny runs, figures, claims

EXPERIMENTS = {"glr_thesis": 500, "glr_thesis_pb4_10k": 500, "glr_thesis_pb3": 900, "glr_thesis_pb5": 900,
               "glr_thesis_ucb": 500, "glr_journal": 500, "glr_journal_k5": 500, "dlinucb_abrupt": 600,
               "dlinucb_smooth": 600, "master_geo_unif": 1000}


def test_every_published_experiment_runs_and_gets_its_figures_and_claims(tmp_path):
    import pandas as pd
    from conftest import compose

    from bandits.experiments.plots import stage as plots
    from bandits.experiments.run.sweep import run_config

    for experiment, T in EXPERIMENTS.items():
        run_config(compose([f"+experiment={experiment}", "trials=2", f"T=[{T}]", f"results_dir={tmp_path}"]),
                   progress=False)
    for seed in (0, 1):
        run_config(compose(["+experiment=master_geo", "trials=1", "T=[1000]", f"seed={seed}", "~scenarios.worst_xi03",
                            f"results_dir={tmp_path}"]), progress=False)
    plots.main(["--results", str(tmp_path)])
    out = tmp_path / "figures"
    tables = sorted(p.stem for p in (tmp_path / "tables").glob("*.parquet"))
    assert len(tables) == 3 + 1 + 1 + 1 + 2 + 2 + 2 + 1 + 1 + 12 + 11
    for name in tables:
        for ext in ("png", "pdf", "csv"):
            assert (out / f"{name.replace('.', '_')}.{ext}").stat().st_size > 0
    for experiment in [*EXPERIMENTS, "master_geo"]:
        assert (out / f"{experiment}_leaderboard.csv").stat().st_size > 0
    claims = pd.read_csv(tmp_path / "claims.csv")
    by_fig = claims.groupby("figure")["claim"].apply(list)
    assert any("totalResults1, Pb 1" in c for c in by_fig["glr_thesis_pb1"])
    assert any("totalResults2, Pb 4 (T = 10000)" in c for c in by_fig["glr_thesis_pb4_10k_pb4"])
    assert any("fig:6:meanRegretPb5" in c for c in by_fig["glr_thesis_pb5_pb5"])
    assert any("comparisonUCB_klUCB" in c for c in by_fig["glr_thesis_ucb_pb2"])
    assert any("notebook's figure" in c for c in by_fig["dlinucb_abrupt_abrupt"])
    # each ordering naming D-LinUCB again under both of Wu 2026's radii: abrupt 2 + 2, smooth 1 + 1
    for fig, n in (("dlinucb_abrupt_abrupt", 4), ("dlinucb_smooth_smooth", 2)):
        assert sum("Wu 2026's" in c for c in by_fig[fig]) == n
    assert any("not triggered" in c for c in by_fig["master_geo_normal_xi05"])
    assert any("beats MASTER" in c for c in by_fig["master_geo_unif_worst_unif_xi08"])
    assert not claims["figure"].str.startswith("glr_journal").any()  # no published numbers read
    assert set(claims["verdict"]) <= {"agrees", "disagrees", "disagrees: ours higher", "disagrees: ours lower"}


def test_published_tolerance_is_the_larger_of_25_percent_and_3_se():
    import pandas as pd

    from bandits.experiments.figures import published

    stats = pd.Series({"mean": 130.0, "sd": 10.0, "n": 100})
    assert published.tolerance(100.0, stats) == pytest.approx(25.0)  # 25% of 100 > 3 * 1
    noisy = pd.Series({"mean": 130.0, "sd": 200.0, "n": 4})
    assert published.tolerance(100.0, noisy, sd_pub=30.0, n_pub=1000) == pytest.approx(
        3 * math.sqrt(200 ** 2 / 4 + 30 ** 2 / 1000))
    assert published.tolerance(100.0, stats, read_error=5.0) == pytest.approx(30.0)
    row = published.number_claim("x", "f", stats, 100.0, 25.0)
    assert row["verdict"] == "disagrees: ours higher" and row["expected"] == "100 +- 25"
    assert published.number_claim("x", "f", stats, 120.0, 25.0)["verdict"] == "agrees"
