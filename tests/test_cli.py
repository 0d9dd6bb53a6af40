"""The command line as a user meets it: bad input gives one paragraph and exit 2
before any work starts; the documented commands run."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
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


# ----------------------------------------------------------------------------- a research tool's CLI

def test_experiment_name_is_set_from_the_command_line(tmp_path):
    proc = cli("algo=exp3s", "T=500", "trials=1", "experiment_name=my_runs", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "tables" / "my_runs.parquet").exists() and not (tmp_path / "tables" / "adhoc.parquet").exists()
    assert_clean_error(cli("algo=exp3s", "experiment_name=../up", tmp_path=tmp_path), "experiment_name")


@pytest.mark.parametrize("algo,env,kinds", [("iltcb", "sinusoid", "solves contextual problems"),
                                            ("bob", "drifting_contextual", "solves karmed / linear / pricing")])
def test_a_wrong_pair_is_refused_before_any_work(tmp_path, algo, env, kinds):
    proc = cli(f"algo={algo}", f"env={env}", tmp_path=tmp_path)
    assert proc.returncode == 2
    assert_clean_error(proc, f"algorithm '{algo}' does not fit env={env}", kinds, f"Algorithms for env={env}:",
                       f"Environments '{algo}' runs on:")
    assert "cells to run" not in proc.stdout and not (tmp_path / "runs").exists()
    assert len(proc.stderr.strip().splitlines()) == 1  # one paragraph


def test_result_files_honour_the_umask(tmp_path):
    for umask, mode in ((0o002, 0o664), (0o022, 0o644)):
        out = tmp_path / f"u{umask:o}"
        cmd = f"umask {umask:03o} && {sys.executable} run.py algo=exp3s T=300 trials=1 results_dir={out}"
        subprocess.run(cmd, shell=True, cwd=ROOT, check=True, capture_output=True, timeout=300)
        files = list((out / "runs").rglob("*.parquet")) + [out / "tables" / "adhoc.parquet"]
        assert files and all(f.stat().st_mode & 0o777 == mode for f in files), [oct(f.stat().st_mode) for f in files]


POLICY = '''
import numpy as np


class Greedy:
    """Epsilon-greedy on running means: a user's own policy in the working directory."""
    problem_kinds = ("karmed",)

    def __init__(self, eps=0.1):
        self.eps = eps

    def reset(self, n_arms, horizon, rng, info):
        self.rng_, self.sums_, self.counts_ = rng, np.zeros(n_arms), np.zeros(n_arms)

    def select(self, t):
        if self.rng_.random() < self.eps:
            return int(self.rng_.integers(len(self.sums_)))
        return int(np.argmax(self.sums_ / np.maximum(self.counts_, 1)))

    def update(self, t, arm, reward):
        self.sums_[arm] += reward
        self.counts_[arm] += 1
'''


def test_a_module_in_the_working_directory_is_a_policy(tmp_path):
    (tmp_path / "my_policies.py").write_text(POLICY)
    cmd = [sys.executable, str(ROOT / "run.py"), "algo=custom", "algo._target_=my_policies.Greedy", "T=400",
           "trials=3", "n_jobs=2", f"results_dir={tmp_path / 'results'}"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = pd.read_parquet(tmp_path / "results" / "tables" / "adhoc.parquet")
    assert set(rows["label"]) == {"Greedy"} and len(rows) == 3


def test_the_run_log_receives_the_log_and_bad_input_leaves_no_folder(tmp_path):
    ok = cli("algo=exp3s", "T=300", "trials=1", tmp_path=tmp_path)
    assert ok.returncode == 0
    logs = list((tmp_path / "hydra").glob("*/run.log"))
    assert len(logs) == 1 and "cells to run" in logs[0].read_text() and "table:" in logs[0].read_text()
    bad = cli("algo=exp3s", "T=0", tmp_path=tmp_path)
    assert bad.returncode == 2
    dry = cli("algo=exp3s", "T=300", "trials=1", "dry_run=true", tmp_path=tmp_path)
    assert dry.returncode == 0 and "dry run" in dry.stdout
    assert len(list((tmp_path / "hydra").iterdir())) == 1  # neither left a timestamped folder


def test_nothing_to_do_says_so(tmp_path):
    cli("algo=exp3s", "T=300", "trials=1", tmp_path=tmp_path)
    again = cli("algo=exp3s", "T=300", "trials=1", tmp_path=tmp_path)
    assert "nothing to run" in again.stdout


def test_collect_on_an_experiment_that_never_ran_writes_no_table(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "bandits.experiments.collect", "+experiment=fig2b", "trials=1",
                           f"results_dir={tmp_path}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3 and "no table written" in proc.stdout
    assert not (tmp_path / "tables").exists()


def test_the_installed_command_runs(tmp_path):
    exe = shutil.which("drift-bandits") or str(Path(sys.executable).parent / "drift-bandits")
    proc = subprocess.run([exe, "algo=exp3s", "T=300", "trials=1", f"results_dir={tmp_path}"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "tables" / "adhoc.parquet").exists()


def test_the_multirun_flag_may_come_anywhere(tmp_path):
    proc = subprocess.run([sys.executable, "run.py", "algo=exp3s", "T=300,600", "-m", "trials=1",
                           f"results_dir={tmp_path}"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert set(pd.read_parquet(tmp_path / "tables" / "adhoc.parquet")["T"]) == {300, 600}


def test_commands_run_in_one_process_and_stop_at_the_first_failure(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    proc = subprocess.run([sys.executable, "run.py", "commands",
                           f"-m algo=exp3s,ucb1 env=piecewise_bernoulli T=300 trials=2 results_dir={one}",
                           f"algo=kl_ucb env=piecewise_bernoulli T=300 trials=2 'results_dir={two}'"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("==> drift-bandits ") == 2
    assert set(pd.read_parquet(one / "tables" / "adhoc.parquet")["algo"]) == {"exp3s", "ucb1"}
    # the same cells as the command run on its own, in its own process
    alone = cli("algo=kl_ucb", "env=piecewise_bernoulli", "T=300", "trials=2", tmp_path=tmp_path / "alone")
    assert alone.returncode == 0, alone.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(two / "tables" / "adhoc.parquet")[["cell_key", "final_regret"]],
                                  pd.read_parquet(tmp_path / "alone" / "tables" / "adhoc.parquet")[
                                      ["cell_key", "final_regret"]])
    three = tmp_path / "three"
    failed = subprocess.run([sys.executable, "run.py", "commands", "algo=nope", f"algo=ucb1 results_dir={three}"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 2 and "no algo config named 'nope'" in failed.stderr
    assert not three.exists()  # the command after the failure never ran
    assert subprocess.run([sys.executable, "run.py", "commands"], cwd=ROOT, capture_output=True,
                          text=True).returncode == 2


def test_version_is_the_tools_not_hydras(capsys):
    from bandits.experiments import cli
    from bandits.experiments.store.fingerprint import code_fingerprint
    from bandits.version import __version__

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"drift-bandits {__version__} (code fingerprint {code_fingerprint()}; ")
    assert "Hydra" not in out


def test_the_citation_file_names_the_tool_at_its_version():
    import re

    import yaml  # omegaconf's own dependency

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == version and cff["title"].startswith("drift-bandits")
    assert cff["authors"] and all(ref["title"] and ref["authors"] for ref in cff["references"])
