"""Bad input at the seams, as a hostile or careless user meets them: inputs that are also
outputs, files small on disk but huge in effect, names that become file names, user config
folders, obstacles inside the results folder, experiment structure, and the Python API.

Every command-line case stops with exit code 2 before any work: one paragraph, no
traceback, the message it names, no input changed (the inputs folder and its files, and
the results folder's pre-existing files), and nothing written outside the results folder.
Every API case raises the tool's own error type (ConfigError, a ValueError) naming the
argument, with nothing written."""

import hashlib
import os
import time

import numpy as np
import pandas as pd
import pytest

from bandits.errors import ConfigError
from bandits.experiments import cli

LOAN_HEADER = "Primary_FICO,Term,Amount_Approved,onemonth,CarType,Competition_rate,mp,apply,Approve_Date\n"
LOAN_ROW = "720,60,25000,1.5,N,4.5,470,1,07/01/2002\n"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("seams")
    (d / "two_arms.csv").write_text("mean_0,mean_1\n" + "0.6,0.4\n" * 60)
    with open(d / "wide.csv", "w") as fh:  # a header of 10^6 columns: 6.9 MB
        fh.write(",".join(f"c{i}" for i in range(10 ** 6)) + "\n" + ",".join("0" for _ in range(10 ** 6)) + "\n")
    with open(d / "no_newline.csv", "w") as fh:  # 3 MB on one line, no header end
        fh.write("a" * 3_000_000)
    pd.DataFrame(np.zeros((3, 20_001)), columns=[f"m{i}" for i in range(20_001)]).to_parquet(d / "wide.parquet")
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, 60)
    pd.DataFrame({"x0": rng.normal(size=60), "x1": rng.normal(size=60), "label": labels}).to_csv(d / "three.csv",
                                                                                                  index=False)
    (d / "loan.csv").write_text(LOAN_HEADER + LOAN_ROW * 40)
    conf = d / "conf"
    (conf / "algo").mkdir(parents=True)
    (conf / "env").mkdir()
    (conf / "experiment").mkdir()
    files = {
        "algo/broken.yaml": "name: broken\n_target_: bandits.algorithms.UCB1\nc: [1, 2\n",
        "algo/selfref.yaml": "defaults:\n  - selfref\n  - _self_\nname: selfref\n",
        "algo/ping.yaml": "defaults:\n  - pong\n  - _self_\nname: ping\n",
        "algo/pong.yaml": "defaults:\n  - ping\n  - _self_\nname: pong\n",
        "algo/loop.yaml": "name: loop\n_target_: bandits.algorithms.UCB1\nc: &a [1, *a]\n",
        "algo/tagged.yaml": "name: tagged\n_target_: bandits.algorithms.UCB1\nc: !!python/object/apply:os.getcwd []\n",
        "env/broken_env.yaml": "name: broken_env\n_target_: bandits.environments.Sinusoid\nK: {2\n",
        # defaults lists that lead back to their own file: directly, through a second file, from another group
        "experiment/selfexp.yaml": "# @package _global_\ndefaults:\n  - /experiment@_global_: selfexp\nT: 40\n",
        "experiment/selfrel.yaml": "# @package _global_\ndefaults:\n  - selfrel\nT: 40\n",
        "experiment/ring_a.yaml": "# @package _global_\ndefaults:\n  - ring_b\nT: 40\n",
        "experiment/ring_b.yaml": "# @package _global_\ndefaults:\n  - /experiment@_global_: ring_a\n",
        "experiment/via_env.yaml": "# @package _global_\ndefaults:\n  - override /env: selfenv\nT: 40\n",
        "env/selfenv.yaml": "defaults:\n  - /env: selfenv\nname: selfenv\n",
    }
    for rel, text in files.items():
        (conf / rel).write_text(text)
    target = d / "outside_target.csv"
    target.write_text("mean_0,mean_1\n" + "0.5,0.5\n" * 60)
    return d


def results_with_data(results, inputs):
    """A results folder whose managed parts hold data files (or links to them)."""
    (results / "tables").mkdir(parents=True)
    (results / "runs").mkdir()
    (results / "hydra").mkdir()
    (results / "tables" / "mine.csv").write_text((inputs / "two_arms.csv").read_text())
    (results / "runs" / "mine.csv").write_text((inputs / "two_arms.csv").read_text())
    (results / "tables" / "loan.csv").write_text((inputs / "loan.csv").read_text())
    pd.DataFrame({"mean_0": [0.5] * 60, "mean_1": [0.4] * 60}).to_parquet(results / "tables" / "adhoc.parquet")


def link_into_results(results, inputs):
    results_with_data(results, inputs)
    link = inputs / "link_into_results.csv"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(results / "tables" / "mine.csv")


def obstacle(kind):
    def setup(results, inputs):
        results.mkdir(parents=True, exist_ok=True)
        if kind == "runs_file":
            (results / "runs").write_text("a file where the cells' folder goes")
        elif kind == "runs_exp_file":
            (results / "runs").mkdir()
            (results / "runs" / "adhoc").write_text("a file")
        elif kind == "tables_file":
            (results / "tables").write_text("a file")
        elif kind == "table_folder":
            (results / "tables" / "adhoc.parquet").mkdir(parents=True)
    return setup


TABLE = ["algo=ucb", "env=table", "T=40", "trials=1"]
SUP = ["algo=epsilon_greedy", "env=contextual_table", "env.source=supervised", "T=40", "trials=1",
       "env.fit_rows=0", "env.n_fitted=0"]
CONF_ENV = {"DRIFT_BANDITS_CONF": "{d}/conf"}

# (name, args, setup of the results folder or None, extra environment, fragments of the message)
CASES = [
    # ------------------------------------------------------------ an input that is also an output
    ("data_in_tables", [*TABLE, "env.path={r}/tables/mine.csv"], results_with_data, {},
     ["env.path=", "lies inside", "tables", "could overwrite your data"]),
    ("data_in_runs", [*TABLE, "env.path={r}/runs/mine.csv"], results_with_data, {}, ["lies inside", "runs"]),
    ("data_is_the_table_file", [*TABLE, "env.path={r}/tables/adhoc.parquet"], results_with_data, {},
     ["lies inside", "tables"]),
    ("link_into_tables", [*TABLE, "env.path={d}/link_into_results.csv"], link_into_results, {},
     ["link_into_results.csv", "lies inside", "tables"]),
    ("loan_data_in_tables", ["algo=bob", "env=autoloan", "env.data_path={r}/tables/loan.csv", "T=40", "trials=1"],
     results_with_data, {}, ["env.data_path=", "lies inside"]),
    ("surrogate_in_hydra", ["algo=bob", "env=autoloan", "env.surrogate_path={r}/hydra/s.csv", "T=40", "trials=1"],
     results_with_data, {}, ["env.surrogate_path=", "lies inside", "hydra"]),
    # ------------------------------------------------------------ small on disk, huge in effect
    ("header_of_a_million_columns", [*TABLE, "env.path={d}/wide.csv"], None, {},
     ["header (first line) is longer than", "env.max_columns"]),
    ("header_of_a_million_columns_contextual", [*SUP, "env.path={d}/wide.csv"], None, {},
     ["header (first line) is longer than"]),
    ("header_without_an_end", [*TABLE, "env.path={d}/no_newline.csv"], None, {}, ["longer than"]),
    ("parquet_of_20001_columns", [*TABLE, "env.path={d}/wide.parquet"], None, {},
     ["20,001 columns", "limit of 10,000", "env.max_columns"]),
    ("wide_parquet_with_a_lower_limit", [*TABLE, "env.path={d}/wide.parquet", "env.max_columns=100"], None, {},
     ["limit of 100"]),
    ("max_columns_zero", [*TABLE, "env.path={d}/two_arms.csv", "env.max_columns=0"], None, {},
     ["env.max_columns must be >= 1"]),
    ("fewer_arms_than_labels", [*SUP, "env.path={d}/three.csv", "env.K=2"], None, {},
     ["env.K=2 arms", "3 distinct labels"]),
    ("huge_K_checked_before_allocation", [*SUP, "env.path={d}/three.csv", "env.K=1000000000"], None, {},
     ["values, over the limit", "env.max_cells"]),
    # ------------------------------------------------------------ names that become file names
    ("name_of_250_characters", ["algo=ucb1", "experiment_name=" + "x" * 250], None, {},
     ["250 characters, more than 100"]),
    ("name_with_a_slash", ["algo=ucb1", "experiment_name=a/b"], None, {}, ["contains '/'"]),
    ("name_starting_with_a_dash", ["algo=ucb1", "experiment_name=-x"], None, {}, ["starts with '-'"]),
    ("name_with_a_space", ["algo=ucb1", "experiment_name='my run'"], None, {}, ["contains ' '"]),
    ("reserved_device_name", ["algo=ucb1", "experiment_name=nul"], None, {}, ["reserves it"]),
    ("name_with_two_dots", ["algo=ucb1", "experiment_name=a..b"], None, {}, ["reserves it"]),
    ("name_ending_parquet", ["algo=ucb1", "experiment_name=x.parquet"], None, {}, ["reserves it"]),
    ("label_with_a_newline", ["algo=ucb1", "env=piecewise_bernoulli", "algo.label='a\nb'"], None, {},
     ["algo.label=", "control characters"]),
    ("label_of_300_characters", ["algo=ucb1", "env=piecewise_bernoulli", "algo.label=" + "y" * 300], None, {},
     ["at most 100 characters"]),
    ("algos_key_with_global", ["+algo@algos.x_global_=ucb1"], None, {}, ["'x_global_' cannot name", "_global_"]),
    ("algos_key_with_self", ["+algo@algos._self_=ucb1"], None, {}, ["cannot name an algorithm"]),
    ("algos_list_key_starting_with_a_digit", ["algos=[1st:ucb1]"], None, {}, ["'1st' cannot name"]),
    ("algos_list_key_with_a_slash", ["algos=[a/b:ucb1]"], None, {}, ["'a/b' cannot name"]),
    ("algos_list_unknown_config", ["algos=[mine:no_such_algo]"], None, {}, ["config named 'no_such_algo'"]),
    # ------------------------------------------------------------ your own config folders
    ("malformed_yaml_selected", ["algo=broken", "T=40", "trials=1"], None, CONF_ENV,
     ["broken.yaml at line 4", "not valid YAML"]),
    ("malformed_env_yaml_selected", ["env=broken_env", "algo=ucb1", "T=40", "trials=1"], None, CONF_ENV,
     ["broken_env.yaml at line", "not valid YAML"]),
    ("broken_file_not_selected_leaves_a_wrong_pair_message", ["algo=ucb1", "env=drifting_contextual"], None,
     CONF_ENV, ["does not fit env=drifting_contextual", "Algorithms for env=drifting_contextual"]),
    ("self_recursive_defaults", ["algo=selfref"], None, CONF_ENV,
     ["selfref.yaml", "leads back to itself", "algo/selfref -> algo/selfref"]),
    ("mutually_recursive_defaults", ["algo=ping"], None, CONF_ENV, ["ping.yaml", "algo/ping -> algo/pong"]),
    ("self_referencing_alias", ["algo=loop"], None, CONF_ENV, ["loop.yaml at line 3", "alias refers"]),
    ("experiment_that_selects_itself", ["+experiment=selfexp"], None, CONF_ENV,
     ["conf/experiment/selfexp.yaml: its defaults list leads back to itself",
      "(experiment/selfexp -> experiment/selfexp)"]),
    ("experiment_whose_relative_default_is_itself", ["+experiment=selfrel"], None, CONF_ENV,
     ["conf/experiment/selfrel.yaml: its defaults list leads back to itself",
      "(experiment/selfrel -> experiment/selfrel)"]),
    ("experiments_that_select_each_other", ["+experiment=ring_a"], None, CONF_ENV,
     ["conf/experiment/ring_a.yaml: its defaults list leads back to itself",
      "(experiment/ring_a -> experiment/ring_b -> experiment/ring_a; through ", "conf/experiment/ring_b.yaml)"]),
    ("experiment_reaching_a_recursive_env", ["+experiment=via_env"], None, CONF_ENV,
     ["conf/env/selfenv.yaml: its defaults list leads back to itself (env/selfenv -> env/selfenv), reached from "
      "experiment/via_env"]),
    ("recursive_experiment_in_a_sweep", ["-m", "+experiment=selfrel,ring_b", "algo=ucb1"], None, CONF_ENV,
     ["conf/experiment/selfrel.yaml", "(experiment/selfrel -> experiment/selfrel)"]),
    ("python_tag", ["algo=tagged"], None, CONF_ENV, ["tagged.yaml at line 3", "not plain data", "never run"]),
    ("conf_folder_that_does_not_exist", ["algo=ucb1"], None, {"DRIFT_BANDITS_CONF": "{d}/no_such_folder"},
     ["DRIFT_BANDITS_CONF names a folder that does not exist", "no_such_folder"]),
    # ------------------------------------------------------------ the results folder, checked whole
    ("a_file_named_runs", ["algo=ucb1", "env=piecewise_bernoulli", "T=40", "trials=1"], obstacle("runs_file"), {},
     ["/runs' is a file", "cells"]),
    ("a_file_at_the_cells_folder", ["algo=ucb1", "env=piecewise_bernoulli", "T=40", "trials=1"],
     obstacle("runs_exp_file"), {}, ["runs/adhoc' is a file"]),
    ("a_file_named_tables", ["algo=ucb1", "env=piecewise_bernoulli", "T=40", "trials=1"], obstacle("tables_file"),
     {}, ["/tables' is a file"]),
    ("a_folder_at_the_table", ["algo=ucb1", "env=piecewise_bernoulli", "T=40", "trials=1"],
     obstacle("table_folder"), {}, ["adhoc.parquet' is a folder"]),
    # ------------------------------------------------------------ experiment structure
    ("every_scenario_dropped", ["+experiment=fig2_modern", "~scenarios.fig2a", "~scenarios.fig2b"], None, {},
     ["every scenario of the experiment was dropped", "scenarios.fig2a"]),
    ("duplicate_horizons", ["algo=ucb1", "env=piecewise_bernoulli", "T=[300,300]"], None, {},
     ["T lists 300 more than once"]),
    ("duplicate_horizons_in_a_sweep", ["-m", "algo=ucb1", "env=piecewise_bernoulli", "T=[300,300],[400]"], None, {},
     ["T lists 300 more than once"]),
]


def snapshot(folder):
    """Every file below ``folder`` with its size, mtime and content hash (symlinks as their target)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            out[str(p)] = ("link", os.readlink(p))
        elif p.is_file():
            st = p.stat()
            out[str(p)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
        elif p.is_dir():
            out[str(p)] = "dir"
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_at_the_seams_stops_before_any_work(case, inputs, tmp_path, capsys, monkeypatch):
    name, args, setup, env, fragments = case
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    results = tmp_path / "results"
    if setup is not None:
        setup(results, inputs)
    for key, value in env.items():
        monkeypatch.setenv(key, value.format(d=inputs))
    args = [a.format(d=inputs, r=results) for a in args] + [f"results_dir={results}"]
    before_inputs, before_results = snapshot(inputs), snapshot(tmp_path)
    start = time.perf_counter()
    assert cli.entry(args) == 2
    elapsed = time.perf_counter() - start
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text, text
    errors = [line for line in out.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out.err
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    assert snapshot(inputs) == before_inputs  # no input changed
    after = snapshot(tmp_path)  # nothing written outside the results folder, nothing changed inside it
    added = sorted(set(after) - set(before_results))
    assert all(p.startswith(str(results)) for p in added), added
    assert {k: v for k, v in after.items() if k in before_results} == before_results
    assert not list(results.glob("runs/*/*.parquet")) and not list(results.glob("tables/*.parquet.corrupt"))
    if name.startswith("header_of_a_million"):
        assert elapsed < 5.0  # refused from its first bytes, not after parsing


def test_the_corpus_covers_at_least_forty_cases_of_the_seams():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


# ----------------------------------------------------------------------------- the Python API

API_CASES = [
    ({"algos": None}, "simulate(algos=None)"),
    ({"algos": object()}, "simulate(algos=<object"),
    ({"algos": []}, "simulate(algos=[])"),
    ({"algos": {"x_global_": "ucb1"}}, "'x_global_' cannot name"),
    ({"env": 42}, "simulate(env=42)"),
    ({"n_jobs": 0}, "simulate(n_jobs=0)"),
    ({"n_jobs": 1.5}, "simulate(n_jobs=1.5)"),
    ({"seed": 2 ** 70}, "simulate(seed=1180591620717411303424)"),
    ({"seed": -1}, "simulate(seed=-1)"),
    ({"results_dir": 123}, "simulate(results_dir=123)"),
    ({"results_dir": ""}, "simulate(results_dir='')"),
    ({"T": [300, 300]}, "lists 300 more than once"),
    ({"T": []}, "simulate(T=[])"),
    ({"T": "300"}, "simulate(T='300')"),
    ({"T": True}, "simulate(T=True)"),
    ({"trials": 0}, "simulate(trials=0)"),
    ({"trials": True}, "simulate(trials=True)"),
    ({"overwrite": "false"}, "simulate(overwrite='false'): must be True or False"),
    ({"save_actions": 1}, "simulate(save_actions=1)"),
    ({"progress": "yes"}, "simulate(progress='yes')"),
    ({"experiment": "name\n"}, "simulate(experiment)='name\\n'"),
    ({"experiment": "x" * 250}, "more than 100"),
    ({"experiment": 7}, "must be a name"),
    # misspelt names: the command line's paragraph, "did you mean" included
    ({"env": "sinsoid"}, "no env config named 'sinsoid' (did you mean 'sinusoid'?); valid names: autoloan, "),
    ({"algos": ["glr_kl_ucb"]}, "no algo config named 'glr_kl_ucb' (did you mean 'glr_klucb'?); valid names: "),
    ({"algos": {"mine": {"name": "glr_kl_ucb"}}}, "(did you mean 'glr_klucb'?)"),
    ({"env": {"name": "sinsoid", "R": 0.1}}, "(did you mean 'sinusoid'?)"),
    ({"algos": {"mine": {"_target_": "bandits.algorithms.UCB2"}}},
     "algo._target_=bandits.algorithms.UCB2: the module bandits.algorithms was found ("),
    ({"env": {"_target_": "bandits.environments.Sinusiod"}}, "no class 'Sinusiod' (did you mean 'Sinusoid'?)"),
]


@pytest.mark.parametrize("kwargs,fragment", API_CASES, ids=[str(list(k)[0]) + str(i) for i, (k, _) in
                                                            enumerate(API_CASES)])
def test_every_bad_simulate_argument_raises_the_tools_error_before_any_work(kwargs, fragment, tmp_path):
    from bandits import simulate

    results = tmp_path / "results"
    args = {"env": "piecewise_bernoulli", "algos": ["ucb1"], "T": 300, "trials": 1, "seed": 0,
            "results_dir": results, **kwargs}
    with pytest.raises(ConfigError) as err:
        simulate(**args)
    assert isinstance(err.value, ValueError)
    assert fragment in str(err.value), str(err.value)
    assert not results.exists() or not any(results.rglob("*.parquet"))


@pytest.mark.parametrize("cli_args,api_args", [(["algo=glr_kl_ucb"], {"algos": ["glr_kl_ucb"]}),
                                               (["env=sinsoid"], {"env": "sinsoid"})], ids=["algo", "env"])
def test_a_misspelt_name_gets_the_same_paragraph_from_the_command_line_and_simulate(cli_args, api_args, tmp_path,
                                                                                     capsys, monkeypatch):
    from bandits import simulate

    monkeypatch.chdir(tmp_path)
    assert cli.entry([*cli_args, f"results_dir={tmp_path / 'results'}"]) == 2
    line = capsys.readouterr().err.strip()
    with pytest.raises(ConfigError) as err:
        simulate(**{"env": "sinusoid", "algos": ["ucb1"], "T": 100, **api_args})
    assert line == f"error: {err.value}" and "did you mean" in line


def test_simulate_names_the_file_whose_defaults_lead_back_to_itself(inputs, monkeypatch):
    from bandits import simulate

    monkeypatch.setenv("DRIFT_BANDITS_CONF", str(inputs / "conf"))
    with pytest.raises(ConfigError) as err:
        simulate(env="selfenv", algos=["ucb1"], T=100)
    assert f"{inputs / 'conf' / 'env' / 'selfenv.yaml'}: its defaults list leads back to itself" in str(err.value)


# ----------------------------------------------------------------------------- an optional extra not installed

@pytest.fixture
def without_the_cluster_extra(monkeypatch):
    """As on a machine without the ``cluster`` extra: Hydra has no submitit launcher (the plugin
    registers its configs when Hydra's plugin scan imports it) and the plugin's distribution is
    not installed."""
    from importlib import metadata

    from hydra.core.config_store import ConfigStore

    from bandits.experiments.compose.registry import compose

    compose([])  # Hydra has scanned its plugins: they have registered their configs, which are taken away
    launchers = ConfigStore.instance().repo["hydra"]["launcher"]
    for name in [n for n in launchers if n.startswith("submitit")]:
        monkeypatch.delitem(launchers, name)
    installed = metadata.version

    def version(name):
        if name == "hydra-submitit-launcher":
            raise metadata.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(metadata, "version", version)


@pytest.mark.parametrize("launcher", ["slurm", "local", "submitit_slurm"])
def test_a_launcher_whose_extra_is_not_installed_names_the_extra(launcher, without_the_cluster_extra, tmp_path,
                                                                 capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["-m", f"hydra/launcher={launcher}", "algo=ucb1,bob", "T=40", "trials=1", f"results_dir={tmp_path / 'r'}"]
    assert cli.entry(args) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    errors = [line for line in out.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out.err
    assert errors[0].startswith(f"error: hydra/launcher={launcher}")
    for fragment in ("hydra-submitit-launcher is not installed", "the cluster extra",
                     'pip install "drift-bandits[cluster]"', 'pip install -e ".[cluster]"'):
        assert fragment in errors[0], errors[0]
    assert "Could not load" not in errors[0]
    assert not (tmp_path / "r").exists()
