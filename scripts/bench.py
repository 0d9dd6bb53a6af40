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
                    "master_ucb": 1000.0}


def from_config(name: str):
    """A fresh algorithm built from its config, as a run builds it."""
    from omegaconf import OmegaConf

    from bandits.experiments.registry import compose
    from bandits.experiments.runner import build
    return build(OmegaConf.to_container(compose([f"algo={name}"]).algo, resolve=True), "algo")[1]


def karmed_baselines():
    """Every K-armed baseline on a piecewise-stationary Bernoulli problem, K = 5, 4 changes."""
    return [kernel_row(f"{name}_K5_bernoulli_4changes", lambda name=name: from_config(name), "piecewise_bernoulli",
                       target) for name, target in KARMED_BASELINES.items()]


# The later linear baselines (config names) and their targets in ns per round, d = 5, 40 fresh actions.
# OFUL (``ucb``), the base of RestartUCB and MASTER-OFUL, is timed in the same run for scale.
LINEAR_BASELINES = {"ucb": 1500.0, "d_linucb": 1500.0, "restart_linucb": 1500.0, "restart_linucb_bob": 1500.0,
                    "master_oful": 5000.0}


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


CASES = {
    "cli": cli_answers,
    "linear_sw_ucb": linear_sw_ucb,
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
}
COLUMNS = ["case", "ns_per_round", "rounds", "trials", "target_ns", "meets_target", "compile_s", "speedup", "wall_s",
           "target_wall_s", "iterations", "oracle_calls", "ratio"]


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-figures", action="store_true")
    ap.add_argument("--only", default="", help=f"comma-separated cases of {', '.join(CASES)}")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "bench" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.csv")
    args = ap.parse_args(argv)
    chosen = [c for c in args.only.split(",") if c] or [c for c in CASES if not (args.skip_figures and c == "figures")]
    unknown = sorted(set(chosen) - set(CASES))
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; the cases are {', '.join(CASES)}")
    table = pd.DataFrame([row for name in chosen for row in CASES[name]()], columns=COLUMNS)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False, line_width=100))
    print(f"written: {args.out}")
    return table


if __name__ == "__main__":
    main()
