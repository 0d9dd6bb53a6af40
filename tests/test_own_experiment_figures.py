"""The plot stage on your own experiments: captions and legends that say what was
pooled and what each algorithm was told, bands that respect what they bound, the regret's
comparator named, a readable single-T benchmark, banners that fit, a leaderboard and file
names of its own for every experiment, and drawing one experiment, or only what changed."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, compose

from bandits.experiments import figures
from bandits.experiments.figures import charts, pooling
from bandits.experiments.figures.drawing import Drawing
from bandits.experiments.figures.knowledge import (
    KNOWING_AND_TUNED,
    KNOWS_UPSILON,
    PARAMETER_FREE,
    TUNED,
    knowledge_group,
)
from bandits.experiments.plots import stage
from bandits.experiments.plots import stage as plots
from bandits.experiments.run.sweep import run_config
from bandits.experiments.setup.regret_kind import DYNAMIC, FIXED_POLICY, regret_floor, regret_kind


@pytest.fixture
def kept(monkeypatch):
    """The figures the plot stage makes, kept open (it closes each after saving), by title."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "close", lambda *args, **kwargs: None)
    yield lambda: {" / ".join(ax.get_title() for ax in plt.figure(n).axes): plt.figure(n) for n in plt.get_fignums()}
    monkeypatch.undo()
    plt.close("all")


def run(results, *overrides, trials=2, T=300):
    run_config(compose([*overrides, f"T={T}", f"trials={trials}", "n_jobs=1", f"results_dir={results}"]),
               progress=False)


def algos(*names) -> list[str]:
    """The overrides ``algos=[a,b]`` stands for on the command line: these algorithms alone."""
    return [*(f"+algo@algos.{name}={name}" for name in names), "~algo"]


def footer(fig) -> str:
    """The figure's footer (what its bands are and what it pools), on one line."""
    return " ".join(" ".join(t.get_text() for t in fig.texts).split())


def legend_texts(ax) -> list[str]:
    return [t.get_text().strip() for t in ax.get_legend().get_texts()]


# ----------------------------------------------------------------------------- what a figure pools

def test_runs_with_different_root_seeds_get_a_curve_each_and_the_caption_names_the_seeds(tmp_path, kept):
    """seed=0 and seed=1 draw different instances; into one table they were one pooled curve
    captioned "6 trials (one instance, noise varies)"."""
    for seed in (0, 1):
        run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", f"seed={seed}", trials=3)
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    data = pd.read_csv(tmp_path / "figures" / "adhoc.csv")
    assert set(data["label"]) == {"ucb1 (seed=0)", "ucb1 (seed=1)"} and (data["trials"] == 3).all()
    (fig,) = kept().values()
    assert "one instance per curve: root seeds 0, 1; noise varies" in footer(fig)
    assert "6 trials" not in footer(fig)


def test_many_seeds_are_pooled_with_the_seeds_and_counts_said():
    rows = pd.DataFrame([{"algo": a, "label": a, "T": 100, "trial": k, "seed": s}
                         for a in ("ucb1", "bob") for s in range(10) for k in range(2)])
    assert pooling.separate_seeds(rows) is rows  # 20 curves would be unreadable: pooled
    assert pooling.pooled_text(rows) == "2 trials each on 10 instances: root seeds 0 to 9; noise varies"
    one = rows[rows["seed"] == 3]
    assert pooling.pooled_text(one) == "one instance, noise varies"
    assert pooling.pooled_text(pd.concat([one, one.assign(T=200)])) == "one instance per T, noise varies"


@pytest.mark.parametrize("env_info,env_params,varies", [
    ({"trial_noise": False}, {}, False),  # recorded by the environment
    ({"trial_noise": True, "noise": "replayed"}, {}, True),  # the record wins
    ({"noise": "replayed"}, {}, False),  # an older table environment's file rewards
    ({"noise": "gaussian"}, {}, True),
    ({"source": "supervised", "regret_gap_best_action": 0.0, "contextual": True}, {"drift": "permutation"}, False),
    ({"source": "river", "regret_gap_best_action": 0.0, "contextual": True}, {"drift": "rotation"}, True),
    ({"change_points": [3]}, {}, True),  # nothing says otherwise: noise varies
    (None, None, True)])
def test_noise_varies_only_where_it_does(env_info, env_params, varies):
    assert pooling.trial_noise(json.dumps(env_info) if env_info is not None else None,
                               json.dumps(env_params) if env_params is not None else None) is varies


def test_logged_data_without_change_points_is_regret_against_the_best_fixed_policy(tmp_path, kept):
    """A contextual_table replays the data's rewards and, with no change point, compares with
    one fixed policy: drawn as "dynamic regret" with "noise varies" before."""
    run(tmp_path, *algos("iltcb", "epsilon_greedy"), "env=contextual_table", "env.source=supervised",
        f"env.path={ROOT / 'examples' / 'three_classes.csv'}", "experiment_name=logged", T=300)
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    (fig,) = kept().values()
    ax = fig.axes[0]
    assert " ".join(ax.get_ylabel().split()) == "regret against the best fixed policy (mean over trials)"
    assert "regret against the best fixed policy" in ax.get_title() and DYNAMIC not in ax.get_title()
    assert "one instance, the same rewards replayed; the algorithms' own randomness varies" in footer(fig)
    assert "noise varies" not in footer(fig)
    assert "clipped" not in footer(fig)  # regret against a policy may be negative: the band is not clipped


PER_PIECE = f"{DYNAMIC} against the best policy per piece"  # a contextual figure says what its summary says
PER_ROUND = f"{DYNAMIC} against the best policy per round"


@pytest.mark.parametrize("env_info,kind,floor", [
    ({"change_points": [100]}, DYNAMIC, 0.0),  # K-armed: the best action of each round
    ({}, DYNAMIC, 0.0),
    ({"contextual": True, "regret_gap_best_action": 1.0, "change_points": []}, FIXED_POLICY, None),
    ({"contextual": True, "regret_gap_best_action": 1.0, "change_points": [50]}, PER_PIECE, None),
    ({"contextual": True, "S_switches": 1, "Delta_TV": 0.0, "change_points": []}, FIXED_POLICY, None),
    ({"contextual": True, "S_switches": 1, "Delta_TV": 3.5, "change_points": []}, PER_ROUND, None),  # drifting
    ({"comparator": "best fixed policy", "change_points": []}, FIXED_POLICY, None),  # recorded
    ({"comparator": "best policy per piece", "contextual": True}, PER_PIECE, None),
    ({"comparator": "best action per round", "contextual": True}, DYNAMIC, 0.0)])
def test_the_regret_kind_follows_the_comparator(env_info, kind, floor):
    assert regret_kind(json.dumps(env_info)) == kind and regret_kind(env_info) == kind
    assert regret_floor(env_info) == floor


def test_the_regret_kinds_comparators_are_the_environments():
    from bandits.environments.base import COMPARATORS
    from bandits.experiments.setup import regret_kind as rk

    assert {rk.BEST_ACTION, rk.BEST_FIXED_POLICY, rk.BEST_POLICY_PER_PIECE, rk.BEST_POLICY_PER_ROUND} <= \
        set(COMPARATORS)


# ----------------------------------------------------------------------------- what each algorithm was told

def stored(config: str, **changes) -> str:
    """The algo_params a run of shipped config ``config`` stores, with ``changes`` set by hand."""
    from bandits.experiments.compose.registry import group_config

    params = {k: v for k, v in group_config("algo", config).items() if k != "name"}
    return json.dumps({**params, **changes, "derived": {}})


def test_a_constant_set_by_hand_is_tuned_never_parameter_free():
    assert knowledge_group(stored("d_ucb"), "d_ucb") == KNOWS_UPSILON  # gamma from Upsilon_T
    assert knowledge_group(stored("d_ucb", gamma=0.99), "d_ucb") == TUNED  # was "told nothing (parameter-free)"
    # told Upsilon_T and a constant set by hand besides: both said (issue 47: it read "knows Upsilon_T")
    assert knowledge_group(stored("m_ucb"), "m_ucb") == KNOWS_UPSILON
    assert knowledge_group(stored("m_ucb", window=400), "m_ucb") == KNOWING_AND_TUNED[KNOWS_UPSILON]
    assert KNOWING_AND_TUNED[KNOWS_UPSILON] == "knows Upsilon_T (number of changes), and tuned by hand"
    assert knowledge_group(stored("glr_klucb"), "glr_klucb") == PARAMETER_FREE
    assert knowledge_group(stored("glr_klucb", alpha_scale=0.5), "glr_klucb") == TUNED
    # a shipped variant under its own key: a constant other than its config's is set by hand
    assert knowledge_group(stored("discounted_ts"), "discounted_ts_g095") == PARAMETER_FREE
    assert knowledge_group(stored("discounted_ts", gamma=0.95), "discounted_ts_g095") == TUNED
    # what an environment could tell it (a reward range) is knowledge, not tuning; a switch
    # between documented readings is no constant
    assert knowledge_group(stored("ucb1", reward_range=[0.0, 1.0]), "ucb1") == PARAMETER_FREE
    assert knowledge_group(stored("master_ucb", rho_cap=True), "master_ucb_cap") == PARAMETER_FREE
    assert knowledge_group(stored("master_ucb", ucb_c=4.0), "master_ucb_c4") == TUNED
    # a policy of your own: against its constructor's defaults (gamma=0.99, epsilon=0.05)
    mine = {"_target_": "bandits.examples.my_policies.DiscountedMeans", "label": None, "derived": {}}
    assert knowledge_group(json.dumps(mine), "mine") == PARAMETER_FREE
    assert knowledge_group(json.dumps({**mine, "gamma": 0.99}), "mine") == PARAMETER_FREE
    assert knowledge_group(json.dumps({**mine, "gamma": 0.9}), "mine") == TUNED


def test_a_hand_tuned_sweep_is_legended_tuned(tmp_path, kept):
    """``-m algo=d_ucb algo.gamma=0.99,0.995`` put D-UCB under "told nothing (parameter-free)"."""
    for gamma in (0.99, 0.995):
        run(tmp_path, "algo=d_ucb", f"algo.gamma={gamma}", "env=piecewise_bernoulli", "experiment_name=g")
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    for fig in kept().values():
        texts = legend_texts(fig.axes[0])
        assert TUNED in texts and PARAMETER_FREE not in texts


def test_a_constant_set_by_hand_is_named_in_the_legend(tmp_path, kept):
    """``algos.m_ucb.window=400`` was legended plain M-UCB under "knows Upsilon_T": it is
    "M-UCB (window=400)" under "knows Upsilon_T ..., and tuned by hand"; the shipped m_ucb beside
    a parameter-free UCB1 keeps its plain name."""
    run(tmp_path, *algos("m_ucb", "ucb1"), "algos.m_ucb.window=400", "env=piecewise_bernoulli",
        "experiment_name=w")
    run(tmp_path, *algos("m_ucb", "ucb1"), "env=piecewise_bernoulli", "experiment_name=shipped")
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    texts = {name: legend_texts(fig.axes[0]) for name, fig in kept().items()}
    tuned = next(t for name, t in texts.items() if name.startswith("w"))
    assert "M-UCB (window=400)" in tuned and KNOWING_AND_TUNED[KNOWS_UPSILON] in tuned and "UCB1" in tuned
    shipped = next(t for name, t in texts.items() if name.startswith("shipped"))
    assert "M-UCB" in shipped and not any("window=" in t for t in shipped)


def test_a_class_that_cannot_be_imported_has_nothing_said_set_by_hand():
    from bandits.experiments.figures.knowledge import hand_set_text

    unknown = json.dumps({"_target_": "nowhere.Mine", "gamma": 0.99, "epsilon": 0.05})
    assert hand_set_text(unknown, "mine") == ""  # its defaults are unknown: nothing is claimed
    mine = json.dumps({"_target_": "bandits.examples.my_policies.DiscountedMeans", "gamma": 0.95, "epsilon": 0.05})
    assert hand_set_text(mine, "mine") == "gamma=0.95"  # epsilon is its default


# ----------------------------------------------------------------------------- bands

def final_rows(env_info: dict, regrets=(0.0, 0.5, 9.0)) -> pd.DataFrame:
    return pd.DataFrame([{"algo": "a", "label": "a", "T": 100, "trial": k, "final_regret": r,
                          "env_info": json.dumps(env_info)} for k, r in enumerate(regrets)])


def test_a_regret_band_never_reaches_below_zero_and_says_it_is_clipped(tmp_path, kept):
    """With 3 trials the 95% t-interval of a pseudo-regret reached below 0."""
    from bandits.experiments.report.summary import t_interval

    rows = final_rows({"change_points": [50]})
    assert t_interval(rows["final_regret"])[1] < 0  # the interval as it was
    data = figures.regret_by_T(rows)
    assert data["ci_low"].iloc[0] == 0.0 and data["ci_high"].iloc[0] > data["mean_regret"].iloc[0]
    assert charts.clipped(data)
    # against a policy class the regret may be negative: its band is the t-interval as it is
    policy = figures.regret_by_T(final_rows({"contextual": True, "regret_gap_best_action": 0.0,
                                             "change_points": []}))
    assert policy["ci_low"].iloc[0] < 0 and not charts.clipped(policy)
    # a curve figure: the band of every checkpoint, and the footer names the interval
    t = [25, 50, 75, 100]
    curves = pd.DataFrame([{"algo": "a", "label": "a", "T": 100, "trial": k, "seed": 0, "checkpoints": t,
                            "regret_curve": [r * x / 100 for x in t], "env_info": json.dumps({"change_points": []})}
                           for k, r in enumerate((0.0, 0.5, 9.0))])
    figures.curve_figure(curves, "bands", "regret_curve", "dynamic regret", "bands", Drawing(tmp_path), [])
    written = pd.read_csv(tmp_path / "bands.csv")
    assert (written["ci_low"] >= 0).all() and (written["ci_low"] == 0).any()
    (fig,) = kept().values()
    assert "bands: 95% t-interval over 3 trials (one instance, noise varies), clipped at 0" in footer(fig)


# ----------------------------------------------------------------------------- a single T, legends, banners

def single_T_rows(T=2000) -> pd.DataFrame:
    from bandits.experiments.compose.registry import group_config

    out = []
    for i, algo in enumerate(("glr_klucb", "m_ucb", "sw_ucb_opt", "ucb1")):
        params = json.dumps({**{k: v for k, v in group_config("algo", algo).items() if k != "name"}, "derived": {}})
        out += [{"algo": algo, "label": algo, "T": T, "trial": k, "final_regret": 100.0 * (4 - i) + k,
                 "algo_params": params, "env_info": json.dumps({"change_points": [10]})} for k in range(3)]
    return pd.DataFrame(out)


def test_a_single_T_benchmark_is_a_sorted_bar_chart_with_only_what_is_drawn_in_its_legend(tmp_path, kept):
    """At one T the figure was a column of dots on a log axis, listing a reference slope it did not draw."""
    from matplotlib.patches import Rectangle

    theory = {a: (0.5, "1/2") for a in ("glr_klucb", "m_ucb", "ucb1")}
    data = figures.loglog_figure(single_T_rows(), "one_T", "one T", theory, Drawing(tmp_path))
    assert len(pd.read_csv(tmp_path / "one_T.csv")) == 4 and list(data["T"].unique()) == [2000]
    (fig,) = kept().values()
    ax = fig.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 4 and ax.get_xscale() == "linear"
    widths = [bar.get_width() for bar in sorted(bars, key=lambda b: b.get_y())]
    assert widths == sorted(widths, reverse=True)  # the lowest regret at the top
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "UCB1"  # ucb1 has the lowest regret
    texts = legend_texts(ax)
    assert not any("reference" in text for text in texts)
    assert set(texts) - {"what each algorithm is told"} == {"knows B_T", KNOWS_UPSILON, PARAMETER_FREE}
    assert footer(fig).startswith("error bars: 95% t-interval over 3 trials")


def test_a_reference_slope_is_listed_only_where_it_is_drawn():
    import matplotlib.pyplot as plt

    theory = {"ucb1": (0.5, "1/2")}
    for Ts, listed in (((2000,), False), ((1000, 2000, 4000), True)):
        rows = pd.concat([single_T_rows(T) for T in Ts], ignore_index=True)
        data = figures.with_slopes(figures.regret_by_T(rows), theory)
        fig, ax = plt.subplots()
        figures.plot_loglog(ax, data, theory)
        assert any(t.startswith("reference slope") for t in legend_texts(ax)) is listed
        references = [line for line in ax.lines if line.get_label().startswith("reference")]
        assert all(len(set(line.get_xdata())) > 1 for line in references)  # drawn as a line, not a point
        plt.close(fig)


def test_the_timeline_lists_only_the_events_it_draws(tmp_path, kept):
    from bandits.experiments.studies import ctx_synthetic as ada

    events = {"replays": [], "blocks": [], "restarts": [{"round": 420}]}
    rows = pd.DataFrame([{"algo": "ada_iltcb_plus", "label": "ada_iltcb_plus", "T": 500, "trial": 0,
                          "events": json.dumps(events), "env_info": json.dumps({"change_points": [250]})}])
    ada.timeline_figure(rows, Drawing(tmp_path))
    (fig,) = kept().values()
    texts = legend_texts(fig.axes[0])
    assert "restart" in texts and "true change" in texts
    assert "replay start" not in texts and "block boundary" not in texts  # none of them happened


@pytest.mark.parametrize("size", [(6.0, 4.4), (9.5, 5.2)])
def test_the_reduced_scale_banner_and_the_footer_fit_their_figure(tmp_path, kept, size):
    import matplotlib.pyplot as plt

    banner = "reduced scale: 2 of 50 trials, T up to 3000 (shipped up to 240000), other algorithms (a, b and 3 more)"
    drawing = Drawing(tmp_path, scales={"banner": banner})  # as the stage records a reduced run's
    fig, ax = plt.subplots(figsize=size)
    ax.plot([1, 2], [1, 2])
    ax.set_title("title", fontsize=10)
    charts.save_figure(fig, pd.DataFrame({"x": [1]}), drawing, "banner",
                       "bands: 95% t-interval over 3 trials (one instance, the same rewards replayed; the algorithms' "
                       "own randomness varies), clipped at 0 (pseudo-regret is never negative)")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for text in (fig._suptitle, *fig.texts):
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, \
            text.get_text()
    assert " ".join(fig._suptitle.get_text().split()) == f"{banner} \N{EM DASH} not the paper's figure"
    title = ax.title.get_window_extent(renderer)
    assert title.y1 <= fig._suptitle.get_window_extent(renderer).y0  # the banner above the title, not on it


# ----------------------------------------------------------------------------- every experiment its own

ONLY = ["ucb1", "glr_klucb", "oracle_restart_ucb"]
BENCH_ALGOS = ["sw_ucb_opt", "sw_ucb_obl", "bob", "exp3s", "kl_ucb", "thompson", "d_ucb", "sw_ucb_gm",
               "discounted_ts", "sw_ts", "ds_ts", "ds_ts_authors", "sw_lb_sda", "adswitch", "pht_ucb",
               "cusum_ucb", "m_ucb",
               "m_ucb_theorem",
               "glr_klucb_global", "glr_klucb_alpha005", "master_ucb", "master_ucb_nolog"]


def bench_mine(results, trials=2):
    """The benchmark's abrupt_few and stationary scenarios under a name of your own, three algorithms."""
    drop = [f"~scenarios.{s}" for s in ("abrupt_many_small", "suboptimal_changes", "slow_drift", "hedging_sinusoid")]
    run(results, "+experiment=ns_benchmark", "experiment_name=bench_mine", "instances=null", *drop,
        *[f"~algos.{a}" for a in BENCH_ALGOS], "T=[300]", trials=trials)


def test_any_experiment_with_several_algorithms_gets_its_leaderboard(tmp_path):
    """The leaderboard was written only for tables named ns_benchmark (and a few shipped ones)."""
    bench_mine(tmp_path, trials=3)
    run(tmp_path, *algos("ucb1", "exp3s"), "env=piecewise_bernoulli", "experiment_name=mine", T=200)
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    folder = tmp_path / "figures"
    board = pd.read_csv(folder / "bench_mine_leaderboard.csv")
    assert set(board["scenario"]) == {"abrupt_few", "stationary"} and set(board["algo"]) == set(ONLY)
    for _, g in board.groupby("scenario"):
        learners = g[g["algo"] != "oracle_restart_ucb"]
        best = learners.loc[learners["mean_regret"].idxmin()]
        assert (g["best"] == best["algo"]).all() and best["rank"] == 1 and best["ratio_to_best"] == 1
        assert g.loc[g["algo"] == "oracle_restart_ucb", "rank"].isna().all()  # an oracle is never ranked
        assert (g["ci_low"] >= 0).all() and (g["trials"] == 3).all()
    overall = pd.read_csv(folder / "bench_mine_leaderboard_overall.csv")
    assert sorted(overall.dropna(subset=["rank"])["rank"]) == [1.0, 2.0]
    assert (overall["scenarios"] == 2).all()
    assert overall.set_index("algo")["rank"].isna().to_dict()["oracle_restart_ucb"]
    mine = pd.read_csv(folder / "mine_leaderboard.csv")
    assert set(mine["algo"]) == {"ucb1", "exp3s"} and set(mine["scenario"]) == {"piecewise_bernoulli"}
    assert not (folder / "mine_leaderboard_overall.csv").exists()  # one scenario: nothing to rank across


def test_two_experiments_with_the_same_sweep_share_no_file_the_plot_stage_writes(tmp_path):
    """Every output name contains its experiment's name (the sweep figure of a -m run, the
    CLI's, is checked in test_own_experiment.py)."""
    for name in ("first", "second"):
        for gamma in (0.9, 0.99):
            run(tmp_path, "algo=d_ucb", f"algo.gamma={gamma}", "env=piecewise_bernoulli", f"experiment_name={name}",
                T=200)
        run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", f"experiment_name={name}", T=200)
    plots.main(["--results", str(tmp_path), "--jobs", "1"])
    made = {p.name for p in (tmp_path / "figures").iterdir()}
    stage_files = {"kernel_seconds.csv", ".plot_stamps.json"}
    own = {name: {m for m in made if m.startswith(f"{name}_") or m.startswith(f"{name}.")}
           for name in ("first", "second")}
    assert made - stage_files == own["first"] | own["second"] and not own["first"] & own["second"]
    for name in ("first", "second"):
        assert {f"{name}.png", f"{name}_sweep_gamma.png", f"{name}_leaderboard.csv"} <= own[name]
    assert {m.replace("first", "second") for m in own["first"]} == own["second"]


# ----------------------------------------------------------------------------- one experiment, only what changed

def mtimes(folder) -> dict:
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}


def test_plots_experiment_draws_that_experiment_alone(tmp_path, capsys):
    bench_mine(tmp_path)
    run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", "experiment_name=other", T=200)
    capsys.readouterr()
    assert stage.main(["--results", str(tmp_path), "--jobs", "1", "--experiment", "bench_mine"]) == 0
    made = {p.name for p in (tmp_path / "figures").iterdir()}
    assert {"bench_mine.abrupt_few.png", "bench_mine.stationary.png", "bench_mine_leaderboard.csv"} <= made
    assert not any(name.startswith("other") for name in made)
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("bench_mine: 2 figures in ") and "other" not in "\n".join(out)
    # several, comma-separated or repeated
    assert stage.main(["--results", str(tmp_path), "--jobs", "1", "--experiment", "other,bench_mine"]) == 0
    assert (tmp_path / "figures" / "other.png").exists()


def test_an_unknown_experiment_is_one_paragraph_with_a_did_you_mean_and_exit_status_2(tmp_path, capsys):
    from bandits.experiments import cli

    run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", "experiment_name=bench_mine", T=200)
    capsys.readouterr()
    assert cli.subcommand("plots", ["--results", str(tmp_path), "--experiment", "bench_mnie"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "no experiment 'bench_mnie'" in err and "did you mean 'bench_mine'" in err
    assert "The experiments there: bench_mine." in err
    assert not (tmp_path / "figures").exists()  # nothing drawn
    done = subprocess.run([sys.executable, "-m", "bandits.experiments.figures", "--results", str(tmp_path),
                           "--experiment", "nope"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error: plots --experiment: no experiment 'nope'")


def test_plots_redraws_only_what_changed_on_a_folder_of_ten_experiments(tmp_path, capsys):
    """After one new run the stage draws that run's figures only; the other nine experiments
    (and the paper experiment's claims) are left as they were. --force redraws everything."""
    run(tmp_path, "+experiment=fig2a", T="[200]")
    for k in range(9):
        run(tmp_path, *(["algo=ucb1"] if k % 2 else algos("ucb1", "exp3s")), "env=piecewise_bernoulli",
            f"experiment_name=e{k}", T=200)
    figures_dir = tmp_path / "figures"
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    before, claims_before = mtimes(figures_dir), pd.read_csv(tmp_path / "claims.csv")
    assert set(claims_before["figure"]) == {"fig2a"}
    run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", "experiment_name=fresh", T=200)
    capsys.readouterr()
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    out = capsys.readouterr().out
    after = mtimes(figures_dir)
    rewritten = {n for n in after if after[n] != before.get(n)}
    assert rewritten == {"fresh.png", "fresh.pdf", "fresh.csv", "kernel_seconds.csv", ".plot_stamps.json"}
    assert "unchanged since drawn, not redrawn (10): e0, e1," in out and "fresh: 1 figure in " in out
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "claims.csv"), claims_before)  # fig2a's rows kept
    # nothing changed: nothing drawn
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    assert mtimes(figures_dir) == after
    (line,) = capsys.readouterr().out.strip().splitlines()  # one line, no claims table: nothing was drawn
    assert line.startswith("unchanged since drawn, not redrawn (11): e0, e1, e2, ") and len(line) <= 100
    assert line.endswith(" more; --force redraws them")
    # a table that grew is redrawn; so is an experiment whose figure or claims went missing
    run(tmp_path, "algo=ucb1", "env=piecewise_bernoulli", "experiment_name=e1", T=200, trials=3)
    (figures_dir / "e2.png").unlink()
    (tmp_path / "claims.csv").unlink()
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    again = mtimes(figures_dir)
    assert {n for n in again if again[n] != after.get(n)} - {"kernel_seconds.csv", ".plot_stamps.json"} == \
        {f"{e}.{ext}" for e in ("e1", "e2", "fig2a") for ext in ("png", "pdf", "csv")} | {"e2_leaderboard.csv"}
    assert set(pd.read_csv(tmp_path / "claims.csv")["figure"]) == {"fig2a"}
    stage.main(["--results", str(tmp_path), "--jobs", "1", "--force"])
    forced = mtimes(figures_dir)
    assert all(forced[n] != again[n] for n in again if n.endswith(".png"))


def test_an_experiment_of_several_tables_is_redrawn_as_a_unit(tmp_path):
    """One scenario of an experiment changed: its leaderboard spans them all, so the whole
    experiment is drawn again."""
    bench_mine(tmp_path)
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    before = mtimes(tmp_path / "figures")
    drop = [f"~scenarios.{s}" for s in ("abrupt_many_small", "suboptimal_changes", "slow_drift", "hedging_sinusoid",
                                        "abrupt_few")]
    run(tmp_path, "+experiment=ns_benchmark", "experiment_name=bench_mine", "instances=null", *drop,
        *[f"~algos.{a}" for a in BENCH_ALGOS], "T=[300]", trials=3)  # the stationary scenario grows
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    after = mtimes(tmp_path / "figures")
    for name in ("bench_mine.abrupt_few.png", "bench_mine.stationary.png", "bench_mine_leaderboard.csv"):
        assert after[name] != before[name], name
    board = pd.read_csv(tmp_path / "figures" / "bench_mine_leaderboard.csv")
    assert board.groupby("scenario")["trials"].max().to_dict() == {"abrupt_few": 2, "stationary": 3}
    assert np.isfinite(board["ratio_to_best"]).all()


def test_a_title_names_its_comparator_once():
    """The comparator's words ("... against the best policy per piece") contain "dynamic regret":
    a title says them once."""
    from bandits.experiments.figures.charts import say_regret

    assert say_regret("C1: dynamic regret against T", PER_PIECE) == f"C1: {PER_PIECE}, by T"
    assert say_regret("dynamic regret (mean over trials)", PER_ROUND) == f"{PER_ROUND} (mean over trials)"
    assert say_regret("C1: dynamic regret against T", FIXED_POLICY) == "C1: regret against the best fixed policy, by T"
