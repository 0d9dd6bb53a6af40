"""Plot stage: figures, their CSV and the claims table from small tables."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import compose

from bandits.experiments import figures
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.plots import stage as plots
from bandits.experiments.run.sweep import run_config
from bandits.experiments.run.worker import to_json
from bandits.experiments.store import table_store as store


def test_fitted_slope_recovers_a_power_law():
    T = np.array([1e3, 1e4, 1e5])
    assert figures.fitted_slope(T, 3 * T ** 0.7) == pytest.approx(0.7)


def test_plot_stage_writes_figures_data_and_claims(tmp_path):
    for exp in ("fig2a", "fig2b"):
        run_config(compose([f"+experiment={exp}", "trials=2", "T=[1500,3000]", f"results_dir={tmp_path}"]),
                   progress=False)
    plots.main(["--results", str(tmp_path)])
    for name in ("fig2a", "fig2b"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / "figures" / f"{name}.{ext}").stat().st_size > 0
    data = pd.read_csv(tmp_path / "figures" / "fig2a.csv")
    assert {"algo", "T", "mean_regret", "ci_low", "ci_high", "fitted_slope", "theory_slope"} <= set(data.columns)
    assert (data["ci_low"] <= data["mean_regret"]).all() and (data["mean_regret"] <= data["ci_high"]).all()
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert list(claims.columns) == ["claim", "figure", "measured", "expected", "verdict", "source", "code", "scale"]
    assert claims["code"].str.len().min() > 0  # every claim says which code produced it
    assert set(claims["source"]) == {"simulation"}
    assert set(claims["figure"]) == {"fig2a", "fig2b"}
    assert set(claims["verdict"]) <= {"agrees", "disagrees", "below bound", "exceeds bound", "not measured"}
    # two horizons: the slope rule measures no slope, and the claims say so
    slopes = claims[claims["claim"].str.contains("slope")]
    assert (slopes["verdict"] == "not measured").all() and (slopes["measured"] == "n/a (fewer than 3 horizons)").all()
    assert data["fitted_slope"].isna().all()
    # one ratio row per T for each EXP3.S reading, plus one slope row per algorithm
    assert claims["claim"].str.contains("about 20%").sum() == 2 * 2


def test_the_plot_stage_reads_curves_from_the_files_only_for_what_it_draws(tmp_path):
    """read_table leaves the per-round columns on disk, and curve_band reads them by cell key
    from the tables' files: the band is bit-identical to the one from the full rows, for rows
    of two tables in any order and for a subset of them."""
    from bandits.experiments.figures import common

    for algo in ("ucb1", "exp3s"):
        run_config(compose([f"algo={algo}", "env=piecewise_bernoulli", "T=[300,600]", "trials=3",
                            f"experiment_name=t_{algo}", f"results_dir={tmp_path}"]), progress=False)
    light, full = [], []
    for algo in ("ucb1", "exp3s"):
        path = tmp_path / "tables" / f"t_{algo}.parquet"
        rows = common.read_table(path)
        assert not set(common.CURVE_COLUMNS) & set(rows.columns)
        assert set(rows[common.FILE_COLUMN]) == {str(path)}  # where its curves are read from when drawn
        light.append(rows)
        whole = pd.read_parquet(path)
        full.append(whole.assign(label=common.config_labels(whole)))
    light = pd.concat(light, ignore_index=True).sample(frac=1.0, random_state=0)  # rows of both, shuffled
    full = pd.concat(full, ignore_index=True).set_index("cell_key").loc[light["cell_key"]].reset_index()
    for pick in (slice(None), slice(0, 7)):
        one, two = light.iloc[pick], full.iloc[pick]
        for column in ("regret_curve", "reward_curve"):
            for T in (300, 600):
                a = common.curve_band(one[one["T"] == T], column)
                b = common.curve_band(two[two["T"] == T], column)
                pd.testing.assert_frame_equal(a, b)
                assert a["t"].max() == T
    twice = pd.concat([light.iloc[:5], light.iloc[:5]], ignore_index=True)  # a row given twice counts twice
    pd.testing.assert_frame_equal(common.curve_band(twice, "regret_curve"),
                                  common.curve_band(pd.concat([full.iloc[:5], full.iloc[:5]]), "regret_curve"))
    with pytest.raises(ValueError, match="no stored regret_curve"):  # a row its table does not hold
        common.curve_band(light.assign(cell_key=light["cell_key"] + "x"), "regret_curve")


def test_slope_verdicts():
    assert figures.slope_verdict(0.70, 2 / 3) == "agrees"
    assert figures.slope_verdict(0.45, 2 / 3) == "below bound"
    assert figures.slope_verdict(0.95, 7 / 9) == "exceeds bound"


def test_claims_of_other_figures_are_kept(tmp_path):
    pd.DataFrame([{"claim": "x", "figure": "fig9", "measured": 1, "expected": 1, "verdict": "agrees"}]).to_csv(
        tmp_path / "claims.csv", index=False)
    figures.write_claims(tmp_path, [{"claim": "y", "figure": "fig2a", "measured": 0, "expected": 0,
                                     "verdict": "agrees"}], Drawing(tmp_path / "figures"))
    assert set(pd.read_csv(tmp_path / "claims.csv")["figure"]) == {"fig9", "fig2a"}


def test_piecewise_figures_and_claims(tmp_path):
    for exp in ("fig3", "fig4"):
        run_config(compose([f"+experiment={exp}", "trials=2", "T=2000", f"results_dir={tmp_path}"]), progress=False)
        for seed in (0, 1):
            run_config(compose([f"+experiment={exp}_instances", "trials=2", "T=2000", f"seed={seed}",
                                f"results_dir={tmp_path}"]), progress=False)
    plots.main(["--results", str(tmp_path)])
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
    # the later baselines ran in the same trials: their own panel and group claims, none in the paper's
    modern = pd.read_csv(tmp_path / "figures" / "fig4_modern.csv")
    assert set(modern["algo"]) == {"sw_ucb_opt", "bob", "sw_ucb_obl", "ucb", "d_linucb", "restart_linucb",
                                   "restart_linucb_bob", "master_oful", "master_oful_nolog", "d_randlinucb", "d_lints",
                                   "d_linucb_horizon", "d_linucb_anytime"}
    assert {"fig3_modern", "fig4_modern", "fig3_modern_instances", "fig4_modern_instances"} <= set(claims["figure"])
    # the "know B_T" statement again with each corrected D-LinUCB radius in D-LinUCB's place
    radius = claims[claims["claim"].str.startswith("D-LinUCB with Wu 2026's")]
    assert set(radius["figure"]) == {"fig3_modern", "fig4_modern", "fig3_modern_instances", "fig4_modern_instances"}
    assert len(radius) == 8 and radius["measured"][radius["figure"] == "fig4_modern"].str.contains(
        "d_linucb_anytime").any() and not radius["measured"][radius["claim"].str.contains("horizon")].str.contains(
        "'d_linucb'").any()
    paper = claims[claims["figure"].isin(["fig3", "fig4", "fig3_instances", "fig4_instances"])]
    assert not paper["measured"].str.contains("master_oful|d_linucb|restart_linucb|d_randlinucb|d_lints").any()


def test_modern_group_claims_keep_the_paper_statements_apart():
    """A later baseline below BOB / SW-UCB-opt makes the modern group claims disagree while
    the paper's statements, on the paper's algorithms only, still agree."""
    from bandits.experiments.studies.hedging_fig3_fig4 import modern_claims, piecewise_claims

    reg = pd.Series({"sw_ucb_opt": 3.0, "exp3s": 9.0, "bob": 10.0, "sw_ucb_obl": 20.0, "ucb": 30.0,
                     "d_linucb": 2.0, "restart_linucb": 4.0, "restart_linucb_bob": 12.0, "master_oful": 5.0})
    rew = pd.Series(100.0, index=reg.index)
    drawing = Drawing(Path("unused"))
    paper = {row["claim"]: row["verdict"] for row in piecewise_claims(drawing, "fig3", reg, rew)}
    assert not drawing.skipped  # every input there
    assert paper["BOB has the lowest regret among algorithms that do not know B_T"] == "agrees"
    assert paper["SW-UCB-opt has the lowest regret among algorithms that know B_T"] == "agrees"
    rows = modern_claims("fig3_modern", reg)
    modern = [row for row in rows if row["claim"].startswith("later baselines included")]
    assert [row["verdict"] for row in modern] == ["disagrees", "disagrees"]  # MASTER-OFUL 5 < BOB; D-LinUCB 2 < 3
    assert "MASTER-OFUL" in modern[0]["claim"] and "D-LinUCB" in modern[1]["claim"]
    # the earlier verdict "MASTER-OFUL below BOB", one row per reading present
    master = [row for row in rows if row["claim"] == "MASTER-OFUL has lower regret than BOB"]
    assert [row["verdict"] for row in master] == ["agrees"]
    assert modern_claims("fig3_modern", reg.drop(["d_linucb", "restart_linucb", "restart_linucb_bob",
                                                  "master_oful"])) == []  # no later baseline: no row


def test_curve_band_is_a_t_interval():
    rows = pd.DataFrame({"algo": ["a", "a", "a"], "checkpoints": [[1, 2]] * 3,
                         "regret_curve": [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]})
    band = figures.curve_band(rows, "regret_curve")
    half = 4.302652729911275 * 1.0 / np.sqrt(3)  # t_{0.975, 2} * sd / sqrt(n) at t = 1
    assert band["mean"].tolist() == [2.0, 4.0]
    assert band["ci_high"].iloc[0] == pytest.approx(2.0 + half)


def test_ctx_baselines_figures_and_claims(tmp_path):
    for pieces in (1, 5):
        rows = run_config(compose(["+experiment=ctx_baselines", f"env.n_pieces={pieces}", "env.n_policies=30",
                                   "T=3000", "trials=2", "n_jobs=1", "~algos.vw_cover",
                                   f"results_dir={tmp_path}"]), progress=False)
        assert {"iltcb", "oracle_restart", "epsilon_greedy", "exp4"} <= set(rows["algo"])
    plots.main(["--results", str(tmp_path)])
    for name in ("ctx_baselines_S1", "ctx_baselines_S5"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert set(claims["figure"]) == {"ctx_baselines_S1", "ctx_baselines_S5"}


# ----------------------------------------------------------------------------- robustness

def small_table(tmp_path, name, overrides):
    """Run a tiny experiment into its own folder and return its table."""
    folder = tmp_path / "runs" / name
    run_config(compose(overrides + ["trials=2", "n_jobs=1", f"results_dir={folder}"]), progress=False)
    (table,) = (folder / "tables").glob("*.parquet")
    return pd.read_parquet(table)


def window_sweep(tmp_path, T="2000"):
    """The table of a sweep over SW-UCB's window (200 and 800) as the runner stores it:
    one table, labelled sw_ucb[window=200] and sw_ucb[window=800]."""
    folder = tmp_path / "runs" / "window_sweep"
    for window in (200, 800):
        run_config(compose(["algo=sw_ucb", f"algo.window={window}", "env=sinusoid", f"T={T}", "trials=2",
                            f"results_dir={folder}"]), progress=False)
    rows = pd.read_parquet(folder / "tables" / "adhoc.parquet")
    assert set(rows["label"]) == {"sw_ucb[window=200]", "sw_ucb[window=800]"}
    return rows


def notices(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("notice:")]


def test_plot_stage_survives_empty_partial_and_unreadable_tables(tmp_path, capsys):
    results = tmp_path / "results"
    tables = results / "tables"
    tables.mkdir(parents=True)
    small_table(tmp_path, "fig2a", ["+experiment=fig2a", "T=[1500,3000]"]).to_parquet(tables / "fig2a.parquet")
    pq.write_table(store.SCHEMA.empty_table(), tables / "fig2b.parquet")  # the store's schema, no rows
    fig3 = small_table(tmp_path, "fig3", ["+experiment=fig3", "T=1000"])
    fig3[fig3["algo"] != "exp3s"].to_parquet(tables / "fig3.parquet")  # partial, and no fig4 table
    (tables / "broken.parquet").write_bytes(b"not a parquet file")
    window_sweep(tmp_path).to_parquet(tables / "adhoc.parquet")
    capsys.readouterr()  # the runs' own output

    plots.main(["--results", str(results)])  # no exception
    out = capsys.readouterr()
    lines = notices(out.err + out.out)
    assert len([n for n in lines if n.startswith("notice: fig2b:")]) == 1 and "no rows" in " ".join(lines)
    assert len([n for n in lines if n.startswith("notice: broken:")]) == 1 and "unreadable" in " ".join(lines)
    assert any(n.startswith("notice: fig3:") and "exp3s" in n for n in lines)  # its claims need EXP3.S
    assert any(n.startswith("notice: fig4:") and "table fig4" in n for n in lines)  # Fig. 3 vs 4 needs fig4
    assert not any("fig2a" in n or "adhoc" in n for n in lines)  # the good tables raise nothing
    assert max(len(line) for line in (out.out + out.err).splitlines()) <= 100
    made = {p.name for p in (results / "figures").iterdir()}
    assert {"fig2a.png", "fig3a.png", "fig3b.png", "adhoc.png", "adhoc_sweep_window.png"} <= made
    assert not any(name.startswith(("fig2b", "broken")) for name in made)
    claims = pd.read_csv(results / "claims.csv")
    assert set(claims["figure"]) == {"fig2a", "fig3", "fig3_modern"}  # fig3 ran the later baselines too
    fig3_claims = claims[claims["figure"] == "fig3"]["claim"]
    assert fig3_claims.str.contains("UCB fails").any()
    assert not fig3_claims.str.contains("EXP3.S|SW-UCB-opt").any()  # never made from missing inputs


def test_plot_stage_without_tables_says_so(tmp_path, capsys):
    plots.main(["--results", str(tmp_path / "nothing")])
    assert notices(capsys.readouterr().err) == ["notice: plot stage: no folder nothing/tables; nothing to plot"]


def test_a_failing_module_costs_only_its_own_figures(tmp_path, capsys):
    tables = tmp_path / "tables"
    tables.mkdir()
    fig5 = small_table(tmp_path, "fig5", ["+experiment=fig5", "T=500", "~algos.company", "~algos.mw"])
    fig5.drop(columns="env_info").to_parquet(tables / "fig5.parquet")
    window_sweep(tmp_path, T="500").to_parquet(tables / "adhoc.parquet")
    capsys.readouterr()
    plots.main(["--results", str(tmp_path)])
    lines = notices(capsys.readouterr().err)
    assert lines == ["notice: fig5: hedging_fig5 failed (KeyError: 'env_info'); its figures and claims skipped"]
    assert (tmp_path / "figures" / "adhoc.png").exists() and not (tmp_path / "figures" / "fig5.png").exists()


# ----------------------------------------------------------------------------- generic figures

def test_hyperparameter_sweep_gets_a_sweep_figure(tmp_path):
    (tmp_path / "tables").mkdir()
    window_sweep(tmp_path).to_parquet(tmp_path / "tables" / "sweep.parquet")
    plots.main(["--results", str(tmp_path)])
    sweep = pd.read_csv(tmp_path / "figures" / "sweep_sweep_window.csv")
    assert sorted(sweep["value"]) == [200, 800] and set(sweep["parameter"]) == {"window"}
    assert set(sweep["algo"]) == {"sw_ucb"} and (sweep["T"] == 2000).all()
    curves = pd.read_csv(tmp_path / "figures" / "sweep.csv")  # one horizon: regret against t
    assert set(curves["label"]) == {"sw_ucb[window=200]", "sw_ucb[window=800]"}
    assert curves.groupby("label")["t"].max().eq(2000).all()


def test_a_sweep_over_a_parameter_and_T_says_which_T_it_draws(tmp_path, capsys):
    (tmp_path / "tables").mkdir()
    rows = window_sweep(tmp_path)
    pd.concat([rows, rows.assign(T=1000)]).to_parquet(tmp_path / "tables" / "sweep.parquet")
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    assert "sweep_sweep_window: sw_ucb at T = 2,000 only; other T: the regret-by-T figure" in capsys.readouterr().err


def config_rows(params: dict) -> pd.DataFrame:
    """Final-regret rows of labelled configurations of one algorithm (two trials, two T)."""
    return pd.DataFrame([{"algo": "sw_ucb", "label": label, "T": T, "trial": trial, "final_regret": 10.0 + trial,
                          "algo_params": json.dumps({**p, "derived": {"w": T}}), "env_params": json.dumps(env)}
                         for label, (p, env) in params.items() for T in (100, 200) for trial in (0, 1)])


def test_sweeps_need_exactly_one_numeric_difference(capsys):
    from bandits.experiments.figures import generic

    one = config_rows({"a": ({"window": 10}, {"R": 0.1}), "b": ({"window": 1000}, {"R": 0.1})})
    assert list(generic.sweeps("t", one)) == ["window"]  # "derived" differs too, and does not count
    env = config_rows({"a": ({"window": 10}, {"R": 0.1}), "b": ({"window": 10}, {"R": 0.2})})
    assert list(generic.sweeps("t", env)) == ["env.R"]
    two = config_rows({"a": ({"window": 10, "lam": 1}, {}), "b": ({"window": 20, "lam": 2}, {})})
    assert generic.sweeps("t", two) == {}
    assert "sw_ucb configurations differ in window, lam" in capsys.readouterr().err


def test_curves_use_label_and_fall_back_to_algo():
    rows = pd.DataFrame({"algo": ["ucb", "ucb", "bob", "bob"], "label": ["ucb[a=1]", "ucb[a=1]", None, None],
                         "T": [10] * 4, "final_regret": [1.0, 3.0, 2.0, 4.0]})
    assert sorted(figures.regret_by_T(rows, key="label")["label"]) == ["bob", "ucb[a=1]"]
    assert sorted(figures.regret_by_T(rows.drop(columns="label"))["algo"]) == ["bob", "ucb"]


# ----------------------------------------------------------------------------- slopes and references

def curves(regret: dict) -> pd.DataFrame:
    """Table rows: algo -> mean final regret at T = 1e3, 1e4, 1e5 (two trials each, +-0.5)."""
    T = [1000, 10000, 100000]
    return pd.DataFrame([{"algo": a, "T": t, "trial": k, "final_regret": r + k - 0.5}
                         for a, rs in regret.items() for t, r in zip(T, rs, strict=True) for k in (0, 1)])


def test_slope_rule(tmp_path):
    assert figures.measured_slope([1e3, 1e4, 1e5], [10, 50, 250])[0] == pytest.approx(np.log10(5))
    slope, why_not = figures.measured_slope([1e3, 1e4, 1e5], [10, 50, 40])
    assert np.isnan(slope) and why_not == "not monotone in T"
    assert figures.measured_slope([1e3, 1e4], [10, 50])[1] == "fewer than 3 horizons"
    rows = curves({"up": [10, 50, 250], "zigzag": [10, 50, 40]})
    theory = {"up": (2 / 3, "2/3"), "zigzag": (2 / 3, "2/3")}
    data = figures.loglog_figure(rows, "demo", "demo", theory, Drawing(tmp_path))
    slopes = pd.read_csv(tmp_path / "demo.csv").groupby("algo")["fitted_slope"].first()
    assert slopes["up"] == pytest.approx(np.log10(5)) and np.isnan(slopes["zigzag"])
    for algo, measured, word in (("up", round(np.log10(5), 3), "agrees"), ("zigzag", "n/a (not monotone in T)",
                                                                          "not measured")):
        row = figures.slope_claim("c", "demo", data[data["algo"] == algo], "2/3", lambda s: "agrees")
        assert (row["measured"], row["verdict"]) == (measured, word)


def test_reference_line_drawn_once_per_exponent():
    import matplotlib.pyplot as plt

    theory = {"a": (2 / 3, "2/3"), "b": (2 / 3, "2/3"), "c": (7 / 9, "7/9")}
    rows = curves({"a": [10, 50, 250], "b": [20, 90, 400], "c": [5, 60, 30]})
    data = figures.with_slopes(figures.regret_by_T(rows), theory)
    fig, ax = plt.subplots()
    figures.plot_loglog(ax, data, theory)
    labels = [line.get_label() for line in ax.lines]
    plt.close(fig)
    assert [lab for lab in labels if lab.startswith("reference")] == ["reference slope 2/3", "reference slope 7/9"]
    assert labels[:3] == ["a: slope 0.70", "b: slope 0.65", "c"]  # no theory text; no slope where none is measured
    reference = ax.lines[3]  # anchored at the first point of the first curve with that rate
    assert reference.get_ydata()[0] == pytest.approx(10.0) and reference.get_xdata()[0] == 1000


def test_ns_benchmark_leaderboard_and_claims(tmp_path):
    """The benchmark's plot stage: a figure per scenario; a leaderboard whose best learner
    has ratio 1 and rank 1, whose ratios are mean regrets over the best's with intervals
    around them, where the oracle is never best; and the MASTER and detection claims."""
    keep = ["~algos." + a for a in ("sw_ucb_obl", "bob", "exp3s", "thompson", "discounted_ts", "sw_ts", "d_ucb",
                                    "sw_ucb_gm", "glr_klucb_global", "kl_ucb")]
    run_config(compose(["+experiment=ns_benchmark", "instances=2", "trials=3", "T=[1000,2000,4000]",
                        f"results_dir={tmp_path}",
                        "~scenarios.slow_drift", "~scenarios.hedging_sinusoid", "~scenarios.abrupt_many_small",
                        "~scenarios.stationary", *keep]), progress=False)
    plots.main(["--results", str(tmp_path)])
    for scenario in ("abrupt_few", "suboptimal_changes"):
        assert (tmp_path / "figures" / f"ns_benchmark_{scenario}.png").stat().st_size > 0
    board = pd.read_csv(tmp_path / "figures" / "ns_benchmark_leaderboard.csv")
    assert set(board["scenario"]) == {"abrupt_few", "suboptimal_changes"} and set(board["T"]) == {1000, 2000, 4000}
    for (_, _), g in board.groupby(["scenario", "T"]):
        learners = g[g["algo"] != "oracle_restart_ucb"]
        best = learners.loc[learners["mean_regret"].idxmin()]
        assert (g["best"] == best["algo"]).all() and best["rank"] == 1 and best["ratio_to_best"] == 1
        assert g["ratio_to_best"].to_numpy() == pytest.approx(g["mean_regret"].to_numpy() / best["mean_regret"],
                                                              rel=1e-3)
        inside = (g["ratio_ci_low"] <= g["ratio_to_best"] + 1e-9) & (g["ratio_to_best"] <= g["ratio_ci_high"] + 1e-9)
        assert inside.all()
        assert g.loc[g["algo"] == "oracle_restart_ucb", "rank"].isna().all()
        assert (g["ns_per_round"] > 0).all()
    claims = pd.read_csv(tmp_path / "claims.csv")
    few = claims[claims["figure"] == "ns_benchmark_abrupt_few"]
    assert few["claim"].str.contains("MASTER's tests are rarely triggered").sum() == 1
    assert few["claim"].str.contains("change detection beats MASTER").sum() == 2
    assert few["claim"].str.contains("GLR-klUCB \\(local\\): regret grows like").sum() == 1
    # over drawn instances: orderings on their two-stage intervals at the family's level; the
    # rates need five horizons in the last decade (three here: not measured)
    master = few[few["claim"].str.contains("change detection beats MASTER")]
    assert master["claim"].str.contains("Bonferroni over 17").all() and master["measured"].str.contains(r"\[").all()
    rate = few[few["claim"].str.contains("regret grows like")]
    assert (rate["verdict"] == "not measured").all()


def test_master_detection_delay_rows():
    """C3 (ours): MASTER's delay against Ada-ILTCB+'s at every shift; when neither detects,
    both delays are censored and the row is not a comparison."""
    from bandits.experiments.studies.ctx_synthetic import master_delays

    summary = pd.DataFrame({"shift": [0.25, 0.25, 1.0, 1.0], "algo": ["master_ctx", "ada_iltcb_plus"] * 2,
                            "mean_delay": [5000.0, 5000.0, 5000.0, 900.0], "detected_share": [0.0, 0.0, 0.0, 0.8]})
    rows = master_delays(Drawing(Path("unused")), summary, "master_ctx")
    assert [r["verdict"] for r in rows] == ["not measured", "disagrees"]
    assert rows[1]["measured"].startswith("5000 / 900 rounds")


def test_ctx_data_figures_leaderboard_and_claims(tmp_path):
    """ctx_data on two problems at a small T: a figure per problem, the leaderboard, and the
    C1-C3 comparisons (Ada-ILTCB+ vs ILTCB only where the data drift)."""
    pytest.importorskip("river")
    drop = [f"~scenarios.{s}" for s in ("segment", "yeast", "yeast_permuted", "shuttle", "shuttle_permuted",
                                         "agrawal")]
    run_config(compose(["+experiment=ctx_data", "T=300", "trials=2", "n_jobs=1", f"results_dir={tmp_path}", *drop]),
               progress=False)
    plots.main(["--results", str(tmp_path)])
    for name in ("ctx_data_segment_permuted", "ctx_data_sea"):
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 0
    board = pd.read_csv(tmp_path / "figures" / "ctx_data_leaderboard.csv")
    assert set(board["scenario"]) == {"segment_permuted", "sea"}
    assert (board.groupby("scenario")["rank"].min() == 1).all()
    claims = pd.read_csv(tmp_path / "claims.csv")
    drifting = claims[claims["claim"].str.contains("on drifting data")]
    assert set(drifting["figure"]) == {"ctx_data_segment_permuted", "ctx_data_sea"}  # both drift (SEA: its concepts)
    assert set(claims[claims["claim"].str.contains("VW")]["figure"]) == {"ctx_data_segment_permuted", "ctx_data_sea"}


# ----------------------------------------------------------------------------- readable figures

NS_ALGOS = ["sw_ucb_opt", "sw_ucb_obl", "bob", "exp3s", "ucb1", "kl_ucb", "thompson", "d_ucb", "sw_ucb_gm",
            "discounted_ts", "sw_ts", "cusum_ucb", "m_ucb", "m_ucb_theorem", "glr_klucb", "glr_klucb_global",
            "glr_klucb_alpha005", "master_ucb", "master_ucb_nolog", "oracle_restart_ucb"]


@pytest.fixture
def kept(monkeypatch):
    """The figures the plot stage makes, kept open (it closes each after saving), by title."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "close", lambda *args, **kwargs: None)
    yield lambda: {" / ".join(ax.get_title() for ax in plt.figure(n).axes): plt.figure(n) for n in plt.get_fignums()}
    monkeypatch.undo()
    plt.close("all")


def styles_of(ax) -> list[tuple]:
    """(colour, marker) of every curve of ``ax`` (lines with markers: reference lines have none)."""
    return [(line.get_color(), line.get_marker()) for line in ax.lines if line.get_marker() not in (None, "None", "")]


def test_twenty_labels_get_distinct_colour_marker_pairs_deterministically():
    from bandits.experiments.figures.styles import curve_styles

    for labels in (NS_ALGOS, [f"policy_{k}" for k in range(20)], [f"sw_ucb[window={w}]" for w in range(20)]):
        styles = curve_styles(labels)
        assert len({(s.color, s.marker) for s in styles.values()}) == 20
        assert len({s.color for s in styles.values()}) == 20  # no colour is reused within 20 curves
        assert curve_styles(list(reversed(labels))) == styles  # whatever the order given
    # the same label keeps its style from one figure to the next where nothing claims its slot
    assert curve_styles(NS_ALGOS)["bob"] == curve_styles(["bob", "sw_ucb_obl", "my_policy"])["bob"]
    assert curve_styles(NS_ALGOS)["bob"] != curve_styles(NS_ALGOS)["sw_ucb_opt"]  # both brown before


def group_rows(algos) -> pd.DataFrame:
    """Final-regret rows of shipped algorithm configs (their stored algo_params), three T."""
    from bandits.experiments.compose.registry import group_config

    config = {"m_ucb_theorem": "m_ucb", "glr_klucb_alpha005": "glr_klucb"}  # keys of ns_benchmark's variants
    params = {a: json.dumps({**group_config("algo", config.get(a, a)), "label": None, "derived": {}}) for a in algos}
    return pd.DataFrame([{"algo": a, "label": a, "T": T, "trial": k, "final_regret": (i + 1) * T ** 0.5 * (1 + k / 10),
                          "algo_params": params[a]} for i, a in enumerate(algos) for T in (1000, 10000, 100000)
                         for k in (0, 1)])


def test_knowledge_groups_come_from_what_the_algorithm_declares():
    from bandits.experiments.figures import common

    rows = group_rows(["sw_ucb_opt", "exp3s", "bob", "sw_ucb_obl", "m_ucb", "sw_ucb_gm", "glr_klucb",
                       "oracle_restart_ucb"])
    groups = common.knowledge_groups(rows)
    assert groups == {"sw_ucb_opt": common.KNOWS_B_T, "exp3s": common.KNOWS_B_T, "bob": common.PARAMETER_FREE,
                      "sw_ucb_obl": common.PARAMETER_FREE, "m_ucb": common.KNOWS_UPSILON,
                      "sw_ucb_gm": common.KNOWS_UPSILON, "glr_klucb": common.PARAMETER_FREE,
                      "oracle_restart_ucb": common.ORACLE}
    # a constant set in the config is still told: EXP3.S with B_T given knows B_T
    told = json.dumps({"_target_": "bandits.algorithms.EXP3S", "B_T": 2.0})
    assert common.knowledge_group(told) == common.KNOWS_B_T
    assert common.knowledge_group(json.dumps({"_target_": "nowhere.Policy"})) == common.OTHER
    assert common.knowledge_group(None) == common.OTHER


def test_an_eighteen_curve_figure_has_eighteen_styles_and_a_grouped_legend(tmp_path, kept):
    rows = group_rows(NS_ALGOS[:18])
    figures.loglog_figure(rows, "many", "many", {}, Drawing(tmp_path))
    (fig,) = kept().values()
    ax = fig.axes[0]
    assert len(styles_of(ax)) == 18 and len(set(styles_of(ax))) == 18
    markers = [line for line in ax.lines if line.get_marker() not in (None, "None", "")]
    assert {line.get_linestyle() for line in markers if line.get_label().startswith("SW-UCB-opt:")} == {"--"}
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    for group in ("knows B_T", "knows Upsilon_T (number of changes)", "told nothing (parameter-free)"):
        assert group in texts
    assert "oracle (told the change points)" not in texts  # no oracle among the 18
    opt = next(i for i, text in enumerate(texts) if text.startswith("  SW-UCB-opt:"))  # under its heading
    assert texts.index("knows B_T") < opt < texts.index("told nothing (parameter-free)")


def test_highlighted_curves_are_thicker_and_on_top(tmp_path):
    import matplotlib.pyplot as plt

    from bandits.experiments.figures import names

    rows = group_rows(["bob", "sw_ucb_obl", "exp3s"])
    data = figures.with_slopes(figures.regret_by_T(rows), {})
    stage_choice = Drawing(tmp_path, highlight=("BOB",))  # the stage's --highlight, by display name
    assert stage_choice.highlight_names() == ["BOB"] and stage_choice.highlight_names("bob") == ["bob"]
    for highlight in ("bob", stage_choice.highlight_names()):
        fig, ax = plt.subplots()
        figures.plot_loglog(ax, data, {}, highlight=highlight)
        lines = {line.get_label().split(":")[0]: line for line in ax.lines}
        assert lines["BOB"].get_linewidth() > 2 * lines["SW-UCB-obl"].get_linewidth()
        assert lines["BOB"].get_zorder() > lines["EXP3.S (Rexp3)"].get_zorder()
        assert lines["SW-UCB-obl"].get_alpha() < 1 and lines["BOB"].get_alpha() == 1
        plt.close(fig)
    assert names.parse_highlight("a, b,,c") == ["a", "b", "c"]


def test_a_band_on_a_log_axis_never_reaches_zero():
    import matplotlib.pyplot as plt

    from bandits.experiments.figures import axes

    fig, ax = plt.subplots()
    ax.set_yscale("log")
    mean = np.array([10.0, 100.0, 1000.0])
    axes.band_line(ax, [1, 2, 3], mean, [-50.0, 0.0, 900.0], [30.0, 200.0, 1100.0])
    (band,) = ax.collections
    y = band.get_paths()[0].vertices[:, 1]
    assert np.all(y[np.isfinite(y)] > 0)
    assert y[np.isfinite(y)].min() == pytest.approx(10.0 * axes.LOG_BAND_FLOOR)  # clipped at mean / 10
    assert ax.bands_clipped
    fig.canvas.draw()
    assert ax.get_ylim()[0] > 0.5  # the axis is not stretched down to a rectangle's bottom
    plt.close(fig)


@pytest.mark.parametrize("low,high", [(150, 900), (3000, 24000), (310, 390), (90, 1100), (1e3, 1e6), (30, 3e4)])
def test_log_tick_labels_never_collide(low, high):
    import matplotlib.pyplot as plt

    from bandits.experiments.figures import axes

    fig, ax = plt.subplots(figsize=(6.0, 4.4))
    axes.log_axis(ax, "both")
    ax.plot([low, high], [low, high])
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for axis in (ax.xaxis, ax.yaxis):
        ticks = [t for t in axis.get_major_ticks() + axis.get_minor_ticks()
                 if t.label1.get_visible() and t.label1.get_text() and low <= t.get_loc() <= high]
        boxes = [t.label1.get_window_extent(renderer) for t in ticks]
        assert len(boxes) >= 2  # the axis is still readable
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    plt.close(fig)


def timeline_rows() -> pd.DataFrame:
    events = {"replays": [{"start": 100, "end": 300, "m": 1}, {"start": 150, "end": 200, "m": 2}],
              "blocks": [{"round": 0}, {"round": 256}], "restarts": [{"round": 420}]}
    return pd.DataFrame([{"algo": "ada_iltcb_plus", "label": "ada_iltcb_plus", "T": 500, "trial": 0,
                          "events": json.dumps(events), "env_info": json.dumps({"change_points": [250]})}])


def test_timeline_count_axis_has_integer_ticks(tmp_path, kept):
    from bandits.experiments.studies import ctx_synthetic as ada

    ada.timeline_figure(timeline_rows(), Drawing(tmp_path))
    (fig,) = kept().values()
    ax = fig.axes[0]
    for ticks in (ax.get_yticks(), ax.get_xticks()):
        assert len(ticks) >= 2 and np.allclose(ticks, np.round(ticks))
    assert min(ax.get_yticks()) >= 0  # the lanes of the replays below 0 carry no count


def curve_rows(change_points_by_seed: dict) -> pd.DataFrame:
    t = list(range(10, 101, 10))
    return pd.DataFrame([{"algo": a, "label": a, "T": 100, "trial": k, "seed": seed, "checkpoints": t,
                          "regret_curve": [float(x) * (i + 1) for x in t],
                          "env_info": json.dumps({"B_T": 1.0, **({"change_points": cps} if cps else {})})}
                         for seed, cps in change_points_by_seed.items() for i, a in enumerate(("ucb", "bob"))
                         for k in (0, 1)])


def vertical_lines(ax) -> list:
    """The x of every vertical line: single lines (axvline) and the segments of collections (vlines)."""
    from matplotlib.collections import LineCollection

    single = [float(line.get_xdata()[0]) for line in ax.lines
              if len(set(np.atleast_1d(line.get_xdata()))) == 1 and line.get_marker() in (None, "None", "")]
    collected = [float(seg[0][0]) for c in ax.collections if isinstance(c, LineCollection)
                 for seg in c.get_segments() if len(seg) == 2 and seg[0][0] == seg[1][0]]
    return sorted(single + collected)


@pytest.mark.parametrize("change_points,expected", [({0: [30, 60]}, [30.0, 60.0]), ({0: None}, []),
                                                    ({0: [30], 1: [50]}, [])])  # instances differ: none
def test_change_points_are_marked_where_the_environment_reported_them(tmp_path, kept, change_points, expected):
    figures.curve_figure(curve_rows(change_points), "curves", "regret_curve", "regret", "curves", Drawing(tmp_path),
                         [])
    (fig,) = kept().values()
    assert vertical_lines(fig.axes[0]) == expected
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("change points (" in text for text in texts) == bool(expected)


def test_only_a_generators_change_points_are_called_true():
    from bandits.experiments.figures.axes import change_points_label

    assert change_points_label(3, "generator") == "true change points (3)"
    assert change_points_label(2, "declared") == "declared change points (2, not checked against the data)"
    assert change_points_label(2, None) == "change points (2)"


def test_a_mixed_adhoc_table_gets_one_figure_per_problem(tmp_path, kept):
    for env in ("env=sinusoid", "env=piecewise_bernoulli", "env=piecewise_bernoulli env.n_changes=2"):
        run_config(compose(["algo=sw_ucb_obl", *env.split(), "experiment_name=mixed", "T=600", "trials=2",
                            f"results_dir={tmp_path}"]), progress=False)
    plots.main(["--results", str(tmp_path)])
    made = sorted(p.name for p in (tmp_path / "figures").glob("*.png") if "_sweep_" not in p.name)
    assert made == ["mixed_piecewise_bernoulli_n_changes-2.png", "mixed_piecewise_bernoulli_n_changes-4.png",
                    "mixed_sinusoid.png"]  # never one axis for all three problems
    # the sweep over the one environment parameter compares piecewise_bernoulli's problems only
    sweep = pd.read_csv(tmp_path / "figures" / "mixed_piecewise_bernoulli_sweep_env.n_changes.csv")
    assert sorted(sweep["value"]) == [2, 4]
    titles = sorted(t for t in kept() if "final regret against" not in t)
    assert titles[0].startswith("mixed: piecewise_bernoulli[n_changes=2]: dynamic regret against t")
    assert titles[1].startswith("mixed: piecewise_bernoulli[n_changes=4]")
    assert titles[2].startswith("mixed: sinusoid: dynamic regret against t")
    for name in made:  # within a problem its curves are labelled among its own rows
        assert set(pd.read_csv(tmp_path / "figures" / name.replace(".png", ".csv"))["label"]) == {"sw_ucb_obl"}
    lines = {title: vertical_lines(fig.axes[0]) for title, fig in kept().items()}
    assert [len(lines[t]) for t in titles] == [2, 4, 0]  # the change points of each problem, none on the sinusoid


# ----------------------------------------------------------------------------- reduced-scale runs

def shipped_rows(name: str) -> pd.DataFrame:
    """The rows a full run of experiment ``name`` (no scenarios) stores, numbers aside."""
    from bandits.experiments.plots import scale

    shipped = scale.composed(name)
    env = to_json({k: v for k, v in shipped["env"].items() if k != "name"})
    return pd.DataFrame([{"experiment": name, "algo": a, "T": T, "trial": k, "seed": shipped["seed"],
                          "algo_params": to_json({**{k: v for k, v in spec.items() if k != "name"},
                                                       "label": spec.get("label"), "derived": {"w": 1}}),
                          "env_params": env} for a, spec in shipped["algos"].items() for T in shipped["T"]
                         for k in range(shipped["trials"])])


def test_the_scale_check_compares_a_table_with_its_shipped_config():
    from bandits.experiments.plots import scale

    full = shipped_rows("fig2a")
    assert scale.run_scale("fig2a", full) == ""
    assert scale.run_scale("fig2a", full[full["trial"] < 2]) == "reduced scale: 2 of 50 trials"
    tenth = full.assign(T=full["T"] // 10)
    assert scale.run_scale("fig2a", tenth[tenth["trial"] < 3]) == "reduced scale: 3 of 50 trials, T x0.1"
    assert scale.run_scale("fig2a", full[full["algo"] != "exp3s_auer"]) == "reduced scale: 2 of 3 algorithms"
    changed = full.assign(env_params=full["env_params"].str.replace('"B_T_scale": 1.0', '"B_T_scale": 2.0'))
    assert scale.run_scale("fig2a", changed) == "not the shipped configuration: env B_T_scale changed"
    assert scale.run_scale("fig2a", full.assign(seed=7)) == "not the shipped configuration: seed 7 (shipped 2)"
    assert scale.run_scale("adhoc", full[full["trial"] < 2]) == ""  # no shipped config: unaffected
    assert scale.experiment_of("ns_benchmark.stationary") == "ns_benchmark"
    assert scale.composed("ns_benchmark")["trials"] == 50  # 10 instances x 5 trials: the cells per algorithm and T
    assert scale.experiment_of("ctx_delay_shift0.25") == "ctx_delay"


def test_a_reduced_run_is_stamped_and_its_claims_say_so(tmp_path, kept, monkeypatch, capsys):
    from bandits.experiments.plots import scale

    run_config(compose(["+experiment=fig2a", "trials=2", "T=[1500,3000]", f"results_dir={tmp_path}"]),
               progress=False)
    capsys.readouterr()
    plots.main(["--results", str(tmp_path)])
    stamp = "reduced scale: 2 of 50 trials, T up to 3000 (shipped up to 240000)"
    (fig,) = kept().values()
    assert " ".join(fig._suptitle.get_text().split()) == f"{stamp} \N{EM DASH} not the paper's figure"  # wrapped
    claims = pd.read_csv(tmp_path / "claims.csv")
    assert (claims["scale"] == stamp).all() and len(claims) == 7
    out = capsys.readouterr().out.strip().splitlines()
    counts = claims["verdict"].value_counts()
    expected = ", ".join(f"{counts[w]} {one if counts[w] == 1 else many}" for w, one, many in
                         (("agrees", "agrees", "agree"), ("disagrees", "disagrees", "disagree"),
                          ("not measured", "not measured", "not measured")) if w in counts)
    assert out[-1].startswith("fig2a (reduced scale): 1 figure in ")  # the folder (shortened if long)
    assert out[-1].endswith(f"/figures; claims: {expected}")
    # the same table where the shipped config is this run: no stamp, claims at the paper's scale
    real = scale.composed

    def as_run(name, overrides=()):
        return {**real(name, overrides), "trials": 2, "T": [1500, 3000]}

    monkeypatch.setattr(scale, "composed", as_run)
    import matplotlib.pyplot as plt

    for n in plt.get_fignums():
        plt.figure(n).clear()
    plots.main(["--results", str(tmp_path), "--force"])  # the table is unchanged: only its shipped config
    fig = [f for f in kept().values() if f.axes][0]
    assert fig._suptitle is None
    assert (pd.read_csv(tmp_path / "claims.csv")["scale"] == "paper").all()
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("fig2a: 1 figure in ")


def test_summary_counts_group_the_verdicts():
    from bandits.experiments.plots.stage import verdict_counts

    words = ["agrees", "agrees", "disagrees: ours higher", "exceeds bound", "below bound", "below bound",
             "not measured", "odd"]
    assert verdict_counts(words) == ("2 agree, 1 disagrees, 1 exceeds its bound, 2 below their bound, "
                                     "1 not measured, 1 odd")


def test_old_claims_without_a_scale_column_are_paper(tmp_path):
    from bandits.experiments.docs import inputs as doc_inputs

    pd.DataFrame([{"claim": "x", "figure": "fig9", "measured": 1, "expected": 1, "verdict": "agrees",
                   "source": "simulation", "code": ""}]).to_csv(tmp_path / "claims.csv", index=False)
    assert doc_inputs.Inputs(tmp_path, tmp_path).claims()["scale"].tolist() == ["paper"]
    figures.write_claims(tmp_path, [{"claim": "y", "figure": "fig2a", "measured": 0, "expected": 0,
                                     "verdict": "agrees", "scale": "reduced scale: 2 of 50 trials"}],
                         Drawing(tmp_path / "figures"))
    table = pd.read_csv(tmp_path / "claims.csv").set_index("figure")
    assert table.loc["fig9", "scale"] == "paper" and table.loc["fig2a", "scale"] == "reduced scale: 2 of 50 trials"


def test_a_highlight_absent_from_a_figure_dims_nothing():
    import matplotlib.pyplot as plt

    data = figures.with_slopes(figures.regret_by_T(group_rows(["bob", "sw_ucb_obl"])), {})
    fig, ax = plt.subplots()
    figures.plot_loglog(ax, data, {}, highlight="my_policy")
    assert {line.get_alpha() for line in ax.lines if line.get_marker() not in (None, "None", "")} == {1.0}
    plt.close(fig)


def test_the_plot_stage_on_two_workers_writes_and_prints_what_one_process_does(tmp_path, capsys):
    """--jobs 2 draws the modules (and each generic table) on worker processes, then takes
    their records and printed lines back in module order: the same figure data, claims,
    figures list and printed lines as --jobs 1."""
    import shutil

    from bandits.experiments.compose.registry import compose
    from bandits.experiments.plots import stage

    base, other = tmp_path / "a" / "results", tmp_path / "b" / "results"  # the same last two parts, as printed
    for overrides in (["+experiment=fig2a", "T=[300]", "trials=2"],
                      ["+experiment=ns_benchmark", "T=[300]", "trials=2", "instances=null", "~scenarios.slow_drift",
                       "~scenarios.hedging_sinusoid", "~scenarios.abrupt_many_small", "~scenarios.stationary"],
                      ["algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=2"],
                      ["algo=exp3s", "env=piecewise_bernoulli", "T=200", "trials=2", "experiment_name=other"]):
        run_config(compose([*overrides, f"results_dir={base}", "n_jobs=1"]), progress=False)
    shutil.copytree(base, other)
    capsys.readouterr()  # what the runs printed is not the stage's
    printed = {}
    for jobs, folder in (("1", base), ("2", other)):
        stage.main(["--results", str(folder), "--jobs", jobs])
        out = capsys.readouterr()
        printed[jobs] = (out.out.replace(str(folder), "R"), out.err.replace(str(folder), "R"))
    assert printed["1"] == printed["2"]
    assert "fig2a" in printed["1"][0] and "ns_benchmark" in printed["1"][0]
    names = sorted(p.name for p in (base / "figures").iterdir())
    assert names == sorted(p.name for p in (other / "figures").iterdir())
    assert {"adhoc.csv", "other.csv", "fig2a.csv"} <= set(names)
    for name in [n for n in names if n.endswith(".csv")]:
        assert (base / "figures" / name).read_bytes() == (other / "figures" / name).read_bytes(), name
    assert (base / "claims.csv").read_bytes() == (other / "claims.csv").read_bytes()
