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
    assert list(claims.columns) == ["claim", "figure", "measured", "expected", "verdict"]
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
