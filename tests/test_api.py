"""The Python API: ``from bandits import simulate`` gives the CLI's table and numbers."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from bandits import simulate
from bandits.environments import Sinusoid
from bandits.errors import ConfigError
from bandits.reference import ReferenceSWUCB

MACHINE = ["wall_time_s"]  # the one column that measures the machine, not the algorithm


def test_simulate_and_the_cli_give_bit_identical_tables(tmp_path):
    cmd = [sys.executable, "run.py", "-m", "algo=bob,exp3s", "env=sinusoid", "env.B_T_exponent=0.3333333333333333",
           "T=2000", "trials=3", "seed=1", f"results_dir={tmp_path}"]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, timeout=300)
    cli = pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")
    api = simulate(env={"name": "sinusoid", "B_T_exponent": 1 / 3}, algos=["bob", "exp3s"], T=2000, trials=3, seed=1)
    assert (cli["final_regret"].to_numpy() == api["final_regret"].to_numpy()).all()
    assert list(api.columns) == list(cli.columns)
    pd.testing.assert_frame_equal(api.drop(columns=MACHINE), cli.drop(columns=MACHINE))


def test_simulate_accepts_names_dicts_and_objects():
    rows = simulate(env=Sinusoid(B_T_exponent=1 / 3),
                    algos={"obl": "sw_ucb_obl", "w200": {"name": "sw_ucb", "window": 200},
                           "ref": ReferenceSWUCB(window=200)},
                    T=[500, 1000], trials=2, seed=4, n_jobs=2)
    assert len(rows) == 3 * 2 * 2 and set(rows["label"]) == {"obl", "w200", "ref"}
    by = rows.set_index(["algo", "T", "trial"])["final_regret"]
    # the compiled SW-UCB and its literal transcription agree round for round, so their regrets are equal
    np.testing.assert_array_equal(by.loc["w200"].to_numpy(), by.loc["ref"].to_numpy())


def test_simulate_does_not_depend_on_n_jobs():
    a = simulate(env="sinusoid", algos=["exp3s", "sw_ucb_obl"], T=[800, 1600], trials=3, seed=9, n_jobs=1)
    b = simulate(env="sinusoid", algos=["exp3s", "sw_ucb_obl"], T=[800, 1600], trials=3, seed=9, n_jobs=2)
    pd.testing.assert_frame_equal(a.drop(columns=MACHINE), b.drop(columns=MACHINE))


def test_simulate_stores_and_reuses_cells_like_the_cli(tmp_path):
    first = simulate(env="sinusoid", algos=["exp3s"], T=800, trials=2, results_dir=tmp_path)
    assert (tmp_path / "tables" / "adhoc.parquet").exists()
    again = simulate(env="sinusoid", algos=["exp3s"], T=800, trials=2, results_dir=tmp_path)
    assert list(first["cell_key"]) == list(again["cell_key"])
    assert (first["wall_time_s"].to_numpy() == again["wall_time_s"].to_numpy()).all()  # read back, not rerun


@pytest.mark.parametrize("kwargs,fragment", [
    ({"env": "nope", "algos": ["bob"]}, "no env config named 'nope'"),
    ({"env": "sinusoid", "algos": ["iltcb"]}, "does not fit env=sinusoid"),
    ({"env": "sinusoid", "algos": [{"window": 3}]}, "needs a 'name'"),
    ({"env": "sinusoid", "algos": ["bob", "bob"]}, "two algorithms are named 'bob'"),
    ({"env": "sinusoid", "algos": ["bob"], "T": 0}, r"simulate\(T=0\): must be an integer from 1"),
    ({"env": "sinusoid", "algos": ["bob"], "trials": "auto", "auto": 5}, "auto must be a mapping"),
    ({"env": "sinusoid", "algos": ["bob"], "trials": "auto", "auto": "first=3"}, "auto must be a mapping"),
    ({"env": "sinusoid", "algos": ["bob"], "auto": {"first": 3}}, "is read only with trials='auto'"),
    ({"env": "piecewise_bernoulli", "algos": ["ucb1"], "T": 1_000_000, "trials": 20_000, "save_actions": True},
     "kept in memory without a results folder"),
])
def test_simulate_refuses_bad_input_with_one_message(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        simulate(**{"T": 500, "trials": 1, **kwargs})
