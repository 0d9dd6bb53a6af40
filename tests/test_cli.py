"""The command line as a user meets it: bad input gives one paragraph and exit 2
before any work starts; the documented commands run."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT


def cli(*args, tmp_path):
    flags = [a for a in args if a == "-m"]
    cmd = [sys.executable, "run.py", *flags, f"results_dir={tmp_path}", *[a for a in args if a != "-m"]]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def assert_clean_error(proc, *fragments):
    assert proc.returncode != 0
    err = proc.stderr
    assert "Traceback" not in err, err
    for f in fragments:
        assert f in err, err


def test_unknown_algorithm_lists_valid_names(tmp_path):
    proc = cli("algo=nope", tmp_path=tmp_path)
    assert_clean_error(proc, "nope", "sw_ucb_opt", "bob", "exp3s", "ucb")


def test_unknown_environment_lists_valid_names(tmp_path):
    proc = cli("env=nope", tmp_path=tmp_path)
    assert_clean_error(proc, "nope", "sinusoid", "table")


@pytest.mark.parametrize("override,fragment", [
    ("T=0", "T must be >= 1"),
    ("T=-5", "T must be >= 1"),
    ("trials=0", "trials must be >= 1"),
    ("T=abc", "T must be an integer"),
    ("trials=2.5", "trials must be an integer"),
    ("env.B_T_scale=-1", "B_T"),
    ("env.R=-0.1", "env.R must be >= 0"),
    ("env.R=high", "env.R must be a number"),
    ("algo.window=0", "algo.window must be >= 1"),
    ("algo.lam=0", "algo.lam must be > 0"),
])
def test_bad_values_give_one_paragraph(tmp_path, override, fragment):
    proc = cli("algo=sw_ucb", "trials=1", override, tmp_path=tmp_path)
    assert proc.returncode == 2
    assert_clean_error(proc, "error:", fragment)
    assert not (tmp_path / "runs").exists()  # nothing ran


def test_table_errors(tmp_path):
    missing = cli("env=table", f"env.path={tmp_path}/none.npz", "T=10", tmp_path=tmp_path)
    assert_clean_error(missing, "does not exist")
    np.savez(tmp_path / "flat.npz", means=np.zeros(10))
    assert_clean_error(cli("env=table", f"env.path={tmp_path}/flat.npz", "T=10", tmp_path=tmp_path), "shape")
    bad = np.full((10, 2), 0.5)
    bad[4, 1] = np.nan
    np.savez(tmp_path / "nan.npz", means=bad)
    assert_clean_error(cli("env=table", f"env.path={tmp_path}/nan.npz", "T=10", tmp_path=tmp_path),
                       "NaN", "round 4, arm 1")
    np.savez(tmp_path / "mismatch.npz", means=np.zeros((10, 2)), rewards=np.zeros((10, 3)))
    assert_clean_error(cli("env=table", f"env.path={tmp_path}/mismatch.npz", "T=10", tmp_path=tmp_path),
                       "'rewards' has shape")
    np.savez(tmp_path / "short.npz", means=np.zeros((10, 2)))
    assert_clean_error(cli("env=table", f"env.path={tmp_path}/short.npz", "T=11", tmp_path=tmp_path),
                       "has 10 rounds but T=11")


def test_single_run_and_multirun(tmp_path):
    one = cli("algo=bob", "env=sinusoid", "T=2000", "trials=2", tmp_path=tmp_path)
    assert one.returncode == 0, one.stderr
    assert "bob" in one.stdout and "±" in one.stdout
    multi = cli("-m", "algo=sw_ucb_obl,bob", "env=sinusoid", "T=3000,6000", "trials=2", tmp_path=tmp_path)
    assert multi.returncode == 0, multi.stderr
    import pandas as pd
    table = pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")
    assert set(table["algo"]) == {"sw_ucb_obl", "bob"} and set(table["T"]) == {2000, 3000, 6000}


@pytest.mark.parametrize("experiment", ["fig2a", "fig2b"])
def test_experiment_configs_declare_the_paper_sweep(tmp_path, experiment):
    proc = cli(f"+experiment={experiment}", "--cfg", "job", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "trials: 50" in out and "- 240000" in out and "- 30000" in out


def test_experiment_rejects_a_conflicting_algo(tmp_path):
    assert_clean_error(cli("+experiment=fig2a", "algo=bob", tmp_path=tmp_path), "algos")


@pytest.mark.parametrize("overrides,fragment", [
    (["env=piecewise_linear", "env.d=0"], "env.d must be >= 1"),
    (["env=piecewise_linear", "env.d=2", "env.action_set=given", "env.action_vectors=[[1,0,0]]"],
     "dimension 3 but env.d=2"),
    (["env=piecewise_linear", "env.action_set=fresh", "algo.window=0"], "algo.window must be >= 1"),
    (["env=piecewise_linear", "env.action_set=fresh", "algo.lam=-1"], "algo.lam must be"),
])
def test_linear_bad_input(tmp_path, overrides, fragment):
    proc = cli("algo=sw_ucb", "T=1000", "trials=1", *overrides, tmp_path=tmp_path)
    assert proc.returncode == 2
    assert_clean_error(proc, "error:", fragment)
    assert not (tmp_path / "runs").exists()


def test_table_action_dimension_mismatch(tmp_path):
    np.savez(tmp_path / "lin.npz", means=np.zeros((10, 3)), actions=np.ones((10, 3, 4)))
    proc = cli("env=table", f"env.path={tmp_path}/lin.npz", "env.d=2", "T=10", tmp_path=tmp_path)
    assert_clean_error(proc, "dimension 4 but env.d=2")
