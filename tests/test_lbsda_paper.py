"""SW-LB-SDA's experiments as the authors' notebooks set them (YRussac/LB-SDA @ 1bdbf3a,
Notebooks/expe_Bernoulli.ipynb cell 4, expe_Gaussian.ipynb cells 2 and 6-7), and the claims rules
against the reads of their figures (bandits/experiments/studies/lbsda_notebooks.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

T = 10000


def scenario_envs(experiment: str) -> dict:
    from conftest import compose

    from bandits.experiments.compose.building import build
    from bandits.experiments.setup.setups import scenario_configs

    cfg = compose([f"+experiment={experiment}"])
    return {job.experiment_name.partition(".")[2]: build(job.env, "env")[1] for job in scenario_configs(cfg)}


def test_bernoulli_problem_is_the_notebooks():
    """arm_start ['B'] * 3, param_start [0.5, 0.3, 0.4]; chg_dist '3000' -> [0.3, 0.7, 0.2],
    '5000' -> [0.5, 0.3, 0.6]."""
    inst = scenario_envs("lbsda_paper")["bernoulli"].instance(T, np.random.default_rng(0))
    assert inst.evaluation["change_points"] == [3000, 5000]
    assert inst.info["Upsilon_T"] == 2 and inst.K == 3 and inst.T == T
    for t, mu in ((0, [0.5, 0.3, 0.4]), (2999, [0.5, 0.3, 0.4]), (3000, [0.3, 0.7, 0.2]), (4999, [0.3, 0.7, 0.2]),
                  (5000, [0.5, 0.3, 0.6]), (T - 1, [0.5, 0.3, 0.6])):
        assert inst.means[t].tolist() == mu


def test_gaussian_problem_is_the_notebooks():
    """param_start [[0.9, .5], [0.5, .5], [0.4, .5]]; '2500', '4500', '7000' as cell 2; eta = 0.5 the sd."""
    env = scenario_envs("lbsda_paper_gaussian")["gaussian"]
    inst = env.instance(T, np.random.default_rng(0))
    assert inst.evaluation["change_points"] == [2500, 4500, 7000]
    assert inst.K == 3 and inst.features is None and inst.info["R"] == 0.5
    for t, mu in ((0, [0.9, 0.5, 0.4]), (2500, [0.4, 0.8, 0.5]), (4500, [0.3, 0.2, 0.7]), (7000, [0.9, 0.8, 0.4]),
                  (T - 1, [0.9, 0.8, 0.4])):
        assert inst.means[t].tolist() == mu
    rewards = env.rewards(inst, np.random.default_rng(1))
    assert np.std(rewards - inst.means) == pytest.approx(0.5, rel=0.01)


def test_changing_variance_problem_is_the_notebooks():
    """Cell 6: E2's means; eta 0.5, then 0.25 from '2500', 1 from '4500', 0.5 from '7000'."""
    env = scenario_envs("lbsda_paper_gaussian_varying")["gaussian"]
    inst = env.instance(T, np.random.default_rng(0))
    fixed = scenario_envs("lbsda_paper_gaussian")["gaussian"].instance(T, np.random.default_rng(0))
    np.testing.assert_array_equal(inst.means, fixed.means)
    assert inst.evaluation["change_points"] == [2500, 4500, 7000] and inst.info["R"] == 1.0
    resid = env.rewards(inst, np.random.default_rng(1)) - inst.means
    for (a, b), sd in zip([(0, 2500), (2500, 4500), (4500, 7000), (7000, T)], [0.5, 0.25, 1.0, 0.5], strict=True):
        assert np.std(resid[a:b]) == pytest.approx(sd, rel=0.03)


def test_tuning_is_the_notebooks_formulas():
    from conftest import compose

    K, log = 3, math.log
    a = compose(["+experiment=lbsda_paper"]).algos
    G, nb = 2, 3  # Gamma_T_garivier = nb_change - 1
    tau = int(2 * math.sqrt(T * log(T) / G))
    assert tau == 429 and a.sw_lb_sda.window == a.sw_ts.window == a.sw_klucb_gm.window == tau
    assert a.discounted_ts.gamma == a.d_klucb.gamma == pytest.approx(1 - math.sqrt(G / T) / 4)
    assert a.exp3s_auer.variant == "exp3s" and a.exp3s_auer.switches == nb
    h = log(T / G)
    assert (a.cusum_ucb.h, a.cusum_ucb.alpha) == pytest.approx((h, math.sqrt(G / T * h)))
    assert (a.cusum_ucb.M, a.cusum_ucb.epsilon, a.cusum_ucb.xi) == (50, 0.05, 0.5)
    assert a.m_ucb.window == 800 and a.m_ucb.b == pytest.approx(math.sqrt(800 / 2 * log(2 * K * T ** 2)))
    assert a.m_ucb.gamma == pytest.approx(math.sqrt(G * log(T) * K / T))
    g = compose(["+experiment=lbsda_paper_gaussian"]).algos
    G, sigma_max = 3, 0.5
    assert g.sw_lb_sda.window == int(2 * math.sqrt(T * log(T) / G)) == 350
    assert g.sw_ucb_gm.window == int(2 * (1 + 2 * sigma_max) * math.sqrt(T * log(T) / G)) == 700
    assert g.d_ucb.gamma == pytest.approx(1 - math.sqrt(G / T) / (4 * (1 + 2 * sigma_max)))
    assert (g.d_ucb.B, g.d_ucb.xi) == (sigma_max / 2, 2.0)
    assert g.ucb1.c == pytest.approx((sigma_max * math.sqrt(2)) ** 2) and g.exp3s_auer.switches == 4
    v = compose(["+experiment=lbsda_paper_gaussian_varying"]).algos
    sigma_max = 1.0  # cells 6-7: the "unb" constants with sigma_max = 1
    assert v.sw_lb_sda.window == int(2 * math.sqrt(T * log(T) / G)) == 350
    assert v.sw_ucb_gm.window == int(2 * (1 + 2 * sigma_max) * math.sqrt(T * log(T) / G)) == 1051
    assert v.d_ucb.gamma == pytest.approx(1 - math.sqrt(G / T) / (4 * (1 + 2 * sigma_max)))
    assert 1 / (1 - v.d_ucb.gamma) == pytest.approx(692.82, abs=0.01)  # what cell 7 prints
    assert (v.d_ucb.B, v.d_ucb.xi) == (sigma_max / 2, 2.0)
    assert v.ucb1.c == pytest.approx((sigma_max * math.sqrt(2)) ** 2) and v.exp3s_auer.switches == 4
    assert v.sw_ucb_gm.B * math.sqrt(v.sw_ucb_gm.xi) == pytest.approx(sigma_max * math.sqrt(2))


# ----------------------------------------------------------------------------- the claims rules

def synthetic(name: str, change: dict | None = None, sd: float = 30.0, n: int = 600) -> pd.DataFrame:
    """Final-regret statistics equal to the figure reads, with ``change`` (key -> mean) applied."""
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    means = {**lbsda.PROBLEMS[name]["reads"], **(change or {})}
    return pd.DataFrame({"mean": means, "sd": sd, "n": n})


def claims(tmp_path, name, stats) -> pd.DataFrame:
    from bandits.experiments.figures.drawing import Drawing
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    return pd.DataFrame(lbsda.problem_claims(Drawing(tmp_path), name, stats))


def test_tolerance_is_fixed_as_the_module_says():
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    stats = pd.Series({"mean": 0.0, "sd": 60.0, "n": 600})
    assert lbsda.tolerance(275.0, stats, deviating=False) == pytest.approx(0.10 * 275 + 0.05 * 275)
    assert lbsda.tolerance(460.0, stats, deviating=True) == pytest.approx(0.25 * 460 + 0.05 * 460)
    noisy = pd.Series({"mean": 0.0, "sd": 400.0, "n": 25})  # 3 SE = 240 > 10% of 275
    assert lbsda.tolerance(275.0, noisy, deviating=False) == pytest.approx(240 + 0.05 * 275)


@pytest.mark.parametrize("name", ["lbsda_paper.bernoulli", "lbsda_paper_gaussian.gaussian",
                                  "lbsda_paper_gaussian_varying.gaussian"])
def test_the_figures_own_numbers_agree(tmp_path, name):
    table = claims(tmp_path, name, synthetic(name))
    assert len(table) == len(synthetic(name)) + {"lbsda_paper.bernoulli": 3,
                                                 "lbsda_paper_gaussian_varying.gaussian": 3}.get(name, 2)
    assert (table["verdict"] == "agrees").all()
    assert table["claim"].str.contains("figure read").all() and table["claim"].str.contains("1bdbf3a").all()


def test_failing_cases_disagree(tmp_path):
    from bandits.experiments.figures.names import LABELS

    name = "lbsda_paper.bernoulli"
    # SW-LB-SDA 20% above its read (10% + 5% allowed), SW-TS above D-TS, CUSUM 40% below (25% + 5% allowed)
    table = claims(tmp_path, name, synthetic(name, {"sw_lb_sda": 330.0, "sw_ts": 320.0, "cusum_ucb": 222.0}))
    verdicts = dict(zip(table["claim"].str.split(":").str[0], table["verdict"], strict=True))
    assert verdicts[LABELS["sw_lb_sda"]] == "disagrees: ours higher"
    assert verdicts[LABELS["cusum_ucb"]] == "disagrees: ours lower"
    assert verdicts[LABELS["sw_ts"]] == "agrees"  # 320 vs 280: within 10% + 5% (42)
    orders = table[table["claim"].str.contains("as the authors' figure shows")].set_index("expected")["verdict"]
    assert list(orders) == ["disagrees", "disagrees", "disagrees"]  # 330 > 320 + 3 SE; SW-TS > D-TS; D-TS > CUSUM


def test_margin_claim_compares_the_two_gaussian_figures(tmp_path):
    from bandits.experiments.figures.drawing import Drawing
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    fixed, varying = synthetic(lbsda.MARGIN["fixed"]), synthetic(lbsda.MARGIN["varying"])
    (row,) = lbsda.margin_claim(Drawing(tmp_path), fixed, varying)
    assert row["verdict"] == "agrees" and row["measured"].startswith("1.578 (")  # 538 / 341 against 350 / 270
    assert "1.58 against 1.30" in row["claim"]
    # SW-LB-SDA at 420 in E3: a lead of 538 / 420 = 1.28, below E2's 1.30
    (row,) = lbsda.margin_claim(Drawing(tmp_path), fixed, synthetic(lbsda.MARGIN["varying"], {"sw_lb_sda": 420.0}))
    assert row["verdict"] == "disagrees"
    drawing = Drawing(tmp_path)
    assert lbsda.margin_claim(drawing, fixed, varying.drop(index="ucb1")) == []
    assert drawing.skipped[lbsda.MARGIN_FIGURE] == {"ucb1"}


def test_drawing_one_gaussian_table_alone_keeps_the_margin_row():
    """The margin claim combines E2 and E3: a draw of E3 alone (plots --experiment) dropped its
    row from claims.csv; it now replaces the row only when it draws both."""
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    both = {lbsda.MARGIN["fixed"]: None, lbsda.MARGIN["varying"]: None}
    assert lbsda.MARGIN_FIGURE in lbsda.claim_figures(both)
    assert lbsda.MARGIN_FIGURE not in lbsda.claim_figures({lbsda.MARGIN["varying"]: None})


def test_a_missing_algorithm_skips_its_claims(tmp_path):
    from bandits.experiments.figures.drawing import Drawing
    from bandits.experiments.studies import lbsda_notebooks as lbsda

    drawing = Drawing(tmp_path)
    stats = synthetic("lbsda_paper.bernoulli").drop(index="sw_lb_sda")
    rows = lbsda.problem_claims(drawing, "lbsda_paper.bernoulli", stats)
    assert len(rows) == 7 + 2 and drawing.skipped["lbsda_paper_bernoulli"] == {"sw_lb_sda"}


# ----------------------------------------------------------------------------- a reduced run

def test_reduced_run_gives_the_tables_figures_and_claims(tmp_path):
    from conftest import compose

    from bandits.experiments.plots import stage as plots
    from bandits.experiments.run.sweep import run_config

    for experiment in ("lbsda_paper", "lbsda_paper_gaussian"):
        run_config(compose([f"+experiment={experiment}", "horizon_scale=0.1", "trials=2", f"results_dir={tmp_path}"]),
                   progress=False)
    plots.main(["--results", str(tmp_path)])
    for name in ("lbsda_paper.bernoulli", "lbsda_paper_gaussian.gaussian"):
        rows = pd.read_parquet(tmp_path / "tables" / f"{name}.parquet")
        assert rows["T"].unique().tolist() == [1000] and rows.groupby("label").size().eq(2).all()
        assert (tmp_path / "figures" / f"{name.replace('.', '_')}.png").stat().st_size > 0
    table = pd.read_csv(tmp_path / "claims.csv")
    assert set(table["figure"]) == {"lbsda_paper_bernoulli", "lbsda_paper_gaussian_gaussian"}
    assert len(table) == 8 + 3 + 5 + 2 and table["scale"].str.startswith("reduced scale").all()
