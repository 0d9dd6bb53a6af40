"""The runner: determinism across n_jobs, resumable atomic cells, seeds, tables."""

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, compose

from bandits import simulation
from bandits.experiments.compose import building
from bandits.experiments.run import planning
from bandits.experiments.run.planning import plan_config
from bandits.experiments.run.sweep import run_config
from bandits.experiments.setup.setups import scenario_configs, setup_key

SMALL = ["T=[1500,3000]", "trials=3", "seed=11"]


def run_cfg(tmp_path, *overrides, progress=False):
    cfg = compose(list(SMALL) + [f"results_dir={tmp_path}"] + list(overrides))
    return run_config(cfg, progress=progress, full=True)


def test_tables_are_bit_identical_for_any_n_jobs(tmp_path):
    a = run_cfg(tmp_path / "one", "+experiment=fig2b", "T=[1500,3000]", "trials=3", "n_jobs=1")
    b = run_cfg(tmp_path / "two", "+experiment=fig2b", "T=[1500,3000]", "trials=3", "n_jobs=2")
    assert len(a) == 2 * 2 * 3
    cols = [c for c in a.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    ta = pd.read_parquet(tmp_path / "one" / "tables" / "fig2b.parquet")
    tb = pd.read_parquet(tmp_path / "two" / "tables" / "fig2b.parquet")
    pd.testing.assert_frame_equal(ta[cols], tb[cols])


def test_rerun_skips_done_cells_and_overwrite_recomputes(tmp_path):
    run_cfg(tmp_path, "algo=bob")
    plan = plan_config(compose(SMALL + [f"results_dir={tmp_path}", "algo=bob"]))
    assert len(plan.todo) == 0 and len(plan.done) == 6
    plan = plan_config(compose(SMALL + [f"results_dir={tmp_path}", "algo=bob", "overwrite=true"]))
    assert len(plan.todo) == 6


def test_code_change_never_reuses_a_cell(tmp_path, monkeypatch):
    run_cfg(tmp_path, "algo=bob")
    monkeypatch.setattr(planning, "code_fingerprint", lambda: "edited-code")
    plan = plan_config(compose(SMALL + [f"results_dir={tmp_path}", "algo=bob"]))
    assert len(plan.todo) == 6


def test_interrupt_loses_no_finished_cell(tmp_path, monkeypatch):
    from bandits.experiments.run import worker

    real_run = worker.run_cell
    calls = {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_run(*args, **kwargs)

    monkeypatch.setattr(worker, "run_cell", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_cfg(tmp_path, "algo=sw_ucb_obl", "n_jobs=1")
    monkeypatch.setattr(worker, "run_cell", real_run)
    shards = list((tmp_path / "runs" / "adhoc").glob("*.parquet"))
    assert not list((tmp_path / "runs" / "adhoc").glob(".*tmp"))  # no half-written file left
    # The two cells finished before Ctrl-C are written (one shard, whole) before it propagates.
    assert sum(len(pd.read_parquet(c)) for c in shards) == 2
    plan = plan_config(compose(SMALL + [f"results_dir={tmp_path}", "algo=sw_ucb_obl"]))
    assert len(plan.done) == 2 and len(plan.todo) == 4
    rows = run_cfg(tmp_path, "algo=sw_ucb_obl")
    assert len(rows) == 6


def test_every_algorithm_of_a_trial_sees_the_same_rewards(tmp_path):
    # Two deterministic algorithms with identical settings but different names: same
    # actions, so equal realised rewards prove they faced the same noise draw.
    rows = run_cfg(tmp_path, "+experiment=fig2a", "~algos.exp3s", "~algos.exp3s_auer",
                   "+algo@algos.twin=sw_ucb_opt", "T=[1500]")
    opt = rows[rows.algo == "sw_ucb_opt"].set_index("trial")
    twin = rows[rows.algo == "twin"].set_index("trial")
    np.testing.assert_array_equal(opt["final_reward"], twin["final_reward"])
    assert opt["final_reward"].nunique() == 3  # but trials differ from one another


def test_row_contents_and_checkpoints(tmp_path):
    rows = run_cfg(tmp_path, "algo=exp3s", "save_actions=true")
    row = rows[(rows["T"] == 3000)].iloc[0]
    assert list(row["checkpoints"])[-1] == 3000 and 150 <= len(row["checkpoints"]) <= 200
    assert row["regret_curve"][-1] == row["final_regret"] and row["reward_curve"][-1] == row["final_reward"]
    assert len(row["actions"]) == 3000
    for col in ("seed", "config_hash", "code_fingerprint", "package_version", "wall_time_s"):
        assert row[col] is not None
    assert '"batch"' in row["algo_params"] and '"variation_inf"' in row["env_info"]


def test_checkpoints_end_at_T():
    for T in (1, 7, 199, 200, 201, 30000):
        c = simulation.checkpoints(T)
        assert c[-1] == T and c[0] >= 1 and (np.diff(c) > 0).all() and len(c) <= 200


def test_streams_are_independent_and_reproducible():
    a = simulation.stream(5, 2, 100, 0, 1).random(4)
    assert (a == simulation.stream(5, 2, 100, 0, 1).random(4)).all()
    assert not (a == simulation.stream(5, 2, 100, 0, 2).random(4)).any()
    assert not (a == simulation.stream(6, 2, 100, 0, 1).random(4)).any()


def test_user_protocol_policy_runs_through_the_runner(tmp_path):
    rows = run_cfg(tmp_path, "algo=custom", "algo._target_=bandits.reference.ReferenceSWUCB",
                   "+algo.window=40", "T=[300]", "trials=2")
    assert list(rows["algo"]) == ["ReferenceSWUCB"] * 2 and (rows["final_regret"] > 0).all()


# ----------------------------------------------------------------------------- every sweep kept

def table(tmp_path, name="adhoc"):
    return pd.read_parquet(tmp_path / "tables" / f"{name}.parquet")


def test_hyperparameter_sweep_keeps_every_point(tmp_path):
    for w in (200, 800):
        run_cfg(tmp_path, "algo=sw_ucb", f"algo.window={w}", "T=[1500]", "trials=2", "experiment_name=sweep")
    rows = table(tmp_path, "sweep")
    assert len(rows) == 2 * 2
    assert sorted(rows["label"].unique()) == ["sw_ucb[window=200]", "sw_ucb[window=800]"]
    assert rows.groupby("label")["final_regret"].mean().nunique() == 2  # two different results, both kept


def test_two_custom_policies_keep_both(tmp_path):
    for w in (40, 80):
        run_cfg(tmp_path, "algo=custom", "algo._target_=bandits.reference.ReferenceSWUCB", f"+algo.window={w}",
                "T=[300]", "trials=1")
    run_cfg(tmp_path, "algo=custom", "algo._target_=bandits.reference.ReferenceSWUCB", "+algo.window=40",
            "algo.name=mine", "T=[300]", "trials=1")
    labels = set(table(tmp_path)["label"])
    assert labels == {"ReferenceSWUCB[window=40]", "ReferenceSWUCB[window=80]", "mine"}


def test_environment_parameter_sweep_keeps_both(tmp_path):
    for e in ("0.0", "0.3333333333333333"):
        run_cfg(tmp_path, "algo=bob", f"env.B_T_exponent={e}", "T=[1500]", "trials=2")
    rows = table(tmp_path)
    assert len(rows) == 4
    assert set(rows["label"]) == {"bob[env.B_T_exponent=0]", "bob[env.B_T_exponent=0.333333]"}


def test_a_user_label_names_the_configuration(tmp_path):
    run_cfg(tmp_path, "algo=sw_ucb", "algo.label=mine", "T=[1500]", "trials=1")
    run_cfg(tmp_path, "algo=sw_ucb", "algo.label=mine", "algo.window=50", "T=[1500]", "trials=1")
    run_cfg(tmp_path, "algo=bob", "T=[1500]", "trials=1")
    assert set(table(tmp_path)["label"]) == {"mine[window=1000]", "mine[window=50]", "bob"}


def test_labels_tell_apart_exactly_what_differs():
    from bandits.experiments.compose.labels import assign_labels

    def row(algo, params, env="sinusoid", env_params=None):
        return {"algo": algo, "env": env, "algo_params": json.dumps(params), "env_params": json.dumps(env_params or {})}

    rows = pd.DataFrame([row("a", {"w": 1, "lam": 1.0}), row("a", {"w": 2, "lam": 1.0}),
                         row("a", {"w": 2, "lam": 1.0}), row("b", {"w": 1}),
                         row("c", {"x": 0.1}, env_params={"R": 0.1}), row("c", {"x": 0.1}, env="table")])
    assert list(assign_labels(rows)) == ["a[w=1]", "a[w=2]", "a[w=2]", "b", "c[env=sinusoid,env.R=0.1]",
                                         "c[env=table,env.R=null]"]
    # a user label that collides with another configuration's name is told apart too
    clash = pd.DataFrame([row("a", {"w": 1}), row("d", {"label": "a", "w": 1})])
    assert list(assign_labels(clash)) == ["a[algo=a]", "a[algo=d]"]
    # values that print alike at 6 digits are shown in full rather than merged
    close = pd.DataFrame([row("e", {"x": 0.1234567}), row("e", {"x": 0.1234568})])
    assert assign_labels(close).is_unique


def test_labels_tell_the_kl_ucb_variants_apart():
    """The index of a change-detection or forgetting baseline is part of its label: by its
    config's name (m_klucb, d_klucb, ...) or, for one config with ``index`` overridden, by
    the setting that differs; the figures name each variant."""
    from bandits.experiments.compose.labels import assign_labels
    from bandits.experiments.figures.common import LABELS
    from bandits.experiments.studies.ns_benchmark import LABELS as NS_LABELS  # noqa: F401  (fills LABELS)

    def row(algo, **params):
        return {"algo": algo, "env": "piecewise_bernoulli", "algo_params": json.dumps(params), "env_params": "{}"}

    base = {"window": None, "kl_exploration": "log", "kl_c": 3.0}
    rows = pd.DataFrame([row("m_ucb", index="ucb1", **base), row("m_klucb", index="kl_ucb", **base),
                         row("d_ucb", index="ucb1", kl_exploration="log"),
                         row("d_ucb", index="kl_ucb", kl_exploration="log"),
                         row("d_ucb", index="kl_ucb", kl_exploration="three_log")])
    assert list(assign_labels(rows)) == ["m_ucb", "m_klucb", "d_ucb[index=ucb1,kl_exploration=log]",
                                         "d_ucb[index=kl_ucb,kl_exploration=log]",
                                         "d_ucb[index=kl_ucb,kl_exploration=three_log]"]
    names = {LABELS[n] for n in ("m_ucb", "m_klucb", "cusum_ucb", "cusum_klucb", "d_ucb", "d_klucb",
                                 "sw_ucb_gm", "sw_klucb_gm")}
    assert len(names) == 8


# ----------------------------------------------------------------------------- what makes a cell stale

def project_copy(tmp_path):
    """A copy of the sources (library, runner, configs, entry point) to edit freely."""
    import shutil

    root = tmp_path / "project"
    shutil.copytree(ROOT / "bandits", root / "bandits", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "run.py", root / "run.py")
    return root


def cells_to_run(root, results) -> int:
    proc = subprocess.run([sys.executable, "run.py", "algo=exp3s", "T=[1500]", "trials=2", f"results_dir={results}"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return int(re.search(r"(\d+) cells to run", proc.stdout).group(1))


def test_fingerprint_covers_what_produces_the_numbers_and_nothing_else(tmp_path):
    root = project_copy(tmp_path)
    results = tmp_path / "results"
    assert cells_to_run(root, results) == 2
    for edited in ("bandits/experiments/figures/common.py", "bandits/experiments/report/summary.py",
                   "bandits/experiments/store/table_store.py", "bandits/experiments/cli.py",
                   "bandits/experiments/compose/labels.py"):
        with open(root / edited, "a") as fh:
            fh.write("\n# a comment: plotting, summary, store and CLI code do not produce numbers\n")
    assert cells_to_run(root, results) == 0  # finished cells reused
    with open(root / "bandits" / "algorithms" / "exp3.py", "a") as fh:
        fh.write("\n# an edit to an algorithm\n")
    assert cells_to_run(root, results) == 2  # every cell recomputed
    with open(root / "bandits" / "simulation.py", "a") as fh:
        fh.write("\n# an edit to the trial loop\n")
    assert cells_to_run(root, results) == 2


def test_a_user_policy_source_is_part_of_the_cell_identity(tmp_path, monkeypatch):
    module = tmp_path / "user_policy_mod.py"
    module.write_text("from bandits.reference import ReferenceSWUCB\n\n\nclass Mine(ReferenceSWUCB):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    args = [f"results_dir={tmp_path / 'r'}", "algo=custom", "algo._target_=user_policy_mod.Mine", "T=[300]",
            "trials=1"]
    run_cfg(tmp_path / "r", *args[1:])
    assert len(plan_config(compose(SMALL + args)).todo) == 0
    module.write_text(module.read_text() + "# edited\n")
    from bandits.experiments.store import fingerprint
    fingerprint.source_hash.cache_clear()
    assert len(plan_config(compose(SMALL + args)).todo) == 1


def test_summary_fits_in_100_columns():
    from bandits.experiments.report.summary import summary_text

    rows = pd.DataFrame({"label": ["x" * 150, "short"], "T": [10, 10], "final_regret": [1.0, 2.0],
                         "final_reward": [3.0, 4.0], "wall_time_s": [0.1, 0.2]})
    assert max(len(line) for line in summary_text(rows).splitlines()) <= 100


# ----------------------------------------------------------------------------- scenarios

def test_an_experiment_with_scenarios_writes_one_table_per_scenario(tmp_path):
    """ns_benchmark lists environments under `scenarios`: each runs the same algorithms
    into its own table <experiment>.<scenario>, with that scenario's environment; a
    scenario is left out with ~scenarios.<name>."""
    rows = run_cfg(tmp_path, "+experiment=ns_benchmark", "T=[600]", "trials=1", "~scenarios.slow_drift",
                   "~scenarios.hedging_sinusoid", "~scenarios.abrupt_many_small")
    tables = sorted(p.stem for p in (tmp_path / "tables").glob("*.parquet"))
    assert tables == ["ns_benchmark.abrupt_few", "ns_benchmark.stationary", "ns_benchmark.suboptimal_changes"]
    assert set(rows["experiment"]) == set(tables)
    sub = pd.read_parquet(tmp_path / "tables" / "ns_benchmark.suboptimal_changes.parquet")
    info = json.loads(sub["env_info"].iloc[0])
    assert sub["env"].unique().tolist() == ["piecewise_bernoulli"] and info["Upsilon_T"] == 3
    stationary = pd.read_parquet(tmp_path / "tables" / "ns_benchmark.stationary.parquet")
    stationary = json.loads(stationary["env_info"].iloc[0])
    assert stationary["Upsilon_T"] == 0 and stationary["change_points"] == []
    # the same algorithms in every table, labelled by their names alone
    labels = {t: set(pd.read_parquet(tmp_path / "tables" / f"{t}.parquet")["label"]) for t in tables}
    assert len({frozenset(v) for v in labels.values()}) == 1 and all("[" not in x for x in labels[tables[0]])


def test_the_scenarios_of_one_command_share_one_pool_of_workers(tmp_path, monkeypatch):
    """With n_jobs=2 every scenario's batches go to the same joblib pool (one started for
    the command, not one per scenario), and each scenario's table is bit-identical to the
    in-process run's."""
    import joblib

    started = []

    class Counted(joblib.Parallel):
        def __init__(self, *args, **kwargs):
            started.append(kwargs.get("n_jobs"))
            super().__init__(*args, **kwargs)

    three = ["+experiment=ns_benchmark", "T=[600]", "trials=2", "~scenarios.slow_drift",
             "~scenarios.hedging_sinusoid", "~scenarios.abrupt_many_small", "~algos.bob"]
    one = run_cfg(tmp_path / "one", *three, "n_jobs=1")
    assert started == []
    monkeypatch.setattr(joblib, "Parallel", Counted)
    two = run_cfg(tmp_path / "two", *three, "n_jobs=2")
    assert started == [2]
    cols = [c for c in one.columns if c != "wall_time_s"]
    key = ["experiment", "cell_key"]
    pd.testing.assert_frame_equal(one[cols].sort_values(key).reset_index(drop=True),
                                  two[cols].sort_values(key).reset_index(drop=True))
    assert one["experiment"].nunique() == 3


def test_a_commands_scenarios_run_as_one_stream_of_batches_and_their_timings_add_up(tmp_path, monkeypatch):
    """The scenarios of one command hand their batches to the workers as one stream (one
    execute of every plan: no worker waits at the end of a scenario for the next one's first
    batch), each is gathered into its own table, and their rows in timings.csv follow one
    another (each starts where the one before ended), so that docs/speed.md's sum of wall times
    is the command's span."""
    from bandits.experiments.run import execution, sweep

    calls = []
    stream = execution.execute

    def counted(plans, *args, **kwargs):
        plans = list(plans)
        calls.append(len(plans))
        return stream(plans, *args, **kwargs)

    monkeypatch.setattr(sweep, "execute", counted)
    rows = run_cfg(tmp_path, "+experiment=ns_benchmark", "T=[600]", "trials=2", "~scenarios.slow_drift",
                   "~scenarios.hedging_sinusoid", "~scenarios.abrupt_many_small", "~algos.bob", "n_jobs=2")
    assert calls == [3]
    assert sorted(p.stem for p in (tmp_path / "tables").glob("*.parquet")) == [
        "ns_benchmark.abrupt_few", "ns_benchmark.stationary", "ns_benchmark.suboptimal_changes"]
    assert rows.groupby("experiment").size().nunique() == 1
    t = pd.read_csv(tmp_path / "timings.csv").sort_values("start")
    assert len(t) == 3 and (t["end"] >= t["start"]).all()
    assert np.allclose(t["start"].to_numpy()[1:], t["end"].to_numpy()[:-1], atol=2e-3)
    assert (t["plan_s"] > 0).all() and (t["kernel_s"] > 0).all()


def test_a_built_in_algorithm_is_built_once_per_spec_and_handed_out_as_copies(monkeypatch):
    """Setups that name the same built-in algorithm (every scenario and seed of a sweep) get
    copies of one checked object, not a fresh instantiate each; a policy of your own is built
    every time (its constructor is yours)."""
    import hydra.utils

    made = []
    instantiate = hydra.utils.instantiate

    def counted(spec, **kwargs):
        made.append(spec["_target_"])
        return instantiate(spec, **kwargs)

    monkeypatch.setattr(hydra.utils, "instantiate", counted)
    cache = building.BuildCache()  # a sweep's
    spec = {"_target_": "bandits.algorithms.sliding_window_ucb.SlidingWindowUCB", "window": 123}
    _, a = building.build(dict(spec), "algo", cache)
    _, b = building.build(dict(spec), "algo", cache)
    assert made == [spec["_target_"]] and a is not b and vars(a) == vars(b)
    _, c = building.build({**spec, "window": 50}, "algo", cache)
    assert len(made) == 2 and c.window == 50
    a.window = 7  # a copy handed out is its own: the next one is the spec's
    assert building.build(dict(spec), "algo", cache)[1].window == 123
    building.build(dict(spec), "algo", building.BuildCache())  # another sweep builds its own
    assert len(made) == 3
    own = {"_target_": "collections.OrderedDict"}  # not a bandits. class: built each time (then refused)
    for _ in range(2):
        with pytest.raises(Exception, match="not a policy"):
            building.build(dict(own), "algo", cache)
    assert made.count("collections.OrderedDict") == 2


def test_scenarios_are_all_validated_before_any_runs(tmp_path):
    from bandits.errors import ConfigError

    cfg = compose(SMALL + [f"results_dir={tmp_path}", "+experiment=ns_benchmark", "T=[600]", "trials=1",
                           "scenarios.stationary.means=[[2.0,0.1]]"])
    with pytest.raises(ConfigError, match="env.means"):
        run_config(cfg, progress=False)
    assert not (tmp_path / "tables").exists() and not (tmp_path / "runs").exists()


def test_the_setup_key_leaves_out_the_root_seed_alone():
    """The preflight checks jobs with one key once: they may differ in their seed, nothing else."""
    key = setup_key
    base = ["+experiment=master_geo", "T=100"]
    assert key(compose(base + ["seed=1"])) == key(compose(base + ["seed=2"]))
    for other in (["T=200"], ["trials=3"], ["scenarios.worst_xi03.gap_min=0.2"], ["algos.kl_ucb.c=1.0"]):
        assert key(compose(base + ["seed=1", *other])) != key(compose(base + ["seed=1"])), other


def test_each_scenario_keeps_the_shared_config_and_its_own_environment():
    cfg = compose(["+experiment=ns_benchmark", "T=[600]", "trials=2"])
    jobs = scenario_configs(cfg)
    assert [j.experiment_name for j in jobs] == [f"ns_benchmark.{n}" for n in cfg.scenarios]
    for job, name in zip(jobs, cfg.scenarios, strict=True):
        assert job.env == cfg.scenarios[name] and not job.scenarios
        assert job.algos == cfg.algos and job.T == [600] and job.trials == 2 and job.seed == cfg.seed


def test_a_scenario_must_be_an_environment_config():
    from bandits.errors import ConfigError

    cfg = compose(["+experiment=ns_benchmark", "+scenarios.bogus.K=3"])
    with pytest.raises(ConfigError, match="scenarios.bogus must be an environment config"):
        scenario_configs(cfg)


def test_a_sweep_over_root_seeds_composes_its_config_once_before_the_jobs(tmp_path, monkeypatch):
    """The command composes the first job of a sweep over seeds and gives the others its config
    with their seed, and builds and checks its setups once (the others are copies with their
    seed); Hydra's launcher composes nothing more. Every seed still runs, into one table."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    from bandits.experiments import cli
    from bandits.experiments.compose import registry

    composed, loaded, checked = [], [], []
    compose_, load = registry.compose, ConfigLoaderImpl.load_sweep_config
    monkeypatch.setattr(registry, "compose", lambda overrides=(), hydra=False: composed.append(1) or
                        compose_(overrides, hydra))
    monkeypatch.setattr(ConfigLoaderImpl, "load_sweep_config",
                        lambda self, *a, **k: loaded.append(1) or load(self, *a, **k))
    from bandits.experiments.run import sweep
    setups = sweep.job_setups
    monkeypatch.setattr(sweep, "job_setups", lambda cfg, cache=None: checked.append(1) or setups(cfg, cache))
    args = ["-m", "algo=ucb1", "env=piecewise_bernoulli", "T=200", "trials=1", "seed=0,1,2",
            f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra"]
    assert cli.entry(args) == 0
    assert len(composed) == 1 and loaded == [] and len(checked) == 1
    assert sorted(pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")["seed"]) == [0, 1, 2]


MASTER_GEO = ["-m", "+experiment=master_geo", "~scenarios.worst_xi03", "~scenarios.worst_xi04", "seed=0,1,2",
              "horizon_scale=0.01", "trials=2"]


def sweep_tables(folder, args) -> dict:
    return {p.name: pd.read_parquet(p).drop(columns=["wall_time_s"])
            for p in sorted((folder / "tables").glob("*.parquet"))}


def test_a_sweep_is_one_stream_whose_tables_equal_its_jobs_run_one_by_one(tmp_path, monkeypatch):
    """A -m sweep runs as one plan: every job's plans in one stream of batches, each job drawn
    when the stream reaches it (no worker waits at a job's end), each table written once, by its
    last plan. The tables are bit-identical to those of the same jobs run one by one, each its
    own command (the wall-time column aside)."""
    from bandits.experiments import cli
    from bandits.experiments.run import execution, sweep
    from bandits.experiments.store import table_store as store

    streams, written = [], []
    stream, merge = execution.execute, store.merge_into_table
    monkeypatch.setattr(sweep, "execute", lambda *a, **k: streams.append(1) or stream(*a, **k))
    monkeypatch.setattr(store, "merge_into_table", lambda path, *a: written.append(path.name) or merge(path, *a))
    one = tmp_path / "one"
    assert cli.entry([*MASTER_GEO, "n_jobs=2", f"results_dir={one}", f"hydra.sweep.dir={one}/hydra"]) == 0
    assert len(streams) == 1                                           # one stream for 3 jobs x 10 scenarios
    together = sweep_tables(one, MASTER_GEO)
    assert len(together) == 10 and sorted(written) == sorted(together)  # each table written once
    alone = tmp_path / "alone"
    for seed in (0, 1, 2):
        args = [a for a in MASTER_GEO if a not in ("-m", "seed=0,1,2")]
        assert cli.entry([*args, f"seed={seed}", "n_jobs=2", f"results_dir={alone}"]) == 0
    separately = sweep_tables(alone, MASTER_GEO)
    assert together.keys() == separately.keys()
    for name in together:
        pd.testing.assert_frame_equal(together[name], separately[name])


def test_each_jobs_summary_is_labelled_as_its_table_then_is(tmp_path, capsys):
    """A job whose table a later job writes prints its summary as the table holding the cells so
    far labels it (as when every job merged its cells at once), and says who writes the table."""
    from bandits.experiments import cli

    args = ["-m", "algo=sw_ucb", "algo.window=100,400", "env=piecewise_bernoulli", "T=500", "trials=2",
            f"results_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/hydra"]
    assert cli.entry(args) == 0
    out = capsys.readouterr().out
    first = out[out.index("#0 :"):out.index("table:")]  # job 0's lines up to its table line
    assert "\nsw_ucb 500" in first and "[window=" not in first  # the table so far holds one configuration
    assert "(written by the sweep's last job that adds to it)" in out
    assert sorted(pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")["label"].unique()) == [
        "sw_ucb[window=100]", "sw_ucb[window=400]"]


def test_a_table_held_back_is_written_when_the_sweep_stops(tmp_path, monkeypatch):
    """Interrupted before the last job of a table, a sweep still writes the table with the cells
    of the jobs that ran (the sweep's Tables, flushed on the way out)."""
    from bandits.experiments import cli
    from bandits.experiments.run import sweep

    finished = sweep.SweepRun.finished
    seen = []

    def interrupt_after_first(self, job, index, running, report=True):
        finished(self, job, index, running, report)
        seen.append(job.num)
        if job.num == 0:
            raise KeyboardInterrupt

    monkeypatch.setattr(sweep.SweepRun, "finished", interrupt_after_first)
    args = ["-m", "algo=ucb1", "env=piecewise_bernoulli", "T=300", "trials=2", "seed=0,1", f"results_dir={tmp_path}",
            f"hydra.sweep.dir={tmp_path}/hydra"]
    assert cli.entry(args) == 130
    table = pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")
    assert seen == [0] and len(table) >= 2 and 0 in set(table["seed"])


def test_two_sweeps_in_one_process_are_those_run_alone(tmp_path):
    """Nothing is kept between commands: a second sweep in the same process gives the table,
    summary and figure it gives alone (in a fresh process)."""

    first = ["-m", "algo=ucb1,d_ucb", "env=piecewise_bernoulli", "T=300", "trials=2", "experiment_name=first"]
    second = ["-m", "algo=sw_ucb", "algo.window=50,200", "env=sinusoid", "T=400", "trials=2",
              "experiment_name=second"]
    both = tmp_path / "both"
    proc = subprocess.run([sys.executable, "run.py", "commands",
                           " ".join([*first, f"results_dir={both}", f"hydra.sweep.dir={both}/h1"]),
                           " ".join([*second, f"results_dir={both}", f"hydra.sweep.dir={both}/h2"])],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    alone = tmp_path / "alone"
    solo = subprocess.run([sys.executable, "run.py", *second, f"results_dir={alone}", f"hydra.sweep.dir={alone}/h"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert solo.returncode == 0, solo.stderr
    drop = ["wall_time_s", "git_commit"]
    pd.testing.assert_frame_equal(pd.read_parquet(both / "tables" / "second.parquet").drop(columns=drop),
                                  pd.read_parquet(alone / "tables" / "second.parquet").drop(columns=drop))

    def summary(text):  # the combined summary's table, without its times (the last column, the time lines)
        block = text[text.index("sweep of 2 jobs"):].splitlines()
        return [line.rsplit(None, 1)[0] for line in block if not line.startswith(("time:", "compiling", "figure"))]

    assert summary(proc.stdout.split("==> drift-bandits")[2]) == summary(solo.stdout)
    a = pd.read_csv(both / "figures" / "second_sweep_window.csv").drop(columns="code")
    b = pd.read_csv(alone / "figures" / "second_sweep_window.csv").drop(columns="code")
    pd.testing.assert_frame_equal(a, b)


CRASHES = '''
class CrashesIfTold:
    problem_kinds = ("karmed",)
    def __init__(self, crash=False):
        self.crash = crash
    def reset(self, n_arms, horizon, rng, info):
        pass
    def select(self, t):
        return t % 2
    def update(self, t, arm, reward):
        if self.crash and t == 7:
            raise RuntimeError("my update is broken")
'''


def test_a_failure_in_the_next_jobs_batches_is_that_jobs_own(tmp_path):
    """The next job's batches run while this job finishes (one stream): one of them raising
    fails the next job, in its own turn, not this one, whose cells, summary and table are
    complete."""
    (tmp_path / "crashes.py").write_text(CRASHES)
    results = tmp_path / "results"
    cmd = [sys.executable, str(ROOT / "run.py"), "-m", "algo=custom", "algo._target_=crashes.CrashesIfTold",
           "+algo.crash=false,true", "env=piecewise_bernoulli", "T=3000", "trials=8", "n_jobs=2",
           f"results_dir={results}", f"hydra.sweep.dir={tmp_path}/hydra"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("my update is broken") == 1 and "Traceback" not in proc.stderr
    out = proc.stdout
    assert out.count("table:") == 1 and "#1 :" in out  # job 0 reported (its table), job 1 failed in its turn
    rows = pd.read_parquet(results / "tables" / "adhoc.parquet")
    assert len(rows) == 8 and all('"crash": false' in p for p in rows["algo_params"])
