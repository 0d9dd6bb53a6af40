"""Batched policies (bandits/algorithms/batched.py): a policy of your own in plain numpy that acts
on many trials at once runs wherever a per-trial policy runs, gives each trial the numbers it
gives that trial alone (whatever the batch, the batch size or n_jobs), keeps its memory bounded,
and the two worked examples choose exactly the arms of the compiled kernels."""

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, compose

from bandits import simulate
from bandits.algorithms.batched import BatchedGenerator, play_one, play_trials
from bandits.algorithms.discounted import DiscountedUCB
from bandits.algorithms.sliding_window_gm import SlidingWindowUCBGM
from bandits.batched_trials import block_rounds, run_batched_cells
from bandits.environments import PiecewiseBernoulli, Sinusoid
from bandits.environments.base import reward_blocks
from bandits.errors import ConfigError
from bandits.examples.batched_policies import BatchedDiscountedUCB, BatchedSlidingWindowUCB
from bandits.experiments import cli
from bandits.simulation import learner_info, run_cell, stream, trial_rewards

DUCB = "bandits.examples.batched_policies.BatchedDiscountedUCB"
SWUCB = "bandits.examples.batched_policies.BatchedSlidingWindowUCB"
PAIRS = [(DiscountedUCB(gamma=0.99), BatchedDiscountedUCB(gamma=0.99)),
         (DiscountedUCB(), BatchedDiscountedUCB()),  # the discount tuned with Upsilon_T
         (SlidingWindowUCBGM(window=300), BatchedSlidingWindowUCB(window=300)),
         (SlidingWindowUCBGM(), BatchedSlidingWindowUCB())]  # the window tuned with Upsilon_T


@pytest.mark.parametrize("compiled,batched", PAIRS, ids=["d_ucb", "d_ucb_tuned", "sw_ucb_gm", "sw_ucb_gm_tuned"])
def test_the_batched_examples_choose_the_compiled_kernels_arms_round_by_round(compiled, batched):
    env = PiecewiseBernoulli(K=4, n_changes=5)
    inst = env.instance(6000, np.random.default_rng(2))
    for seed in range(3):
        rewards = env.rewards(inst, np.random.default_rng(10 + seed))
        info = learner_info(compiled, inst)
        expected = compiled.play(rewards, info, np.random.default_rng(0))
        got = play_one(batched, rewards, info, np.random.default_rng(0))
        np.testing.assert_array_equal(got, expected)
        assert batched.derived_ == compiled.derived_
        if isinstance(batched, BatchedDiscountedUCB):  # the fast path's guard: a lower bound on every count
            assert 0.0 < batched.floor_ <= batched.N_.min()


def test_a_trial_in_a_batch_gets_the_numbers_it_gets_alone():
    """run_batched_cells on 7 trials = run_cell on each trial alone, bit for bit: the regret,
    reward, curves and actions."""
    env = Sinusoid()
    inst = env.instance(2500, stream(3, 0, 2500))
    algo = BatchedSlidingWindowUCB(window=200, reward_range=[-1, 2])
    together = run_batched_cells(algo, "mine", env, inst, 3, 2500, list(range(7)), save_actions=True)
    for trial, got in enumerate(together):
        alone = run_cell(algo, "mine", inst, trial_rewards(env, inst, 3, 2500, trial), 3, 2500, trial, True)
        for key in ("final_regret", "final_reward"):
            assert got[key] == alone[key]
        for key in ("checkpoints", "regret_curve", "reward_curve", "actions"):
            np.testing.assert_array_equal(got[key], alone[key])



class BatchedEpsilonGreedy:
    """A test policy whose every round uses its random stream: each trial explores with
    probability ``eps`` (a uniform arm) and otherwise plays its best empirical mean, an unplayed
    arm first (ties to the lowest arm). A trial's arms hang on its own stream's numbers, so a
    trial handed another trial's stream plays other arms."""

    batched = True
    problem_kinds = ("karmed",)

    def __init__(self, eps: float = 0.3):
        self.eps = eps

    def check_params(self):
        pass

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self.rng_ = rng
        self.sums_, self.counts_ = np.zeros((n_trials, n_arms)), np.zeros((n_trials, n_arms))
        self.derived_ = {"eps": self.eps}

    def select(self, t):
        explore = self.rng_.random() < self.eps
        uniform = self.rng_.integers(0, self.sums_.shape[1])
        with np.errstate(divide="ignore", invalid="ignore"):
            means = np.where(self.counts_ > 0, self.sums_ / self.counts_, np.inf)
        return np.where(explore, uniform, means.argmax(axis=1)).astype(np.int64)

    def update(self, t, arms, rewards):
        rows = np.arange(arms.shape[0])
        self.sums_[rows, arms] += rewards  # each trial's reward of the arm it pulled
        self.counts_[rows, arms] += 1


def batch_against_alone(algo, trials=6, T=400):
    """The trials whose actions in one batch differ from their actions played alone."""
    env = PiecewiseBernoulli()
    inst = env.instance(T, stream(4, 0, T))
    together = run_batched_cells(algo, "mine", env, inst, 4, T, list(range(trials)), save_actions=True)
    differ = []
    for trial, got in enumerate(together):
        alone = run_cell(algo, "mine", inst, trial_rewards(env, inst, 4, T, trial), 4, T, trial, True)
        if not np.array_equal(got["actions"], alone["actions"]) or got["final_regret"] != alone["final_regret"]:
            differ.append(trial)
    return differ


def test_a_randomised_batched_policy_draws_each_trials_choices_from_its_own_stream():
    """The random test policy: each trial of a batch plays what it plays alone."""
    assert batch_against_alone(BatchedEpsilonGreedy()) == []


def test_trials_handed_each_others_streams_are_caught(monkeypatch):
    """The test above is not blind: a runner that hands the trials of a batch each other's
    streams (the list of generators rotated by one) fails it in every trial."""
    import bandits.batched_trials as batched_trials

    class Rotated(BatchedGenerator):
        def __init__(self, generators):
            generators = list(generators)
            super().__init__(generators[1:] + generators[:1])

    monkeypatch.setattr(batched_trials, "BatchedGenerator", Rotated)
    assert batch_against_alone(BatchedEpsilonGreedy()) == list(range(6))
    # a deterministic policy cannot see the exchange: why the random policy is needed
    assert batch_against_alone(BatchedSlidingWindowUCB(window=100)) == []

def test_rewards_in_blocks_are_the_whole_tables_numbers():
    for env in (PiecewiseBernoulli(), Sinusoid(), Sinusoid(noise="bernoulli")):
        inst = env.instance(3001, np.random.default_rng(0))
        whole = env.rewards(inst, np.random.default_rng(7))
        blocks = list(reward_blocks(env, inst, np.random.default_rng(7), 256))
        assert all(b.shape[0] <= 256 for b in blocks)
        np.testing.assert_array_equal(np.concatenate(blocks), whole)


def test_a_batch_holds_a_block_of_rounds_not_whole_tables():
    assert block_rounds(1000, 5) * 1000 * 5 * 8 <= 64 * 2 ** 20
    assert block_rounds(1, 2) == 4096


GENERATORS = ["random", "standard_normal", "normal", "beta", "gamma", "exponential", "integers", "choice"]


def draw(rng: BatchedGenerator, kind: str):
    n = rng.n_trials
    return {"random": lambda: rng.random(3), "standard_normal": lambda: rng.standard_normal(),
            "normal": lambda: rng.normal(np.arange(n)[:, None], 2.0, size=2),
            "beta": lambda: rng.beta(np.arange(1, n + 1)[:, None] * np.ones((n, 3)), 2.0),
            "gamma": lambda: rng.gamma(2.0, size=4), "exponential": lambda: rng.exponential(3.0),
            "integers": lambda: rng.integers(0, 5, size=2),
            "choice": lambda: rng.choice(4, p=np.full((n, 4), 0.25))}[kind]()


@pytest.mark.parametrize("kind", GENERATORS)
def test_the_batched_generator_draws_each_trials_numbers_from_its_own_stream(kind):
    """Trial 2 of a batch of 5 draws what trial 2 alone draws, call after call (the buffered
    uniforms and normals across refills too)."""
    batch = BatchedGenerator([stream(1, 2, 9, i) for i in range(5)])
    alone = BatchedGenerator([stream(1, 2, 9, 2)])
    for _ in range(400):
        many, one = draw(batch, kind), draw(alone, kind)
        assert many.shape[0] == 5 and many.shape[1:] == one.shape[1:]
        if kind in ("normal", "beta"):  # parameters of trial 2 in the batch, of trial 0 alone
            continue
        np.testing.assert_array_equal(many[2], one[0])


def test_select_must_return_one_integer_arm_per_trial():
    class Wrong:
        batched = True

        def __init__(self, answer):
            self.answer = answer

        def reset(self, n_trials, n_arms, horizon, rng, info):
            pass

        def select(self, t):
            return self.answer

        def update(self, t, arms, rewards):
            pass

    rewards = np.zeros((5, 2, 3))  # round, trial, arm
    for answer, fragment in ((np.zeros(2), "integer numpy array of 2 arms"), (np.zeros(3, dtype=int), "of 2 arms"),
                             (np.array([0, 3]), "beyond 2"), (np.array([0, -1]), "the arm -1")):
        with pytest.raises(ConfigError, match=fragment):
            play_trials(Wrong(answer), [rewards], 2, 5, 3, {}, BatchedGenerator([]))


# ----------------------------------------------------------------------------- through the runner

def cli_table(tmp_path, *args, name="b"):
    assert cli.entry([*args, f"results_dir={tmp_path}", f"experiment_name={name}"]) == 0
    return pd.read_parquet(tmp_path / "tables" / f"{name}.parquet")


COMMAND = ["algo=custom", f"algo._target_={DUCB}", "+algo.gamma=0.99", "env=piecewise_bernoulli", "T=800",
           "trials=64", "seed=5"]


def test_a_batch_of_64_trials_and_the_same_trials_one_by_one_give_the_same_table(tmp_path):
    one_by_one = cli_table(tmp_path / "one", *COMMAND, "parallel.batch_cells=1")  # a batch (and a shard) a cell
    batched = cli_table(tmp_path / "batch", *COMMAND, "parallel.batch_cells=64", "parallel.batch_s=1000")
    columns = [c for c in batched.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(one_by_one[columns], batched[columns])


def batches_of(*overrides, workers=2):
    from bandits.experiments.compose.algo_lists import expand
    from bandits.experiments.run.batching import Batches
    from bandits.experiments.run.planning import plan
    from bandits.experiments.setup.setups import setup_from_config

    setup = setup_from_config(compose(expand(["algos=[mine,ucb1]", f"algos.mine._target_={DUCB}",
                                              "env=piecewise_bernoulli", "T=[300,600]", *overrides])))
    setup.results_dir = None
    made = plan(setup)
    s = made.setup
    return made, list(Batches(made, s.batch_cells, s.batch_s, workers, s.batched_trials))


def test_a_batched_policys_cells_are_one_batch_of_every_trial_not_doubling_from_one():
    """The speed of a batched policy comes from the size of its batch: a run of trials=100 hands
    it the 100 trials at once (not 1, 2, 4, ... as the compiled cells get), first at its horizon,
    so another worker runs the compiled cells beside it; parallel.batched_trials caps it."""
    made, batches = batches_of("trials=100")
    batched = [b for b in batches if all(c.algo_name == "mine" for _, cells in b.trials for c in cells)]
    assert [(b.T, b.cells) for b in batched] == [(600, 100), (300, 100)]
    assert batches[0] is batched[0]  # first at the longest horizon
    others = [b for b in batches if b not in batched]
    assert all(c.algo_name == "ucb1" for b in others for _, cells in b.trials for c in cells)
    assert others[0].cells == 1  # the compiled cells still double from one trial
    keys = sorted(c.key for b in batches for _, cells in b.trials for c in cells)
    assert keys == sorted(c.key for c in made.todo)
    _, capped = batches_of("trials=100", "parallel.batched_trials=30")
    assert [b.cells for b in capped if b.trials[0][1][0].algo_name == "mine"] == [30, 30, 30, 10] * 2
    _, one_file_a_cell = batches_of("trials=10", "parallel.batch_cells=1")
    assert all(b.cells == 1 for b in one_file_a_cell)


def test_the_batched_trials_setting_changes_no_number(tmp_path):
    args = ["algos=[mine,ucb1]", f"algos.mine._target_={DUCB}", "env=piecewise_bernoulli", "T=400", "trials=30"]
    whole = cli_table(tmp_path / "whole", *args)
    capped = cli_table(tmp_path / "capped", *args, "parallel.batched_trials=7")
    columns = [c for c in whole.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(whole[columns], capped[columns])


def test_a_bad_batched_trials_is_one_paragraph(tmp_path, capsys):
    assert cli.entry(["algo=ucb1", "env=piecewise_bernoulli", "T=100", "trials=2", "parallel.batched_trials=0",
                      f"results_dir={tmp_path}"]) == 2
    assert "parallel.batched_trials must be >= 1" in capsys.readouterr().err


def test_n_jobs_changes_no_number_of_a_batched_policy(tmp_path):
    args = [a.replace("trials=64", "trials=12") for a in COMMAND]
    one = cli_table(tmp_path / "one", *args, "n_jobs=1")
    two = cli_table(tmp_path / "two", *args, "n_jobs=2")
    columns = [c for c in one.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(one[columns], two[columns])


def test_a_batched_policy_runs_wherever_a_per_trial_one_runs(tmp_path):
    # algos=[...] next to a built-in, in one table
    table = cli_table(tmp_path, "algos=[mine,ucb1]", f"algos.mine._target_={DUCB}", "+algos.mine.gamma=0.99",
                      "env=piecewise_bernoulli", "T=500", "trials=3")
    assert sorted(table["algo"].unique()) == ["mine", "ucb1"] and len(table) == 6
    assert json.loads(table[table["algo"] == "mine"]["algo_params"].iloc[0])["gamma"] == 0.99
    # a -m sweep over its parameter
    assert cli.entry(["-m", "algo=custom", f"algo._target_={SWUCB}", "+algo.window=50,200", "env=piecewise_bernoulli",
                      "T=400", "trials=2", f"results_dir={tmp_path}", "experiment_name=swept",
                      f"hydra.sweep.dir={tmp_path}/hydra"]) == 0
    assert pd.read_parquet(tmp_path / "tables" / "swept.parquet")["label"].nunique() == 2
    # a shipped benchmark, with its algorithms and yours
    assert cli.entry(["+experiment=ns_benchmark", "algos=[mine,ucb1]", f"algos.mine._target_={DUCB}", "T=300",
                      "trials=2", "instances=null", "~scenarios.slow_drift", "~scenarios.hedging_sinusoid",
                      "~scenarios.stationary",
                      "~scenarios.abrupt_many_small", "~scenarios.suboptimal_changes", f"results_dir={tmp_path}"]) == 0
    assert len(pd.read_parquet(tmp_path / "tables" / "ns_benchmark.abrupt_few.parquet")) == 4
    # simulate(), by object and by config dict: the CLI's numbers
    api = simulate(env="piecewise_bernoulli", algos={"mine": BatchedDiscountedUCB(gamma=0.99), "ucb1": "ucb1"},
                   T=500, trials=3, seed=0)
    pd.testing.assert_series_equal(api.sort_values(["algo", "trial"])["final_regret"].reset_index(drop=True),
                                   table.sort_values(["algo", "trial"])["final_regret"].reset_index(drop=True))


def test_a_batched_sweep_killed_mid_sweep_resumes_to_the_table_of_an_uninterrupted_one(tmp_path):
    args = [sys.executable, str(ROOT / "run.py"), "-m", "algo=custom", f"algo._target_={DUCB}",
            "+algo.gamma=0.99,0.995", "env=piecewise_bernoulli", "T=5000", "trials=100", "seed=1",
            "parallel.batch_s=0.5", "parallel.batch_cells=20"]  # ten batches or more: a kill lands mid-sweep
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    proc = subprocess.Popen([*args, f"results_dir={killed}", f"hydra.sweep.dir={killed}/hydra"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = killed / "runs" / "adhoc"
    deadline = time.time() + 240
    while time.time() < deadline and len(list(runs.glob("*.parquet")) if runs.exists() else []) < 2:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = sum(len(pd.read_parquet(p)) for p in runs.glob("*.parquet"))
    assert 0 < stored < 200  # killed mid-sweep, with finished cells on disk
    for folder in (killed, clean):
        done = subprocess.run([*args, f"results_dir={folder}", f"hydra.sweep.dir={folder}/hydra"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    a, b = (pd.read_parquet(f / "tables" / "adhoc.parquet") for f in (killed, clean))
    columns = [c for c in a.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(a[columns], b[columns])


def test_a_batched_policy_that_raises_is_named_with_its_method_and_round(tmp_path, capsys):
    (tmp_path / "breaks.py").write_text(
        "import numpy as np\n"
        "class Breaks:\n    batched = True\n"
        "    def reset(self, n_trials, n_arms, horizon, rng, info):\n        self.n_ = n_trials\n"
        "    def select(self, t):\n        return np.zeros(self.n_, dtype=int)\n"
        "    def update(self, t, arms, rewards):\n        if t == 9:\n"
        "            raise ValueError('my update is broken')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        code = cli.entry(["algo=custom", "algo._target_=breaks.Breaks", "env=piecewise_bernoulli", "T=50", "trials=3",
                          f"results_dir={tmp_path}"])
    finally:
        sys.path.remove(str(tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and "Breaks.update() raised ValueError: my update is broken (round 9)" in err
    assert "Traceback" not in err


def test_the_config_of_a_batched_example_composes():
    cfg = compose(COMMAND)
    assert cfg.algo._target_ == DUCB


@pytest.mark.parametrize("n", [1, 7, 300])
def test_the_batched_tie_rule_is_the_compiled_one_column_by_column(n):
    from bandits.numerics import argmax_lowest, argmax_lowest_columns

    rng = np.random.default_rng(0)
    for case in range(60):
        K = int(rng.integers(1, 8))
        values = (rng.choice([0.0, 0.5, 0.5 + 1e-13, 1.0, np.inf, -np.inf, np.nan, -3.0, -3.0 - 1e-13, 1e20],
                             size=(K, n)) if case % 2 else rng.random((K, n)))
        expected = [argmax_lowest(np.ascontiguousarray(values[:, i])) for i in range(n)]
        np.testing.assert_array_equal(argmax_lowest_columns(values), expected)
        if K > 1:  # a view whose rows are not contiguous gives the same arms
            np.testing.assert_array_equal(argmax_lowest_columns(np.repeat(values, 2, axis=1)[:, ::2]), expected)


def test_the_batched_tie_rule_names_a_wrong_shape():
    from bandits.numerics import argmax_lowest_columns

    with pytest.raises(ValueError, match="arms-by-trials array"):
        argmax_lowest_columns(np.zeros(5))


def test_numpy_sums_the_first_axis_row_after_row_as_the_kernels_add():
    """BatchedDiscountedUCB's n = N.sum(axis=0) relies on it: sequential, not pairwise."""
    N = np.random.default_rng(1).random((9, 500)) * np.logspace(-5, 5, 9)[:, None]
    sequential = N[0].copy()
    for row in N[1:]:
        sequential += row
    np.testing.assert_array_equal(N.sum(axis=0), sequential)
