"""Plot stage: figures, their CSV and the claims table from small tables."""

import numpy as np
import pandas as pd
import pytest
from conftest import compose

from experiments import figures, runner


def test_fitted_slope_recovers_a_power_law():
    T = np.array([1e3, 1e4, 1e5])
    assert figures.fitted_slope(T, 3 * T ** 0.7) == pytest.approx(0.7)


def test_plot_stage_writes_figures_data_and_claims(tmp_path):
    for exp in ("fig2a", "fig2b"):
        runner.run(compose([f"+experiment={exp}", "trials=2", "T=[1500,3000]", f"results_dir={tmp_path}"]),
                   progress=False)
    figures.main(["--results", str(tmp_path)])
    for name in ("fig2a", "fig2b"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / "figures" / f"{name}.{ext}").stat().st_size > 0
    data = pd.read_csv(tmp_path / "figures" / "fig2a.csv")
    assert {"algo", "T", "mean_regret", "ci_low", "ci_high", "fitted_slope", "theory_slope"} <= set(data.columns)
    assert (data["ci_low"] <= data["mean_regret"]).all() and (data["mean_regret"] <= data["ci_high"]).all()
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert list(claims.columns) == ["claim", "figure", "measured", "expected", "verdict", "source", "code"]
    assert claims["code"].str.len().min() > 0  # every claim says which code produced it
    assert set(claims["source"]) == {"simulation"}
    assert set(claims["figure"]) == {"fig2a", "fig2b"}
    assert set(claims["verdict"]) <= {"agrees", "disagrees", "below bound", "exceeds bound"}
    # one ratio row per T for each EXP3.S reading, plus one slope row per algorithm
    assert claims["claim"].str.contains("about 20%").sum() == 2 * 2


def test_slope_verdicts():
    assert figures.slope_verdict(0.70, 2 / 3) == "agrees"
    assert figures.slope_verdict(0.45, 2 / 3) == "below bound"
    assert figures.slope_verdict(0.95, 7 / 9) == "exceeds bound"


def test_claims_of_other_figures_are_kept(tmp_path):
    pd.DataFrame([{"claim": "x", "figure": "fig9", "measured": 1, "expected": 1, "verdict": "agrees"}]).to_csv(
        tmp_path / "claims.csv", index=False)
    figures.write_claims(tmp_path, [{"claim": "y", "figure": "fig2a", "measured": 0, "expected": 0,
                                     "verdict": "agrees"}])
    assert set(pd.read_csv(tmp_path / "claims.csv")["figure"]) == {"fig9", "fig2a"}


def test_piecewise_figures_and_claims(tmp_path):
    for exp in ("fig3", "fig4"):
        runner.run(compose([f"+experiment={exp}", "trials=2", "T=2000", f"results_dir={tmp_path}"]), progress=False)
        for seed in (0, 1):
            runner.run(compose([f"+experiment={exp}_instances", "trials=2", "T=2000", f"seed={seed}",
                                f"results_dir={tmp_path}"]), progress=False)
    figures.main(["--results", str(tmp_path)])
    for name in ("fig3a", "fig3b", "fig4a", "fig4b"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / "figures" / f"{name}.{ext}").stat().st_size > 0
    curve = pd.read_csv(tmp_path / "figures" / "fig3b.csv")
    assert set(curve["algo"]) == {"sw_ucb_opt", "exp3s", "bob", "sw_ucb_obl", "ucb"}
    assert curve.groupby("algo")["t"].max().eq(2000).all()
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert {"fig3", "fig4", "fig3_instances", "fig4_instances"} <= set(claims["figure"])
    fig3 = claims[claims["figure"] == "fig3"]["claim"]
    assert fig3.str.contains("UCB fails").any() and fig3.str.contains("comparable").any()
    inst = claims[claims["figure"] == "fig3_instances"]["measured"]
    assert inst.str.fullmatch(r"holds on \d+/2 instances").all()


def test_curve_band_is_a_t_interval():
    rows = pd.DataFrame({"algo": ["a", "a", "a"], "checkpoints": [[1, 2]] * 3,
                         "regret_curve": [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]})
    band = figures.curve_band(rows, "regret_curve")
    half = 4.302652729911275 * 1.0 / np.sqrt(3)  # t_{0.975, 2} * sd / sqrt(n) at t = 1
    assert band["mean"].tolist() == [2.0, 4.0]
    assert band["ci_high"].iloc[0] == pytest.approx(2.0 + half)


def test_ctx_baselines_figures_and_claims(tmp_path):
    for pieces in (1, 5):
        rows = runner.run(compose(["+experiment=ctx_baselines", f"env.n_pieces={pieces}", "env.n_policies=30",
                                   "T=3000", "trials=2", "n_jobs=1", "~algos.vw_cover",
                                   f"results_dir={tmp_path}"]), progress=False)
        assert {"iltcb", "oracle_restart", "epsilon_greedy", "exp4"} <= set(rows["algo"])
    figures.main(["--results", str(tmp_path)])
    for name in ("ctx_baselines_S1", "ctx_baselines_S5"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert set(claims["figure"]) == {"ctx_baselines_S1", "ctx_baselines_S5"}
