"""A researcher's own policy, folder and data against the baselines, as a new user meets the
tool: one command (and the same from ``simulate()``) runs a policy of the current folder
against named baselines into one table, one summary and one figure; hints name the key the
user must set; ``--help`` explains the tool; ``examples`` writes the examples; the README tour,
the plot stage and a short cross-check leave a clone's ``git status`` empty; and a real
(non-editable) install works inside a project that has its own ``experiments/`` package."""

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

POLICY = '''import numpy as np


class Greedy:
    """Greedy on the sample means, epsilon-uniform exploration (a protocol policy)."""

    problem_kinds = ("karmed",)

    def __init__(self, epsilon=0.1):
        self.epsilon = epsilon

    def reset(self, n_arms, horizon, rng, info):
        self.rng_, self.sums_, self.counts_ = rng, np.zeros(n_arms), np.zeros(n_arms)

    def select(self, t):
        if self.rng_.random() < self.epsilon or self.counts_.min() == 0:
            return int(self.rng_.integers(len(self.sums_)))
        return int(np.argmax(self.sums_ / self.counts_))

    def update(self, t, arm, reward):
        self.sums_[arm] += reward
        self.counts_[arm] += 1.0
'''
RUN = [sys.executable, str(ROOT / "run.py")]


def project(tmp_path) -> Path:
    """A user's folder with a policy module of their own."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "mypolicies.py").write_text(POLICY)
    return folder


def run(args, cwd, timeout=600):
    return subprocess.run([*RUN, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


COMPARE = ["algos=[mine,ucb1,glr_klucb]", "algos.mine._target_=mypolicies.Greedy", "env=piecewise_bernoulli",
           "T=600", "trials=2", "seed=3"]


def test_one_command_runs_my_policy_against_two_baselines(tmp_path):
    cwd = project(tmp_path)
    proc = run([*COMPARE, "results_dir=out"], cwd)
    assert proc.returncode == 0, proc.stderr
    table = pd.read_parquet(cwd / "out" / "tables" / "adhoc.parquet")
    assert set(table["label"]) == {"mine", "ucb1", "glr_klucb"} and len(table) == 6
    summary = proc.stdout + proc.stderr
    for label in ("mine", "ucb1", "glr_klucb"):
        assert re.search(rf"^\s*{label}\s+600\s+2\s", summary, flags=re.M), summary
    assert re.search(r"time: 6 cells, [\d.]+ s wall on \d+ workers?; per cell of work [\d.]+ ms, of which the kernels "
                     r"[\d.]+ ms", summary)
    # the same from Python: the same table, bit for bit
    sys.path.insert(0, str(cwd))
    try:
        from bandits import simulate

        api = simulate(env="piecewise_bernoulli", algos={"mine": {"_target_": "mypolicies.Greedy"}, "ucb1": "ucb1",
                                                         "glr_klucb": "glr_klucb"}, T=600, trials=2, seed=3)
    finally:
        sys.path.remove(str(cwd))
    key = ["label", "trial"]
    pd.testing.assert_series_equal(api.sort_values(key)["final_regret"].reset_index(drop=True),
                                   table.sort_values(key)["final_regret"].reset_index(drop=True))


def test_the_natural_attempt_needs_no_tilde_algo(tmp_path):
    cwd = project(tmp_path)
    proc = run(["+algo@algos.mine=custom", "algos.mine._target_=mypolicies.Greedy", "+algo@algos.ucb1=ucb1",
                "env=piecewise_bernoulli", "T=300", "trials=1", "results_dir=out"], cwd)
    assert proc.returncode == 0, proc.stderr
    assert set(pd.read_parquet(cwd / "out" / "tables" / "adhoc.parquet")["label"]) == {"mine", "ucb1"}
    both = run(["algos=[ucb1]", "algo=bob", "results_dir=out"], cwd)
    assert both.returncode == 2 and "algo=bob" in both.stderr and "Traceback" not in both.stderr


def test_hints_name_the_key_under_algos(tmp_path):
    proc = run(["algos=[swucb:sw_ucb_gm,ucb1]", "env=sinusoid", "T=300", "trials=1", "results_dir=out"], tmp_path)
    assert proc.returncode == 2
    assert "algos.swucb.reward_range=" in proc.stderr and "algo.reward_range" not in proc.stderr


@pytest.mark.parametrize("key", ["a_global_b", "_x", "x/y", "_self_"])
def test_keys_hydra_treats_specially_are_refused_by_name(tmp_path, key):
    proc = run([f"algos=[{key}:ucb1]", "results_dir=out"], tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert repr(key) in proc.stderr and "letters, digits" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_sweep_ends_with_one_combined_summary_and_one_figure(tmp_path):
    proc = run(["-m", "algos=[ucb1,kl_ucb]", "env=piecewise_bernoulli", "env.n_changes=1,2", "T=400", "trials=2",
                f"results_dir={tmp_path / 'out'}"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "sweep of 2 jobs, 8 cells:" in out
    tail = out[out.index("sweep of 2 jobs"):]
    for label in ("ucb1[env.n_changes=1]", "ucb1[env.n_changes=2]", "kl_ucb[env.n_changes=1]",
                  "kl_ucb[env.n_changes=2]"):
        assert label in tail
    figure = re.search(r"^figure: (\S+\.png)$", out, flags=re.M)
    assert figure and Path(figure.group(1)).is_file(), out  # one figure: regret against the swept setting
    assert "n_changes" in figure.group(1)


def test_help_starts_with_the_tools_own_description():
    proc = subprocess.run([*RUN, "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    head = proc.stdout.splitlines()
    assert head[0].startswith("drift-bandits: experiments with bandits in changing environments")
    text = "\n".join(head[:25])
    assert "Common commands:" in text and "algos=[mine,ucb1,glr_klucb]" in text
    assert "drift-bandits docs usage" in proc.stdout and "drift-bandits docs errors" in proc.stdout
    assert "source repository" not in proc.stdout  # the docs ship with the package
    assert proc.stdout.index("Common commands:") < proc.stdout.index("powered by Hydra")


def test_examples_are_written_into_a_folder(tmp_path):
    proc = run(["examples", str(tmp_path / "ex")], tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in (tmp_path / "ex").iterdir()}
    assert {"my_policies.py", "two_arms.csv", "three_classes.csv", "window_leader.py"} <= names
    again = run(["examples", str(tmp_path / "ex")], tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr


def test_the_library_never_imports_the_runner():
    """No module of the library (bandits/ outside bandits/experiments/) imports the runner at
    import time; ``bandits.simulate`` is resolved on first use (bandits/__init__.py)."""
    library = [p for p in (ROOT / "bandits").rglob("*.py") if p.relative_to(ROOT / "bandits").parts[0] != "experiments"]
    offenders = []
    for path in library:
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module-level imports only: a function's import runs on use
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path}: {n}" for n in names if n == "experiments" or n.startswith(("experiments.",
                                                                                              "bandits.experiments"))]
    assert not offenders
    code = "import sys, bandits.algorithms, bandits.environments, bandits.simulation; " \
           "print(any(m.startswith('bandits.experiments') or m == 'experiments' for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/").stdout.strip() == \
        "False"


def test_only_the_published_crosscheck_writes_its_shipped_report():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import crosscheck_smpybandits as cc
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert cc.parse([]).out == ROOT / "results" / "crosscheck" / "smpybandits.csv"
    for short in (["--T", "2000", "--trials", "3", "--large-T", "0"], ["--policies", "d_ucb"]):
        assert cc.parse(short).out == ROOT / "outputs" / "crosscheck" / "smpybandits.csv"


# ----------------------------------------------------------------------------- a clone and an install

TOUR_SCALE = {"python run.py +experiment=fig2a": ["trials=2", "horizon_scale=0.05"]}


def tour_commands() -> list[list[str]]:
    """The README tour's commands, each made small (few trials, short horizons)."""
    import shlex

    text = (ROOT / "README.md").read_text()
    block = re.search(r"## A tour\n\n```bash\n(.*?)```", text, flags=re.S).group(1)
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        from bandits.experiments.cli import SUBCOMMANDS

        if words[1:2] == ["run.py"] and not (words[2:3] and words[2] in SUBCOMMANDS):
            small = TOUR_SCALE.get(" ".join(words), ["trials=2"] + ([] if any(w.startswith("T=") for w in words)
                                                                     else ["T=[300,600]"]))
            words = words + small
        out.append(words)
    return out


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clone") / "repo"
    subprocess.run(["git", "clone", "--quiet", "--depth", "1", f"file://{ROOT}", str(folder)], check=True,
                   capture_output=True, timeout=300)
    if subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip():
        pytest.skip("the working tree has uncommitted changes: the clone would test the last commit")
    return folder


def test_the_tour_the_plot_stage_and_a_short_crosscheck_leave_a_clone_clean(clone):
    for words in tour_commands():
        args = ["run.py", *words[1:]] if words[0] == "drift-bandits" else words[1:]  # in a clone: run.py is the command
        proc = subprocess.run([sys.executable, *args], cwd=clone, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{' '.join(words)}: {proc.stderr[-2000:]}"
    assert (clone / "outputs" / "tables").is_dir() and list((clone / "outputs" / "figures").glob("*.png"))
    proc = subprocess.run([sys.executable, "-m", "experiments.figures"], cwd=clone, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    venv = ROOT / ".crosscheck-venv"
    if venv.is_dir():  # a short cross-check against SMPyBandits, with its venv already built
        proc = subprocess.run([sys.executable, "scripts/crosscheck_smpybandits.py", "--T", "500", "--trials", "2",
                               "--slow-trials", "1", "--large-T", "0", "--policies", "d_ucb", "--scenarios",
                               "abrupt_k5", "--venv", str(venv)], cwd=clone, capture_output=True, text=True,
                              timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True)
    assert status.stdout == "", f"tracked files changed or untracked files appeared:\n{status.stdout}"


def test_a_real_install_works_inside_a_project_with_its_own_experiments_package(tmp_path):
    """``pip install`` of the repository (a built wheel, not editable) into a fresh venv;
    a project whose ``experiments/`` package shadows nothing of ours: the API, the console
    script (the README tour, from ``drift-bandits examples``), the conformance suite on the example
    policy (``drift-bandits check``), the plot stage and the guides (``drift-bandits docs``, read
    from the installed package outside the checkout) all work."""
    src = tmp_path / "src"  # the sources (tracked and new files), so that building leaves the checkout alone
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    for rel in listed:
        source, dest = ROOT / rel, src / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            dest.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, dest)
    # the sources as a commit of their own, which the built package must record (setup.py)
    for git in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "src"]):
        subprocess.run(["git", *git], cwd=src, check=True, capture_output=True, timeout=120)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, check=True, capture_output=True,
                            text=True).stdout.strip()
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w",
                    str(wheels), str(src)], check=True, capture_output=True, timeout=600)
    venv = tmp_path / "venv"  # a fresh venv
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=600)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # Its dependencies (numpy, hydra, ...) are this environment's, offline: their folder is added as a path,
    # whose .pth files (this checkout's editable install among them) are not read.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    *map(str, wheels.glob("*.whl"))], check=True, capture_output=True, timeout=600)
    assert not (site / "experiments").exists()  # one top-level name
    proj = tmp_path / "proj"
    (proj / "experiments").mkdir(parents=True)
    (proj / "experiments" / "__init__.py").write_text('"""The user\'s own experiments package."""\n')
    (proj / "experiments" / "api.py").write_text("VALUE = 42\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX")}
    env.update(PYTHONNOUSERSITE="1", VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    cli = [str(venv / "bin" / "drift-bandits")]

    def sh(args, timeout=900):
        proc = subprocess.run(args, cwd=proj, env=env, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, f"{args}: {proc.stderr[-2000:]}"
        return proc

    code = ("import bandits, experiments.api; from bandits import simulate; "
            "assert str(bandits.__file__).startswith(%r), bandits.__file__; assert experiments.api.VALUE == 42; "
            "t = simulate(env='sinusoid', algos=['sw_ucb_obl', 'bob'], T=500, trials=2, seed=0); print(len(t))")
    assert sh([str(python), "-c", code % str(site)]).stdout.strip() == "4"
    assert sh([*cli, "--help"]).stdout.startswith("drift-bandits: experiments with bandits")
    guide = site / "bandits" / "guide"  # the wheel holds the pages' text, not links into a checkout
    assert {p.name for p in guide.iterdir()} >= {"usage.md", "errors.md", "architecture.md"}
    assert not any(p.is_symlink() for p in guide.iterdir())
    listed = sh([*cli, "docs"]).stdout
    assert re.search(r"^  usage\s+Using drift-bandits$", listed, flags=re.M), listed
    for topic, page in (("usage", "usage"), ("errors", "errors"), ("adding-an-algorithm", "architecture")):
        shown = sh([*cli, "docs", topic]).stdout
        assert shown.rstrip("\n") == (ROOT / "docs" / f"{page}.md").read_text().split("\n", 1)[1].strip("\n")
    sh([*cli, "docs", "--out", "guides"])
    assert sorted(p.name for p in (proj / "guides").iterdir()) == sorted(p.name for p in guide.iterdir())
    wrong = subprocess.run([*cli, "docs", "usgae"], cwd=proj, env=env, capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "did you mean 'usage'?" in wrong.stderr and "Traceback" not in wrong.stderr
    sh([*cli, "examples"])
    checked = sh([*cli, "check", "examples.my_policies.DiscountedMeans", "gamma=0.95"]).stdout  # the suite ships
    assert "verdict: PASS" in checked and "FAIL" not in checked, checked
    for words in tour_commands():
        args = words[2:] if words[1] == "run.py" else words[1:]
        sh([*cli, *args])
    assert list((proj / "outputs" / "figures").glob("*.png"))
    sh([*cli, "plots", "--results", "outputs"])
    # where the numbers came from: the version, and the commit and fingerprint the package was built from
    from bandits.experiments.store.fingerprint import code_fingerprint

    version = sh([*cli, "--version"]).stdout
    assert version.startswith("drift-bandits 0.1.0 ") and f"git commit {commit}" in version, version
    rows = pd.concat([pd.read_parquet(p) for p in (proj / "outputs" / "tables").glob("*.parquet")])
    assert set(rows["git_commit"]) == {commit} and set(rows["code_fingerprint"]) == {code_fingerprint()}
    table = sorted((proj / "outputs" / "tables").glob("*.parquet"))[0]
    cited = sh([*cli, "cite", str(table)]).stdout
    assert cited.startswith("@software{drift_bandits,") and "% algorithm " in cited, cited
