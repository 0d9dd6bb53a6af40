"""Speed benchmark behind ``make bench``: writes a new CSV under results/bench/ (or
``--out``; ``make bench UPDATE=1`` rewrites the committed results/bench.csv) and prints it.

A table of cases (:data:`CASES`), one function each, every one returning its rows.
Kernels are timed on ``play`` alone (no reward generation, no bookkeeping), median
over trials, at T = 1e5; compile time is measured separately, in a fresh numba cache
(``compile_s``). Ratios are measured within one case, in one run: the compiled SW-UCB
against the same algorithm as a plain-Python protocol policy (``speedup``). The last
cases time Figures 2 (a)+(b), 3+4 and 5 at full paper scale and the K-armed benchmark
``ns_benchmark`` (about 20 minutes) with n_jobs=2, end to end through run.py
(``--skip-figures`` leaves them out).

    python scripts/bench.py [--trials 5] [--skip-figures] [--only sw_ucb,bob] [--out results/bench.csv]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from functools import cache
from pathlib import Path

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="bench-numba-"))  # force a real compile

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench_batched  # noqa: E402 -- your own policy's three routes (scripts/bench_batched.py)
import bench_contextual  # noqa: E402 -- every contextual algorithm at T = 1e6 (scripts/bench_contextual.py)

from bandits.algorithms import EXP3S, BanditOverBandit, SlidingWindowUCB, play  # noqa: E402
from bandits.algorithms.glb import SlidingWindowGLB  # noqa: E402
from bandits.algorithms.semibandit import SlidingWindowSemiBandit  # noqa: E402
from bandits.contextual.ada_iltcb_plus import AdaILTCBPlus  # noqa: E402
from bandits.contextual.iltcb import ILTCB, constants, nu_j  # noqa: E402
from bandits.contextual.op_solver import solve_op  # noqa: E402
from bandits.contextual.policy_class import FinitePolicyClass  # noqa: E402
from bandits.environments import (  # noqa: E402
    AutoLoan,
    DriftingContextual,
    DriftingLogistic,
    DriftingSemiBandit,
    PiecewiseBernoulli,
    PiecewiseLinear,
    Sinusoid,
)
from bandits.simulation import learner_info  # noqa: E402

T = 100_000
TRIALS = 5


class PythonSWUCB:
    """SW-UCB (K arms, ridge) as a plain-Python protocol policy with O(1) window updates:
    the shape of a typical pure-Python library policy."""

    def __init__(self, window, beta, lam=1.0):
        self.window, self.beta, self.lam = window, beta, lam

    def reset(self, n_arms, horizon, rng, info):
        self.counts, self.sums, self.buf = [0.0] * n_arms, [0.0] * n_arms, deque()

    def select(self, t):
        best, arm = -1e300, 0
        for a in range(len(self.counts)):
            denom = self.lam + self.counts[a]
            idx = self.sums[a] / denom + self.beta / denom ** 0.5
            if idx > best:
                best, arm = idx, a
        return arm

    def update(self, t, arm, reward):
        self.buf.append((arm, reward))
        self.counts[arm] += 1
        self.sums[arm] += reward
        if len(self.buf) > self.window:
            a, r = self.buf.popleft()
            self.counts[a] -= 1
            self.sums[a] -= r


# ----------------------------------------------------------------------------- problems, built once

@cache
def problem(name: str, horizon: int = T):
    """(instance, one reward table per trial) of a named benchmark problem."""
    env = {"sinusoid": lambda: Sinusoid(),
           "piecewise_bernoulli": lambda: PiecewiseBernoulli(K=5, n_changes=4, min_gap=0.1),
           "linear": lambda: PiecewiseLinear(d=5, action_set="fresh", n_actions=40),
           "pricing": lambda: AutoLoan(),
           "contextual": lambda: DriftingContextual(n_pieces=1),
           "glb": lambda: DriftingLogistic(d=5, n_actions=20),
           "semibandit": lambda: DriftingSemiBandit(d=20, m=4)}[name]()
    env.check_params(horizon)
    inst = env.instance(horizon, np.random.default_rng(0))
    return inst, [env.rewards(inst, np.random.default_rng(i + 1)) for i in range(TRIALS)]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def kernel_row(case: str, make, kind: str, target: float) -> dict:
    """Compile on 50 rounds (fresh cache), then the median over the trials of one full run."""
    inst, trials = problem(kind)
    info = learner_info(make(), inst)  # an oracle reference is told the change points, as in a run
    compile_s = timed(lambda: make().play(trials[0][:50], info, np.random.default_rng(0),
                                          features=None if inst.features is None else inst.features[:50]))
    algos = [make() for _ in trials]  # built outside the timed call (a config compose costs ~0.2 s)
    times = [timed(lambda r=r, i=i, a=a: a.play(r, info, np.random.default_rng(i), features=inst.features))
             for i, (r, a) in enumerate(zip(trials, algos, strict=True))]
    ns = float(np.median(times)) / T * 1e9
    return {"case": case, "ns_per_round": round(ns, 1), "rounds": T, "trials": len(trials), "target_ns": target,
            "meets_target": ns <= target, "compile_s": round(compile_s, 2)}


def one_trial_row(case: str, algo, kind: str, horizon: int, target_wall: float | None = None) -> dict:
    """One full trial, after compiling on 50 rounds (not timed)."""
    inst, trials = problem(kind, horizon)
    short = None if inst.features is None or inst.features.shape[0] == 1 else inst.features[:50]
    type(algo)(**vars(algo)).play(trials[0][:50], inst.info, np.random.default_rng(3),
                                  features=inst.features if short is None else short)
    wall = timed(lambda: algo.play(trials[0], inst.info, np.random.default_rng(3), features=inst.features))
    row = {"case": case, "ns_per_round": round(wall / horizon * 1e9, 1), "rounds": horizon, "trials": 1,
           "wall_s": round(wall, 3 if wall < 1 else 2)}
    if target_wall is not None:
        row.update(target_wall_s=target_wall, meets_target=wall <= target_wall)
    if "oracle_calls" in getattr(algo, "derived_", {}):
        row["oracle_calls"] = algo.derived_["oracle_calls"]
    return row


# ----------------------------------------------------------------------------- the cases

def linear_sw_ucb():
    return [kernel_row("linear_sw_ucb_d5_K40_w2000", lambda: SlidingWindowUCB(window=2000), "linear", 1500.0)]


def sw_ucb_against_python():
    """The compiled K-armed SW-UCB, and the same algorithm as a plain-Python policy on the
    same rewards: ``speedup`` is their ratio, measured here."""
    compiled = kernel_row("sw_ucb_K2_w1000", lambda: SlidingWindowUCB(window=1000), "sinusoid", 60.0)
    inst, trials = problem("sinusoid")
    beta = SlidingWindowUCB(window=1000).resolve(T, inst.info)["beta"]
    n = 20_000
    py_ns = timed(lambda: play(PythonSWUCB(1000, beta), trials[0][:n], inst.info, np.random.default_rng(0))) / n * 1e9
    speedup = round(py_ns / compiled["ns_per_round"], 1)
    return [{**compiled, "speedup": speedup},
            {"case": "python_sw_ucb_K2_w1000 (reference)", "ns_per_round": round(py_ns, 1), "rounds": n,
             "trials": 1, "speedup": speedup}]


def exp3s():
    return [kernel_row("exp3s_K2_rexp3", lambda: EXP3S(variant="rexp3"), "sinusoid", 60.0),
            kernel_row("exp3s_K2_auer", lambda: EXP3S(variant="exp3s"), "sinusoid", 60.0)]


def bob():
    return [kernel_row("bob_K2", lambda: BanditOverBandit(), "sinusoid", 100.0)]


def pricing():
    """One auto-loan trial: SW-UCB-obl, T = 5e4, 51 prices, d = 16."""
    return [one_trial_row("pricing_sw_ucb_obl_T5e4_K51_d16 (one trial)", SlidingWindowUCB(window="obl"), "pricing",
                          50_000)]


def op_solve():
    """One OP solve on n = 5e4 logged rounds (uniform logging), K = 5, N = 500."""
    inst, trials = problem("contextual")
    pclass = FinitePolicyClass(inst.info["policy_actions"], 5)
    logged = np.random.default_rng(2).integers(0, 5, T)
    weights = trials[0][np.arange(T), logged] * 5.0  # uniform logging: p = 1/5
    c = constants(T, 5, 500, 0.05)
    nu = nu_j(6, 5, c["C0"], c["L"])
    rows = []
    for C, label in ((1.2e7, "theory C"), (1.2e7 * 1e-10, "practical C")):
        start = time.perf_counter()
        res = solve_op(pclass, np.arange(50_000), logged, weights, nu, C)
        wall = time.perf_counter() - start
        rows.append({"case": f"op_solve_n5e4_K5_N500 ({label}, nu={nu:.4f})", "rounds": 50_000, "trials": 1,
                     "wall_s": round(wall, 3), "target_wall_s": 5.0, "meets_target": wall <= 5.0,
                     "iterations": res.iterations, "oracle_calls": res.oracle_calls})
    return rows


def contextual_trials():
    """One ILTCB and one Ada-ILTCB+ trial at T = 1e5 (K = 5, N = 500), each preset."""
    return [one_trial_row(f"{label}_trial_T1e5_K5_N500 ({preset})", cls(preset=preset), "contextual", T, target)
            for cls, label, target in ((ILTCB, "iltcb", 120.0), (AdaILTCBPlus, "ada_iltcb_plus", 180.0))
            for preset in ("practical", "theory")]


def oracle_calls():
    """Oracle calls against T (the T = 1e5 numbers are in the trial rows)."""
    rows = []
    for horizon in (10_000, 30_000):
        for preset in ("practical", "theory"):
            for cls, label in ((ILTCB, "iltcb"), (AdaILTCBPlus, "ada_iltcb_plus")):
                algo = cls(preset=preset)
                one_trial_row("", algo, "contextual", horizon)
                rows.append({"case": f"{label}_oracle_calls_T{horizon} ({preset})", "rounds": horizon, "trials": 1,
                             "oracle_calls": algo.derived_["oracle_calls"]})
    return rows


def glb_and_semibandit():
    return [kernel_row("sw_ucb_glb_obl_d5_K20", lambda: SlidingWindowGLB("obl"), "glb", 2000.0),
            kernel_row("sw_ucb_comb_obl_d20_m4", lambda: SlidingWindowSemiBandit("obl"), "semibandit", 1000.0)]


# The K-armed baselines of issue 14 (config names) and their targets in ns per round.
KARMED_BASELINES = {"ucb1": 100.0, "kl_ucb": 100.0, "thompson": 100.0, "d_ucb": 100.0, "sw_ucb_gm": 100.0,
                    "discounted_ts": 100.0, "sw_ts": 100.0, "cusum_ucb": 100.0, "m_ucb": 100.0,
                    "oracle_restart_ucb": 100.0, "glr_klucb": 2000.0, "glr_klucb_global": 2000.0,
                    "master_ucb": 1000.0, "ds_ts": 250.0,  # ds_ts: next to discounted_ts (K normal draws a round)
                    "sw_lb_sda": 150.0,  # sw_lb_sda: next to sw_ts (O(K) a round: leader, K duels by prefix sums)
                    "adswitch": 2000.0,  # AdSwitch, Remark 3's lengths: at most 2 us a round at K = 5, T = 1e5
                    "pht_ucb": 100.0}  # pht_ucb: next to cusum_ucb (the same kernel, the Page-Hinkley test)


def adswitch_literal(horizons=(1000, 2000, 4000, 8000)):
    """AdSwitch with every s (``adswitch_literal``) at small T only: its cost per round grows
    with the episode (O(K^2 t) for condition (1)); the note gives the exponent of T fitted over
    the horizons (2 would be a whole run growing as T^2)."""
    from bandits.environments import PiecewiseBernoulli
    env = PiecewiseBernoulli(K=5, n_changes=4)
    rows, walls = [], []
    for horizon in horizons:
        inst = env.instance(horizon, np.random.default_rng(0))
        rewards = env.rewards(inst, np.random.default_rng(1))
        info = learner_info(from_config("adswitch_literal"), inst)
        from_config("adswitch_literal").play(rewards[:50], info, np.random.default_rng(0))
        algo = from_config("adswitch_literal")  # built outside the timed call (a config compose costs ~0.2 s)
        wall = timed(lambda a=algo, r=rewards, i=info: a.play(r, i, np.random.default_rng(0)))
        walls.append(wall)
        rows.append({"case": f"adswitch_literal_K5_T{horizon}", "ns_per_round": round(wall / horizon * 1e9, 1),
                     "rounds": horizon, "trials": 1, "wall_s": round(wall, 3)})
    slope = float(np.polyfit(np.log(horizons), np.log(walls), 1)[0])
    for row in rows:
        row["note"] = f"every s: a whole run grows as T^{slope:.2f} over T = {horizons[0]}..{horizons[-1]}"
    return rows


def from_config(name: str):
    """A fresh algorithm built from its config, as a run builds it."""
    from omegaconf import OmegaConf

    from bandits.experiments.compose.building import build
    from bandits.experiments.compose.registry import compose
    return build(OmegaConf.to_container(compose([f"algo={name}"]).algo, resolve=True), "algo")[1]


def karmed_baselines():
    """Every K-armed baseline on a piecewise-stationary Bernoulli problem, K = 5, 4 changes."""
    return [kernel_row(f"{name}_K5_bernoulli_4changes", lambda name=name: from_config(name), "piecewise_bernoulli",
                       target) for name, target in KARMED_BASELINES.items()]


# The later linear baselines (config names) and their targets in ns per round, d = 5, 40 fresh actions.
# OFUL (``ucb``), the base of RestartUCB and MASTER-OFUL, is timed in the same run for scale.
LINEAR_BASELINES = {"ucb": 1500.0, "d_linucb": 1500.0, "restart_linucb": 1500.0, "restart_linucb_bob": 1500.0,
                    "master_oful": 5000.0, "d_randlinucb": 1500.0, "d_lints": 1500.0}


def modern_baselines():
    """D-LinUCB, RestartUCB (tuned with B_T and by BOB) and MASTER over OFUL on the Figure 4
    problem (d = 5, 40 fresh actions per round); one MASTER-over-epsilon-greedy trial at
    T = 1e5, K = 5, N = 500 (target 10 s)."""
    rows = [kernel_row(f"{name}_d5_K40", lambda name=name: from_config(name), "linear", target)
            for name, target in LINEAR_BASELINES.items()]
    rows.append(one_trial_row("master_ctx_trial_T1e5_K5_N500", from_config("master_ctx"), "contextual", T, 10.0))
    return rows


def full_scale_figures():
    """Figures 2 (a)+(b), 3+4 and 5 at full paper scale and the K-armed benchmark, end to end
through run.py."""
    rows = []
    # ns_benchmark: every K-armed baseline, 6 scenarios, T up to 1e6, 50 trials (about 20 minutes)
    for experiments, target in ((("fig2a", "fig2b"), 180.0), (("fig3", "fig4"), 240.0), (("fig5",), 300.0),
                                (("ns_benchmark",), 1200.0)):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            for exp in experiments:
                subprocess.run([sys.executable, "run.py", f"+experiment={exp}", "n_jobs=2", f"results_dir={tmp}"],
                               cwd=ROOT, check=True, capture_output=True)
            wall = time.perf_counter() - start
        rows.append({"case": f"{'+'.join(experiments)} full scale, n_jobs=2 (wall s)", "trials": 50,
                     "wall_s": round(wall, 1), "target_wall_s": target, "meets_target": wall <= target})
    return rows


def command_wall(args: list[str], repeats: int = 5) -> float:
    """Median wall time of a command run ``repeats`` times (after one untimed run that warms
    the operating system's file cache)."""
    subprocess.run(args, cwd=ROOT, capture_output=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, cwd=ROOT, capture_output=True)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


CLI_ANSWERS = {"--help": ["--help"], "a bad config name": ["algo=bobb"], "a bad key": ["algo.windw=3"],
               "a wrong pair": ["algo=ucb1", "env=drifting_contextual"]}
CLI_TARGET_S = 1.5


def cli_answers():
    """How fast the command line answers a typo, a wrong pair and --help (each refused before
    any work), as wall seconds and as a ratio to Python's own start (``python -c pass``)."""
    base = command_wall([sys.executable, "-c", "pass"])
    rows = [{"case": "cli python -c pass (start of Python)", "trials": 5, "wall_s": round(base, 3)}]
    for what, args in CLI_ANSWERS.items():
        wall = command_wall([sys.executable, "run.py", *args])
        rows.append({"case": f"cli answers {what} ({' '.join(args)})", "trials": 5, "wall_s": round(wall, 3),
                     "target_wall_s": CLI_TARGET_S, "meets_target": wall <= CLI_TARGET_S,
                     "ratio": round(wall / base, 1)})
    return rows


# ----------------------------------------------------------------------------- around the kernels

SWEEP_ARGS = ["algo=ucb1", "env=piecewise_bernoulli", "T=100", "seed=0"]  # a cheap algorithm at T = 100
BOOKKEEPING_CELLS = 10_000
BOOKKEEPING_TARGET_MS = 0.2


def sweep_in_process(cells: int, results: Path, *overrides: str) -> tuple[float, float, int]:
    """(wall seconds of plan + run + table, the kernels' seconds, shard files) of a sweep run
    in this process, after an untimed run that imports and compiles everything."""
    from bandits.experiments.compose.registry import compose
    from bandits.experiments.run.execution import execute
    from bandits.experiments.run.gathering import gather
    from bandits.experiments.run.planning import plan_config

    def one(n, where):
        cfg = compose([*SWEEP_ARGS, f"trials={n}", f"results_dir={where}", *overrides])
        start = time.perf_counter()
        plan = plan_config(cfg)
        execute([plan], plan.setup.backend, plan.setup.n_jobs, progress=False)
        gather(plan)
        return time.perf_counter() - start, plan.timing["kernel_s"]

    one(20, results / "warm")
    wall, kernel = one(cells, results / "timed")
    files = len(list((results / "timed" / "runs" / "adhoc").glob("*.parquet")))
    return wall, kernel, files


BOOKKEEPING_REPEATS = 3  # one sweep is a few seconds: its cost per cell moves by a fifth on this VM


def bookkeeping():
    """Per-cell cost around the kernels: a 10,000-cell sweep at T = 100 (UCB1, one process), wall
    time against the sum of its kernels' times, with batched shards (the default) and with one
    file per cell (the layout before shards: parallel.batch_cells=1, parallel.batch_s=0). The
    batched sweep is run BOOKKEEPING_REPEATS times and its median cost reported (with its ratio)."""
    rows = []
    for layout, overrides, repeats in (("batched shards", (), BOOKKEEPING_REPEATS),
                                       ("one file per cell", ("parallel.batch_cells=1", "parallel.batch_s=0"), 1)):
        runs = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as tmp:
                wall, kernel, files = sweep_in_process(BOOKKEEPING_CELLS, Path(tmp), *overrides)
            runs.append((1e3 * (wall - kernel) / BOOKKEEPING_CELLS, wall, kernel))
        per_cell, wall, kernel = sorted(runs)[len(runs) // 2]
        median = f", median of {repeats} runs" if repeats > 1 else ""
        rows.append({"case": f"bookkeeping {layout}, {BOOKKEEPING_CELLS:,} cells at T=100 (ms per cell beyond "
                             f"the kernels; ratio = wall / kernels{median})", "trials": BOOKKEEPING_CELLS,
                     "wall_s": round(wall, 2), "ratio": round(wall / kernel, 1), "ms_per_cell": round(per_cell, 3),
                     "target_ms_per_cell": BOOKKEEPING_TARGET_MS if layout == "batched shards" else None,
                     "meets_target": per_cell <= BOOKKEEPING_TARGET_MS if layout == "batched shards" else None,
                     "files": files})
    return rows


WORKER_PROBE = """
import sys, tempfile, time
from pathlib import Path
from bandits.experiments.run.execution import execute
from bandits.experiments.run.planning import plan_config
from bandits.experiments.compose.registry import compose
tmp = Path(tempfile.mkdtemp())
def once(name, n_jobs):
    plan = plan_config(compose([*{args!r}, "trials=2", f"n_jobs={{n_jobs}}", f"results_dir={{tmp / name}}"]))
    start = time.perf_counter()
    execute([plan], "loky", n_jobs, progress=False)
    return time.perf_counter() - start
once("warm", 1)
cold = once("cold", 2)   # the first batches on n_jobs=2: the workers start, import and load their kernels
warm = once("again", 2)  # the same on the workers already running
print(cold, warm)
"""
WORKER_TARGET_S = 2.0


def worker_start():
    """What starting n_jobs=2 workers costs: the first two-cell run on fresh workers against the
    same run on the workers once started (in a fresh interpreter, numba cache warm)."""
    probe = WORKER_PROBE.format(args=SWEEP_ARGS)
    subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, check=True)  # warm the caches
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    cold, warm = (float(x) for x in out.stdout.split())
    start = cold - warm
    return [{"case": "workers start, n_jobs=2 (s: first run on fresh workers minus the same on running ones)",
             "trials": 2, "wall_s": round(start, 2), "target_wall_s": WORKER_TARGET_S,
             "meets_target": start <= WORKER_TARGET_S}]


MILLION = 1_000_000
MILLION_ARGS = [*SWEEP_ARGS, f"trials={MILLION}", "n_jobs=2", "experiment_name=sweep_1e6"]
PEAK_PROBE = ("import resource, subprocess, sys; code = subprocess.run([sys.executable, *sys.argv[1:]]).returncode; "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


def peak_run(args: list[str], log: Path) -> tuple[float, float]:
    """(wall seconds, peak resident MB of the command or any process it waited for)."""
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.run([sys.executable, "-c", PEAK_PROBE, *args], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=out, text=True)
    *printed, peak = proc.stdout.splitlines() or [""]
    with open(log, "a") as out:   # the command's own output (its summary), then what it logged
        out.write("\n".join(printed) + "\n")
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed (exit {proc.returncode}):\n{log.read_text()[-3000:]}")
    return time.perf_counter() - start, int(peak) / 1024


def same_tables(a: Path, b: Path) -> bool:
    """Two tables equal in every column but the cells' wall times, compared a row group at a time."""
    import pyarrow.parquet as pq

    fa, fb = pq.ParquetFile(a), pq.ParquetFile(b)
    if fa.metadata.num_rows != fb.metadata.num_rows:
        return False
    cols = [c for c in fa.schema_arrow.names if c != "wall_time_s"]
    return all(x.equals(y) for x, y in zip(fa.iter_batches(100_000, columns=cols),
                                           fb.iter_batches(100_000, columns=cols), strict=True))


def stored_cells(folder: Path) -> int:
    import pyarrow.parquet as pq

    total = 0
    for p in folder.glob("*.parquet"):
        try:
            total += pq.ParquetFile(p).metadata.num_rows
        except Exception:  # noqa: BLE001 -- a file being renamed into place
            pass
    return total


def sweep_million():
    """A sweep of 10^6 cells (UCB1, T = 100, n_jobs=2): its wall time and peak memory, the files
    it leaves, a run killed with SIGKILL part-way and resumed (the same table as the run without
    the kill), the same sweep on a Dask LocalCluster (the same table again), and its figure and
    summary from the plot stage."""
    import signal

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        clean = tmp / "clean"
        wall, peak = peak_run(["run.py", *MILLION_ARGS, f"results_dir={clean}"], tmp / "clean.log")
        summary = [line for line in (tmp / "clean.log").read_text().splitlines() if line.startswith(" ucb1")]
        files = len(list((clean / "runs" / "sweep_1e6").glob("*.parquet")))
        table = clean / "tables" / "sweep_1e6.parquet"
        rows.append({"case": "sweep_1e6_cells (UCB1, T=100, n_jobs=2; wall, peak MB of any process, files)",
                     "trials": MILLION, "wall_s": round(wall, 1), "peak_rss_mb": round(peak),
                     "files": files, "cells": stored_cells(clean / "runs" / "sweep_1e6"),
                     "meets_target": files <= MILLION // 1000 and bool(summary)})

        killed = tmp / "killed"
        proc = subprocess.Popen([sys.executable, "run.py", *MILLION_ARGS, f"results_dir={killed}"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while proc.poll() is None and stored_cells(killed / "runs" / "sweep_1e6") < MILLION // 3:
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers
        proc.wait()
        before = stored_cells(killed / "runs" / "sweep_1e6")
        resume, _ = peak_run(["run.py", *MILLION_ARGS, f"results_dir={killed}"], tmp / "resume.log")
        rows.append({"case": f"sweep_1e6_cells killed with SIGKILL at {before:,} cells, resumed (wall of the "
                             "resume; meets_target = the same table as without the kill)", "trials": MILLION,
                     "wall_s": round(resume, 1), "cells": before,
                     "meets_target": same_tables(killed / "tables" / "sweep_1e6.parquet", table)})

        from dask.distributed import LocalCluster
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            dask_wall, dask_peak = peak_run(["run.py", *MILLION_ARGS, "parallel.backend=dask",
                                             f"parallel.address={cluster.scheduler_address}",
                                             f"results_dir={tmp / 'dask'}"], tmp / "dask.log")
        rows.append({"case": "sweep_1e6_cells on a Dask LocalCluster (2 workers; meets_target = the same table)",
                     "trials": MILLION, "wall_s": round(dask_wall, 1), "peak_rss_mb": round(dask_peak),
                     "files": len(list((tmp / "dask" / "runs" / "sweep_1e6").glob("*.parquet"))),
                     "meets_target": same_tables(tmp / "dask" / "tables" / "sweep_1e6.parquet", table)})

        plot_wall, plot_peak = peak_run(["-m", "bandits.experiments.figures", "--results", str(clean)],
                                        tmp / "plots.log")
        figure = clean / "figures" / "sweep_1e6.png"
        rows.append({"case": "sweep_1e6_cells plot stage (its figure from the 10^6-row table)", "trials": MILLION,
                     "wall_s": round(plot_wall, 1), "peak_rss_mb": round(plot_peak),
                     "meets_target": figure.exists()})
    return rows


CASES = {
    "cli": cli_answers,
    "bookkeeping": bookkeeping,
    "workers": worker_start,
    "linear_sw_ucb": linear_sw_ucb,
    "adswitch_literal": adswitch_literal,
    "sw_ucb": sw_ucb_against_python,
    "exp3s": exp3s,
    "bob": bob,
    "pricing": pricing,
    "op_solve": op_solve,
    "contextual_trials": contextual_trials,
    "oracle_calls": oracle_calls,
    "glb_and_semibandit": glb_and_semibandit,
    "karmed_baselines": karmed_baselines,
    "modern_baselines": modern_baselines,
    "figures": full_scale_figures,
    "sweep_1e6_cells": sweep_million,
    "batched": bench_batched.batched,
    "batched_run": bench_batched.batched_run,
    "per_trial": bench_batched.per_trial,
    "batched_memory": bench_batched.batched_memory,
    "contextual_1e6": bench_contextual.contextual_1e6,
}
SLOW = ("figures", "sweep_1e6_cells", "batched_memory", "contextual_1e6")  # left out by --skip-figures
COLUMNS = ["case", "ns_per_round", "rounds", "trials", "target_ns", "meets_target", "compile_s", "speedup", "wall_s",
           "target_wall_s", "iterations", "oracle_calls", "ratio", "target_ratio", "ms_per_cell", "target_ms_per_cell",
           "peak_rss_mb", "files", "cells", "note"]


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-figures", action="store_true")
    ap.add_argument("--only", default="", help=f"comma-separated cases of {', '.join(CASES)}")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "bench" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.csv")
    ap.add_argument("--merge", action="store_true",
                    help="keep the other rows of --out: the chosen cases' rows replace theirs (make bench UPDATE=1 "
                         "CASES=...)")
    args = ap.parse_args(argv)
    chosen = [c for c in args.only.split(",") if c] or [c for c in CASES if not (args.skip_figures and c in SLOW)]
    unknown = sorted(set(chosen) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; the cases are {', '.join(CASES)}")
    table = pd.DataFrame([row for name in chosen for row in CASES[name]()], columns=COLUMNS)
    if args.merge and args.out.exists():  # the other cases' rows as they were, in their order
        old = pd.read_csv(args.out)
        kept = old[~old["case"].isin(table["case"])]
        table = pd.concat([kept.reindex(columns=COLUMNS), table], ignore_index=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False, line_width=100))
    print(f"written: {args.out}")
    return table


if __name__ == "__main__":
    main()
