"""``make bench`` cases of your own policy's three routes, against the compiled kernels, all
measured in one run (scripts/bench.py registers them):

* ``batched``: the batched numpy examples (bandits/examples/batched_policies.py) at 100 and
  1,000 trials per batch, in nanoseconds per trial and round of the policy's own time (the
  batch's rewards and its regret sums aside, as the compiled kernels' ``play`` time leaves
  them aside), next to the compiled ``d_ucb`` / ``sw_ucb_gm`` kernels on the same problem;
  ``ratio`` is batched over compiled. Targets: at most 2x at 1,000 trials, 5x at 100.
* ``per_trial``: the same D-UCB as a per-trial protocol policy (reset/select/update, plain
  Python) against the compiled kernel, and the protocol loop's own cost per round (a policy
  that does nothing).
* ``batched_run``: the batched route as you meet it: a real ``run.py`` command with the
  batched D-UCB example and the compiled ``d_ucb`` in one run (the same problem, trials and
  seeds), at 100 and 1,000 trials; each algorithm's wall time per trial and round is its
  cells' ``wall_time_s`` in the table over trials x T. ``ratio`` is batched over compiled, the
  median of :data:`RUNS` runs. Targets as for ``batched``.
* ``batched_memory``: a batch of 1,000 trials at T = 1e6, K = 5 (batched D-UCB) in a fresh
  process: its wall time and peak resident memory.
"""

from __future__ import annotations

import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
T_BATCHED = 20_000
K = 5
TARGETS = {100: 5.0, 1000: 2.0}  # batched / compiled, per trial and round


def problem(horizon: int):
    from bandits.environments import PiecewiseBernoulli

    env = PiecewiseBernoulli(K=K, n_changes=4)
    return env, env.instance(horizon, np.random.default_rng(0))


ROUNDS = 9  # compiled and batched timed in turn, this many times: each route's best turn


def compiled_timer(algo, env, inst, trials: int = 5):
    """A function that times the compiled kernel: the median ns per round over ``trials``
    trials (compiled first)."""
    from bandits.simulation import learner_info

    info = learner_info(algo, inst)
    rewards = [env.rewards(inst, np.random.default_rng(i + 1)) for i in range(trials)]
    algo.play(rewards[0][:50], info, np.random.default_rng(0))

    def ns():
        times = []
        for i, r in enumerate(rewards):
            start = time.perf_counter()
            algo.play(r, info, np.random.default_rng(i))
            times.append(time.perf_counter() - start)
        return float(np.median(times)) / inst.means.shape[0] * 1e9
    return ns


def compiled_ns(algo, env, inst, trials: int = 5) -> float:
    """The compiled kernel's median ns per round over ``trials`` trials."""
    return compiled_timer(algo, env, inst, trials)()


def batched_timer(algo, env, inst, n: int):
    """A function that times the batched policy: its own ns per trial and round on one batch
    of ``n`` trials."""
    from bandits.batched_trials import run_batched_cells

    run_batched_cells(algo, "warm", env, inst, 0, inst.means.shape[0], [0])  # imports and kernels loaded
    return lambda: run_batched_cells(algo, "bench", env, inst, 0, inst.means.shape[0],
                                     list(range(n)))[0]["wall_time_s"] / inst.means.shape[0] * 1e9


def batched():
    """Each pair timed in turn, ROUNDS times: the compiled kernel (median of 5 trials), then one
    batch of 100 and one of 1,000 trials. The speed of this shared machine drifts by a third
    within minutes, so each route's time is its best of the turns (as ``timeit`` reports), the
    ratio is best over best, and the note gives the median of the ratios taken within a turn."""
    from bandits.algorithms.discounted import DiscountedUCB
    from bandits.algorithms.sliding_window_gm import SlidingWindowUCBGM
    from bandits.examples.batched_policies import BatchedDiscountedUCB, BatchedSlidingWindowUCB

    env, inst = problem(T_BATCHED)
    rows = []
    pairs = (("d_ucb", DiscountedUCB(gamma=0.99, reward_range=[0, 1]),
              BatchedDiscountedUCB(gamma=0.99, reward_range=[0, 1])),
             ("sw_ucb_gm", SlidingWindowUCBGM(window=1000, reward_range=[0, 1]),
              BatchedSlidingWindowUCB(window=1000, reward_range=[0, 1])))
    for name, compiled, batch in pairs:
        kernel_timer = compiled_timer(compiled, env, inst)
        timers = {n: batched_timer(batch, env, inst, n) for n in TARGETS}
        kernels, batches = [], {n: [] for n in TARGETS}
        for _ in range(ROUNDS):
            kernels.append(kernel_timer())
            for n, timer in timers.items():
                batches[n].append(timer())
        best = min(kernels)
        rows.append({"case": f"{name}_compiled_K{K}", "ns_per_round": round(best, 1), "rounds": T_BATCHED,
                     "trials": 5})
        for n, target in TARGETS.items():
            ratio = min(batches[n]) / best
            within = float(np.median(np.array(batches[n]) / np.array(kernels)))
            rows.append({"case": f"{name}_batched_numpy_{n}_trials_K{K}", "ns_per_round": round(min(batches[n]), 1),
                         "rounds": T_BATCHED, "trials": n, "ratio": round(ratio, 2), "target_ratio": target,
                         "meets_target": ratio <= target,
                         "note": f"best of {ROUNDS} turns each; the median of the turns' own ratios: {within:.2f}"})
    return rows


RUNS = 5  # real runs per trial count: the median run's ratio
T_RUN = 5_000


def run_ratio(trials: int, folder: Path) -> tuple[float, float, float, float]:
    """One real run (``python run.py`` in a fresh results folder): (batched ns, compiled ns per
    trial and round, ratio, the run's wall seconds)."""
    import pandas as pd

    name = f"bench_batched_{trials}"
    args = [sys.executable, str(ROOT / "run.py"), "algos=[batched,d_ucb]",
            "algos.batched._target_=bandits.examples.batched_policies.BatchedDiscountedUCB",
            "+algos.batched.gamma=0.99", "algos.d_ucb.gamma=0.99", "env=piecewise_bernoulli", f"T={T_RUN}",
            f"trials={trials}", f"results_dir={folder}", f"experiment_name={name}"]
    start = time.perf_counter()
    subprocess.run(args, cwd=folder, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    table = pd.read_parquet(folder / "tables" / f"{name}.parquet")
    ns = table.groupby("algo")["wall_time_s"].sum() / (table.groupby("algo").size() * T_RUN) * 1e9
    return float(ns["batched"]), float(ns["d_ucb"]), float(ns["batched"] / ns["d_ucb"]), wall


class DoesNothingBatched:
    """A batched policy with no work of its own: what remains is the runner's loop per round."""

    batched = True
    problem_kinds = ("karmed",)

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self.arms_ = np.zeros(n_trials, dtype=np.int64)

    def select(self, t):
        return self.arms_

    def update(self, t, arms, rewards):
        pass


def loop_alone_ns(n: int = 100, repeats: int = 5) -> float:
    """The runner's loop alone (:class:`DoesNothingBatched`), ns per trial and round at ``n``
    trials: the best of ``repeats`` batches."""
    from bandits.batched_trials import run_batched_cells

    env, inst = problem(T_RUN)
    run_batched_cells(DoesNothingBatched(), "warm", env, inst, 0, T_RUN, [0])
    return min(run_batched_cells(DoesNothingBatched(), "loop", env, inst, 0, T_RUN, list(range(n)))[0]["wall_time_s"]
               for _ in range(repeats)) / T_RUN * 1e9


def batched_run():
    import tempfile

    rows = []
    for n, target in TARGETS.items():
        runs = []
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory() as folder:
                runs.append(run_ratio(n, Path(folder)))
        batched_ns, compiled_ns_, ratio, wall = sorted(runs, key=lambda r: r[2])[RUNS // 2]
        rows.append({"case": f"real run: batched D-UCB against compiled d_ucb, {n:,} trials (run.py, T={T_RUN:,})",
                     "ns_per_round": round(batched_ns, 1), "rounds": T_RUN, "trials": n, "wall_s": round(wall, 2),
                     "ratio": round(ratio, 2), "target_ratio": target, "meets_target": ratio <= target,
                     "note": f"compiled d_ucb in the same run: {compiled_ns_:.1f} ns per trial and round; the median "
                             f"of {RUNS} runs' ratios ({', '.join(f'{r[2]:.2f}' for r in runs)})"})
    rows.append({"case": "batched runner loop alone, 100 trials (a policy that does nothing)",
                 "ns_per_round": round(loop_alone_ns(), 1), "rounds": T_RUN, "trials": 100,
                 "note": "the floor a batched policy's own numpy calls add to; best of 5 batches"})
    return rows


class PerTrialDUCB:
    """D-UCB as a per-trial protocol policy in plain Python (lists, ``math``): the shape of a
    typical research policy written one trial at a time (the same rule as ``d_ucb``)."""

    def __init__(self, gamma=0.99, xi=0.6, B=1.0):
        self.gamma, self.xi, self.B = gamma, xi, B

    def reset(self, n_arms, horizon, rng, info):
        self.N, self.X = [0.0] * n_arms, [0.0] * n_arms

    def select(self, t):
        n = sum(self.N)
        log_n = math.log(n) if n > 0 else 0.0
        best, arm = -math.inf, 0
        for a, (N, X) in enumerate(zip(self.N, self.X, strict=True)):
            index = X / N + 2.0 * self.B * math.sqrt(self.xi * log_n / N) if N > 0 else math.inf
            if index > best:
                best, arm = index, a
        return arm

    def update(self, t, arm, reward):
        g = self.gamma
        self.N = [v * g for v in self.N]
        self.X = [v * g for v in self.X]
        self.N[arm] += 1.0
        self.X[arm] += reward


class DoesNothing:
    """A per-trial policy with no work of its own: what remains is the protocol loop's cost."""

    def reset(self, n_arms, horizon, rng, info):
        pass

    def select(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


def per_trial():
    from bandits.algorithms.discounted import DiscountedUCB
    from bandits.algorithms.protocol import play_policy

    env, inst = problem(T_BATCHED)
    kernel = compiled_ns(DiscountedUCB(gamma=0.99, reward_range=[0, 1]), env, inst)
    rewards = env.rewards(inst, np.random.default_rng(1))
    rows = []
    for case, policy in (("d_ucb_per_trial_python", PerTrialDUCB()), ("per_trial_protocol_loop_alone", DoesNothing())):
        start = time.perf_counter()
        play_policy(policy, rewards, inst.info, np.random.default_rng(0))
        ns = (time.perf_counter() - start) / T_BATCHED * 1e9
        rows.append({"case": case, "ns_per_round": round(ns, 1), "rounds": T_BATCHED, "trials": 1,
                     "ratio": round(ns / kernel, 1)})
    return rows


MEMORY_PROBE = """
import resource, time, numpy as np
from bandits.environments import PiecewiseBernoulli
from bandits.batched_trials import run_batched_cells
from bandits.examples.batched_policies import BatchedDiscountedUCB
env = PiecewiseBernoulli(K={K}, n_changes=4)
inst = env.instance({T}, np.random.default_rng(0))
start = time.perf_counter()
out = run_batched_cells(BatchedDiscountedUCB(gamma=0.999, reward_range=[0, 1]), "mem", env, inst, 0, {T},
                        list(range({n})))
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(out))
"""


def batched_memory(n: int = 1000, horizon: int = 1_000_000):
    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE.format(K=K, T=horizon, n=n)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    wall, peak, cells = out.stdout.split()
    means_mb = horizon * K * 8 / 2 ** 20
    return [{"case": f"batched_d_ucb_{n}_trials_T1e6_K{K} (peak memory)", "rounds": horizon, "trials": int(cells),
             "wall_s": round(float(wall), 1), "peak_rss_mb": round(float(peak)),
             "ns_per_round": round(float(wall) / (horizon * n) * 1e9, 1),
             "note": f"the instance's means alone: {means_mb:.0f} MB; a whole reward table per trial would be "
                     f"{n * means_mb / 1024:.0f} GB"}]


if __name__ == "__main__":
    for row in [*batched(), *per_trial()]:
        print(row)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
