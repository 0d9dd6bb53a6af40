"""A researcher's own experiment gets what the shipped ones get (issue: "your own experiment,
reported as honestly and completely as the shipped ones"): its policy's parameters recorded in
full, its sweep summarised with the swept settings as columns in numeric order, its outputs named
after it, and a shipped benchmark run with exactly its own list of algorithms."""

import json

import pandas as pd

from bandits.experiments import cli

POLICY = "examples.my_policies.DiscountedMeans"


def test_a_user_policys_parameters_are_recorded_in_full_defaults_included(tmp_path):
    """Only gamma is given: epsilon, a default of the constructor, is recorded too (as
    scikit-learn's get_params reads a constructor). The old row said {"_target_", "derived"}."""
    code = cli.entry(["algo=custom", f"algo._target_={POLICY}", "+algo.gamma=0.9", "env=piecewise_bernoulli",
                      "T=100", "trials=1", f"results_dir={tmp_path}"])
    assert code == 0
    params = json.loads(pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")["algo_params"].iloc[0])
    assert params["gamma"] == 0.9 and params["epsilon"] == 0.05 and params["_target_"] == POLICY


def test_simulate_records_a_policy_objects_parameters_in_full():
    from bandits import simulate
    from bandits.examples.my_policies import DiscountedMeans

    table = simulate(env="piecewise_bernoulli", algos={"mine": DiscountedMeans(gamma=0.9)}, T=100, trials=1)
    params = json.loads(table["algo_params"].iloc[0])
    assert params["gamma"] == 0.9 and params["epsilon"] == 0.05


GAMMAS = "0.99,0.995,0.998,0.999,0.9995"


def test_a_sweeps_summary_has_each_swept_setting_as_a_column_in_numeric_order(tmp_path, capsys):
    """The old combined summary had no gamma column and sorted its labels as text:
    0.995, 0.998, 0.9995, 0.999, 0.99."""
    code = cli.entry(["-m", "algo=d_ucb", f"algo.gamma={GAMMAS}", "env=piecewise_bernoulli", "T=200", "trials=1",
                      f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra", "experiment_name=g"])
    assert code == 0
    out = capsys.readouterr().out
    combined = out[out.index("sweep of 5 jobs"):].splitlines()
    header = combined[1].split()
    assert header[:2] == ["algo.gamma", "label"]
    column = [float(line.split()[0]) for line in combined[2:7]]
    assert column == [0.99, 0.995, 0.998, 0.999, 0.9995]


def test_a_sweep_over_a_list_valued_setting_ends_with_its_summary(tmp_path, capsys):
    """A sweep over lists (a noise sd per piece) ended in a pandas traceback: the summary grouped
    by a column of lists. Each list is now a column of its text."""
    code = cli.entry(["-m", "algo=ucb1", "algo.reward_range=[0,1]", "env=piecewise_linear", "env.theta_path=steps",
                      "env.thetas=[[0.9,0.5],[0.2,0.8]]", "env.theta_changes=[0.5]", "env.R_pieces=[0.2,1.0],[1.0,0.2]",
                      "T=200", "trials=1",
                      f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra", "experiment_name=sds"])
    assert code == 0
    out = capsys.readouterr().out
    combined = out[out.index("sweep of 2 jobs"):].splitlines()
    assert combined[1].split()[0] == "env.R_pieces"
    assert [line.strip().split("]")[0] + "]" for line in combined[2:4]] == ["[0.2, 1.0]", "[1.0, 0.2]"]


def test_two_experiments_sweeping_the_same_setting_share_no_output_file(tmp_path):
    """The sweep's figure was figures/sweep_sweep_gamma.png for every experiment: a second sweep
    over gamma overwrote the first's. Every file the sweeps and the plot stage write is named
    after its experiment."""
    from bandits.experiments.plots import stage

    written = {}
    for name in ("first", "second"):
        before = {p for p in tmp_path.rglob("*") if p.is_file()}
        code = cli.entry(["-m", "algo=d_ucb", "algo.gamma=0.9,0.99", "env=piecewise_bernoulli", "T=200", "trials=2",
                          f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra/{name}",
                          f"experiment_name={name}"])
        assert code == 0
        written[name] = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    figures = tmp_path / "figures"
    assert {p.name for p in written["first"] if p.parent == figures} >= {"first_sweep_gamma.png"}
    assert {p.name for p in written["second"] if p.parent == figures} >= {"second_sweep_gamma.png"}
    stage.main(["--results", str(tmp_path), "--jobs", "1"])
    own = {}
    for name in ("first", "second"):
        own[name] = {p.name for p in figures.iterdir() if p.name.startswith(name)}
        assert own[name], name
    shared = {p.name for p in figures.iterdir()} - own["first"] - own["second"]
    assert shared <= {"claims.csv", "kernel_seconds.csv"} | {p.name for p in figures.iterdir()
                                                              if p.name.startswith(".")}, shared


# ----------------------------------------------------------------------------- a shipped benchmark, your algorithms

BENCH = "+experiment=ns_benchmark"
MINE = "algos.mine._target_=examples.my_policies.DiscountedMeans"


def composed_algos(args: list[str]) -> list[str]:
    from bandits.experiments.compose.registry import compose

    return sorted(compose(cli.algo_list(args)).algos)


def test_a_shipped_benchmark_runs_with_exactly_the_users_list_of_algorithms():
    """The obvious command stopped with Hydra's "algo@algos.ucb1 appears more than once in the
    final defaults list"; algos=[mine] added to the benchmark's 20 instead of replacing them."""
    assert composed_algos([BENCH, "algos=[mine,ucb1,glr_klucb]", MINE]) == ["glr_klucb", "mine", "ucb1"]
    assert composed_algos([BENCH, "algos=[mine]", MINE]) == ["mine"]


def test_the_benchmarks_own_configuration_of_a_listed_algorithm_is_kept():
    from bandits.experiments.compose.registry import compose

    shipped = compose([BENCH]).algos.glr_klucb_alpha005
    kept = compose(cli.algo_list([BENCH, "algos=[glr_klucb_alpha005]"])).algos.glr_klucb_alpha005
    assert kept == shipped


def test_a_shipped_benchmark_runs_with_its_list_plus_the_users():
    from bandits.experiments.compose.registry import compose

    shipped = sorted(compose([BENCH]).algos)
    assert composed_algos([BENCH, "+algos=[mine,w800:sw_ucb_gm]", MINE]) == sorted([*shipped, "mine", "w800"])


def test_replacing_a_benchmarks_algorithms_runs_end_to_end(tmp_path):
    code = cli.entry([BENCH, "algos=[mine,ucb1]", MINE, "~scenarios.slow_drift", "~scenarios.hedging_sinusoid",
                      "~scenarios.abrupt_many_small", "~scenarios.suboptimal_changes", "~scenarios.stationary",
                      "T=300", "trials=1", "instances=null", f"results_dir={tmp_path}"])
    assert code == 0
    table = pd.read_parquet(tmp_path / "tables" / "ns_benchmark.abrupt_few.parquet")
    assert sorted(table["algo"].unique()) == ["mine", "ucb1"]


def error_of(args: list[str], capsys) -> str:
    assert cli.entry(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "defaults list" not in err
    return err


def test_a_name_given_twice_gets_a_clear_message_not_hydras(capsys):
    assert "adds 'ucb1', which experiment ns_benchmark runs already" in error_of(
        [BENCH, "+algos=[ucb1]", "dry_run=true"], capsys)
    assert "lists 'ucb1' twice" in error_of([BENCH, "algos=[ucb1,ucb1]", "dry_run=true"], capsys)
    assert "adds 'ucb1', which experiment ns_benchmark runs already" in error_of(
        [BENCH, "+algo@algos.ucb1=ucb1", "dry_run=true"], capsys)


def test_an_unknown_algorithm_name_is_refused_alike_by_the_cli_and_simulate(capsys):
    """algos=[ucbl] became a custom policy ("has no _target_"); simulate(algos=['ucbl']) said
    "no algo config named 'ucbl'". Both now refuse it, with the same words and a did-you-mean."""
    from bandits import simulate
    from bandits.errors import ConfigError

    err = error_of(["algos=[ucbl]", "env=piecewise_bernoulli", "dry_run=true"], capsys)
    try:
        simulate(env="piecewise_bernoulli", algos=["ucbl"], T=100, trials=1)
    except ConfigError as exc:
        api = str(exc)
    core = "no algo config named 'ucbl' (did you mean 'ucb' or 'ucb1'?)"
    assert core in err and core in api


# ----------------------------------------------------------------------------- how many trials: trials=auto

APART = {"ucb1": "ucb1", "d_ucb": "d_ucb"}  # far apart on this instance: resolved at the first look
ALIKE = {"a": {"name": "d_ucb", "gamma": 0.999}, "b": {"name": "d_ucb", "gamma": 0.9989}}  # hardly apart


def test_trials_auto_resolves_a_seeded_pair_that_is_apart_and_stops_there():
    from bandits import simulate

    rows = simulate(env="piecewise_bernoulli", algos=APART, T=1000, trials="auto", seed=0,
                    auto={"first": 4, "step": 4, "max_trials": 40})
    assert rows["trial"].nunique() == 4
    assert "every pair resolved at 4 trials" in rows.attrs["auto"] and "1 worse than the best" in rows.attrs["auto"]


def test_trials_auto_reports_a_pair_it_cannot_resolve_at_the_cap():
    from bandits import simulate

    rows = simulate(env="piecewise_bernoulli", algos=ALIKE, T=300, trials="auto", seed=0,
                    auto={"first": 3, "step": 3, "max_trials": 9})
    verdict = rows.attrs["auto"]
    assert rows["trial"].nunique() == 9 and "stopped at the cap" in verdict
    assert "unresolved (difference" in verdict and ("b - a" in verdict or "a - b" in verdict)
    assert "the best is chosen again from the data at each look, which the bound does not cover" in verdict


def test_an_unresolved_pair_gets_the_trials_that_would_resolve_it():
    from types import SimpleNamespace

    from bandits.experiments.run.adaptive_trials import trials_needed

    # half-width 10 around a difference of 5 at 9 trials: (10 / 5)^2 x 9 = 36
    assert "about 36 trials would resolve it" in trials_needed(SimpleNamespace(low=-5.0, high=15.0, difference=5.0,
                                                                               trials=9))
    assert trials_needed(SimpleNamespace(low=-1.0, high=1.0, difference=0.0, trials=9)) == ""


def test_precision_resolves_a_pair_whose_difference_is_too_small_to_matter():
    from bandits import simulate

    rows = simulate(env="piecewise_bernoulli", algos=ALIKE, T=300, trials="auto", seed=0,
                    auto={"first": 3, "step": 3, "max_trials": 9, "precision": 1000.0})
    assert "1 within the precision" in rows.attrs["auto"] and rows["trial"].nunique() == 3


def test_an_auto_runs_first_n_trials_are_bit_identical_to_trials_n(tmp_path):
    """Looks at 3, 6 and 9 trials: the auto run's 9 trials are those of trials=9, on the command
    line too (where the later looks reuse nothing and recompute nothing)."""
    from bandits import simulate

    auto = simulate(env="piecewise_bernoulli", algos=ALIKE, T=300, trials="auto", seed=0,
                    auto={"first": 3, "step": 3, "max_trials": 9})
    fixed = simulate(env="piecewise_bernoulli", algos=ALIKE, T=300, trials=9, seed=0)
    columns = ["algo", "label", "T", "trial", "final_regret", "final_reward", "cell_key"]
    pd.testing.assert_frame_equal(auto[columns], fixed[columns])
    algos = ["algos=[a:d_ucb,b:d_ucb]", "algos.a.gamma=0.999", "algos.b.gamma=0.9989", "env=piecewise_bernoulli",
             "T=300", "seed=0", f"results_dir={tmp_path}"]
    assert cli.entry([*algos, "trials=auto", "auto.first=3", "auto.step=3", "auto.max_trials=9",
                      "experiment_name=auto"]) == 0
    assert cli.entry([*algos, "trials=9", "experiment_name=fixed"]) == 0
    by_cli = [pd.read_parquet(tmp_path / "tables" / f"{n}.parquet")[columns[:-1]] for n in ("auto", "fixed")]
    pd.testing.assert_frame_equal(*by_cli)
    pd.testing.assert_frame_equal(by_cli[0], fixed[columns[:-1]])


def test_bad_auto_settings_get_one_paragraph(capsys):
    assert cli.entry(["algo=ucb1", "env=piecewise_bernoulli", "trials=auto", "auto.first=1", "dry_run=true"]) == 2
    assert "auto.first" in capsys.readouterr().err
    assert cli.entry(["algo=ucb1", "env=piecewise_bernoulli", "trials=auto", "auto.confidence=1.5",
                      "dry_run=true"]) == 2
    assert "auto.confidence must lie strictly between 0 and 1" in capsys.readouterr().err


def test_a_table_that_cannot_report_a_needed_range_says_which_settings_would(capsys):
    """sw_ucb_gm on the tour's file: the table now counts the changes from its means, and for
    the reward range it still lacks, it names the settings that give one."""
    err = error_of(["env=table", "env.path=examples/two_arms.csv", "T=2000", "algo=sw_ucb_gm", "dry_run=true"], capsys)
    assert "Upsilon_T" not in err and "env.noise=bernoulli" in err and '"env.reward_range=[lo,hi]"' in err
    assert cli.entry(["env=table", "env.path=examples/two_arms.csv", "T=200", "trials=1", "algo=sw_ucb_gm",
                      "env.reward_range=[0,1]", "env.noise=bernoulli", "dry_run=true"]) == 0
