"""Auto-loan pricing: the CPRM-12-001 loader on crafted CSVs, the surrogate, the
pricing environment, and the MW / company baselines."""

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from bandits.algorithms import MovingWindowPricing, RecordedPrices
from bandits.environments import AutoLoan, cprm_data, cprm_surrogate
from bandits.errors import ConfigError


def crafted(path, n=400, days=4, seed=0, **overrides):
    """A small CSV in the real file's schema (plus an extra column the loader ignores)."""
    rng = np.random.default_rng(seed)
    day = np.sort(rng.integers(0, days, n))
    frame = pd.DataFrame({
        "Tier": rng.integers(1, 5, n),
        "Primary_FICO": rng.integers(600, 850, n), "Term": rng.choice([36, 60, 72], n),
        "Amount_Approved": rng.integers(10, 40, n) * 1000.0, "onemonth": 1.5 + 0.01 * day,
        "CarType": rng.choice(["N", "U", "R"], n), "Competition_rate": rng.uniform(4, 7, n),
        "mp": rng.uniform(300, 900, n), "apply": rng.integers(0, 2, n),
        "Approve_Date": [f"7/{d + 1}/2002" for d in day]})
    for k, v in overrides.items():
        frame[k] = v
    frame.to_csv(path, index=False)
    return path


def test_missing_file_names_it_and_where_to_get_it(tmp_path):
    with pytest.raises(ConfigError, match="does not exist.*Columbia"):
        cprm_data.load_cprm(tmp_path / "nope.csv", 10)


def test_missing_column_is_named(tmp_path):
    path = crafted(tmp_path / "a.csv")
    pd.read_csv(path).drop(columns="Competition_rate").to_csv(path, index=False)
    with pytest.raises(ConfigError, match=r"lacks column\(s\) \['Competition_rate'\]"):
        cprm_data.load_cprm(path, 10)


def test_unparsable_date_names_column_and_row(tmp_path):
    frame = pd.read_csv(crafted(tmp_path / "a.csv"))
    frame.loc[7, "Approve_Date"] = "2002-07-01"
    frame.to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(ConfigError, match=r"Approve_Date, data row 8 \(line 9\) holds '2002-07-01'"):
        cprm_data.load_cprm(tmp_path / "a.csv", 10)


def test_fewer_rows_than_T(tmp_path):
    with pytest.raises(ConfigError, match="has 400 rows but T=500"):
        cprm_data.load_cprm(crafted(tmp_path / "a.csv"), 500)


def test_loader_never_modifies_the_file(tmp_path):
    path = crafted(tmp_path / "a.csv")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    env = AutoLoan(data_path=str(path))
    env.check_params(300)
    env.instance(300)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_rows_are_taken_in_date_order(tmp_path):
    frame = pd.read_csv(crafted(tmp_path / "a.csv"))
    frame = frame.iloc[::-1]  # file order reversed: the loader must sort by date
    frame.to_csv(tmp_path / "b.csv", index=False)
    loaded = cprm_data.load_cprm(tmp_path / "b.csv", 100)
    assert loaded["date"].is_monotonic_increasing and loaded["date"].iloc[0] == pd.Timestamp("2002-07-01")


def test_price_imputation_by_hand():
    # 60 payments of 500 at r = 0.0012, minus 25,000 lent
    npv = cprm_data.impute_price([500.0], [60.0], [25_000.0])[0]
    assert npv == pytest.approx(500 * (1 - 1.0012 ** -60) / 0.0012 - 25_000)
    prices, scale = cprm_data.rescale_prices(np.array([-5.0, 100.0, 250.0]))
    assert prices.tolist() == [0.0, 160.0, 400.0] and scale == pytest.approx(1.6)


def test_features_are_standardised(tmp_path):
    frame = cprm_data.load_cprm(crafted(tmp_path / "a.csv"), 400)
    x = cprm_data.build_features(frame)
    assert x.shape == (400, 8) and (x[:, 0] == 1).all()
    np.testing.assert_allclose(x[:, 1:6].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(x[:, 1:6].std(axis=0), 1, atol=1e-12)
    np.testing.assert_array_equal(x[:, 6], (frame["CarType"] == "U").to_numpy(float))


def test_recover_theta_exact_on_noiseless_days():
    rng = np.random.default_rng(1)
    n, k = 600, 3
    x = np.column_stack([np.ones(n), rng.standard_normal((n, k - 1))])
    price = rng.uniform(0, 400, n)
    days = np.repeat(np.arange(3), 200)
    truth = rng.standard_normal((3, 2 * k)) * 0.01
    y = (np.hstack([x, price[:, None] * x]) * truth[days]).sum(axis=1)
    theta, ridge = cprm_data.recover_theta(x, price, y, days)
    np.testing.assert_allclose(theta, truth, atol=1e-10)
    assert not ridge.any()
    _, ridge = cprm_data.recover_theta(x, price, y, np.r_[np.zeros(590, int), np.ones(10, int)])
    assert ridge.tolist() == [False, True]  # 10 rows < 2 d = 12: ridge


def test_surrogate_is_deterministic_and_calibrated(tmp_path):
    a = cprm_surrogate.generate(tmp_path / "a.csv")
    b = cprm_surrogate.generate(tmp_path / "b.csv")
    assert a.read_bytes() == b.read_bytes()
    frame = cprm_data.load_cprm(a, 50_000)  # the real file's loader
    assert cprm_data.day_index(frame).max() + 1 == 276
    assert frame["apply"].mean() == pytest.approx(0.164, abs=0.005)
    assert frame["mp"].mean() == pytest.approx(585, abs=0.5)


@pytest.fixture(scope="module")
def pricing():
    env = AutoLoan()
    env.check_params(3000)
    inst = env.instance(3000)
    return env, inst


def test_pricing_environment_is_the_papers_model(pricing):
    env, inst = pricing
    prices = inst.info["prices"]
    assert prices.tolist() == list(np.arange(0.0, 501.0, 10.0))
    assert inst.means.shape == (3000, 51) and inst.features.shape == (3000, 51, 16)
    prob = inst.extras["prob"]
    np.testing.assert_allclose(inst.means, prices * prob)
    assert prob.min() >= 0 and prob.max() <= 1
    # the linear model: revenue = <theta_rev, phi> wherever the clip is inactive
    t, k = 5, 7
    assert inst.evaluation["data_source"] == "synthetic surrogate"
    r1 = env.rewards(inst, np.random.default_rng(0))
    assert set(np.unique(r1 / np.where(prices > 0, prices, 1))) <= {0.0, 1.0}
    # one uniform per customer: a customer who accepts a price accepts every cheaper price
    # with a higher probability
    acc = (r1[:, 1:] > 0)
    higher_prob = prob[:, 1:-1] >= prob[:, 2:]
    assert not (acc[:, 1:] & ~acc[:, :-1] & higher_prob).any()
    assert np.isfinite(inst.evaluation["B_T_theta"]) and inst.evaluation["B_T_theta"] > 0
    assert t < k  # (indices used above are in range)


def test_mw_finds_the_revenue_maximising_price_of_a_linear_demand():
    T = 20_000
    prices = np.arange(0.0, 501.0, 10.0)
    prob = np.clip(1 - prices / 500, 0, 1)  # revenue p (1 - p/500): best at p = 250
    u = np.random.default_rng(0).random(T)
    rewards = prices[None, :] * (u[:, None] < prob[None, :])
    algo = MovingWindowPricing()
    actions = algo.play(rewards, {"prices": prices}, None)
    assert (actions > 0).all()  # MW never charges 0, which reveals nothing
    # 1/4 and 3/4 of the top price (125, 375), snapped to the grid; halfway ties go to the lower price
    assert actions[0] == 12 and actions[1] == 37
    late = prices[actions[T // 2:]]
    assert 200 <= np.median(late) <= 300


def test_company_replays_recorded_prices(pricing):
    _, inst = pricing
    got = RecordedPrices().play(np.zeros((3000, 51)), inst.info, None)
    np.testing.assert_array_equal(got, inst.info["recorded_action"])


def test_real_schema_csv_runs_the_pipeline_end_to_end(tmp_path):
    path = crafted(tmp_path / "real.csv", n=900, days=5)
    cmd = [sys.executable, "run.py", "+experiment=fig5", f"env.data_path={path}", "T=800", "trials=2", "n_jobs=1",
           f"results_dir={tmp_path}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    from bandits.experiments.plots import stage as plots
    plots.main(["--results", str(tmp_path)])
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert set(claims["source"]) == {"CPRM-12-001"} and (claims["figure"] == "fig5").sum() == 5
    assert (tmp_path / "figures" / "fig5.png").exists()


def test_cli_reports_a_missing_data_file(tmp_path):
    cmd = [sys.executable, "run.py", "env=autoloan", f"env.data_path={tmp_path}/missing.csv", "algo=ucb", "T=100",
           f"results_dir={tmp_path}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "missing.csv" in proc.stderr and "Columbia" in proc.stderr
