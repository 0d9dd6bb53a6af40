"""Speed benchmark behind ``make bench``: writes a new CSV under results/bench/ (or
``--out``; ``make bench UPDATE=1`` rewrites the committed results/bench.csv) and prints it.

Cases (T = 1e5): linear SW-UCB with d = 5, 40 fresh actions per round and
w = 2000; on K = 2 sinusoid rewards SW-UCB with w = 1000, EXP3.S (both readings)
and BOB. Each is timed on the compiled kernel alone (``play``: no reward
generation, no bookkeeping), median over trials. Compile time is measured
separately, in a fresh numba cache, and reported in ``compile_s``. For scale, the
same run times a plain-Python SW-UCB policy (the user-protocol loop, with
incremental window sums: the shape of a typical pure-Python library policy) and
reports ``speedup`` = Python / compiled, measured in this run. The last cases time
Figures 2 (a)+(b), 3+4 and 5 at full paper scale with n_jobs=2, end to end through
run.py. A pricing case times one auto-loan trial (T = 5e4, 51 prices, d = 16). Contextual
cases: one OP solve on 5e4 logged rounds (K = 5, N = 500; iterations, oracle calls,
seconds) and one ILTCB trial at T = 1e5 (seconds, oracle calls).

    python scripts/bench.py [--trials 5] [--skip-figures] [--out results/bench.csv]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="bench-numba-"))  # force a real compile

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bandits.algorithms import BanditOverBandit, EXP3S, SlidingWindowUCB, play  # noqa: E402
from bandits.environments import AutoLoan, PiecewiseLinear, Sinusoid  # noqa: E402


class PythonSWUCB:
    """SW-UCB (K arms, ridge) as a plain-Python protocol policy with O(1) window updates."""

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


CASES = {
    "sw_ucb_K2_w1000": (lambda: SlidingWindowUCB(window=1000), 60.0),
    "exp3s_K2_rexp3": (lambda: EXP3S(variant="rexp3"), 60.0),
    "exp3s_K2_auer": (lambda: EXP3S(variant="exp3s"), 60.0),
    "bob_K2": (lambda: BanditOverBandit(), 100.0),
}


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--T", type=int, default=100_000)
    ap.add_argument("--skip-figures", action="store_true")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "bench" / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.csv")
    args = ap.parse_args(argv)

    env = Sinusoid()
    inst = env.instance(args.T)
    trials = [env.rewards(inst, np.random.default_rng(i)) for i in range(args.trials)]
    tiny = env.rewards(env.instance(50), np.random.default_rng(0))
    rows = []
    # Linear SW-UCB: d = 5, 40 fresh unit-vector actions per round, w = 2000 (issue 3).
    lin_env = PiecewiseLinear(d=5, action_set="fresh", n_actions=40)
    lin = lin_env.instance(args.T, np.random.default_rng(0))
    lin_rewards = [lin_env.rewards(lin, np.random.default_rng(i)) for i in range(args.trials)]
    start = time.perf_counter()
    SlidingWindowUCB(window=2000).play(lin_rewards[0][:50], lin.info, None, features=lin.features[:50])
    compile_s = time.perf_counter() - start
    times = []
    for rewards in lin_rewards:
        start = time.perf_counter()
        SlidingWindowUCB(window=2000).play(rewards, lin.info, None, features=lin.features)
        times.append(time.perf_counter() - start)
    ns = float(np.median(times)) / args.T * 1e9
    rows.append({"case": "linear_sw_ucb_d5_K40_w2000", "ns_per_round": round(ns, 1), "rounds": args.T,
                 "trials": args.trials, "target_ns": 1500.0, "meets_target": ns <= 1500.0,
                 "compile_s": round(compile_s, 2)})
    for case, (make, target) in CASES.items():
        start = time.perf_counter()
        make().play(tiny, inst.info, np.random.default_rng(0))
        compile_s = time.perf_counter() - start
        times = []
        for i, rewards in enumerate(trials):
            algo = make()
            start = time.perf_counter()
            algo.play(rewards, inst.info, np.random.default_rng(i))
            times.append(time.perf_counter() - start)
        ns = float(np.median(times)) / args.T * 1e9
        rows.append({"case": case, "ns_per_round": round(ns, 1), "rounds": args.T, "trials": args.trials,
                     "target_ns": target, "meets_target": ns <= target, "compile_s": round(compile_s, 2)})

    # One pricing trial (issue 4): SW-UCB-obl on the auto-loan surrogate, T = 5e4, 51 prices, d = 16.
    loan = AutoLoan()
    loan.check_params(50_000)
    loan_inst = loan.instance(50_000)
    loan_rewards = loan.rewards(loan_inst, np.random.default_rng(0))
    algo = SlidingWindowUCB(window="obl")
    start = time.perf_counter()
    algo.play(loan_rewards, loan_inst.info, None, features=loan_inst.features)
    wall = time.perf_counter() - start
    rows.append({"case": "pricing_sw_ucb_obl_T5e4_K51_d16 (one trial)", "ns_per_round": round(wall / 50_000 * 1e9, 1),
                 "rounds": 50_000, "trials": 1, "wall_s": round(wall, 3)})

    # Contextual (issue 5): one OP solve on n = 5e4 logged rounds, K = 5, N = 500; one ILTCB trial.
    from bandits.contextual.iltcb import ILTCB, constants, nu_j
    from bandits.contextual.op_solver import solve_op
    from bandits.contextual.policy_class import FinitePolicyClass
    from bandits.environments import DriftingContextual

    ctx = DriftingContextual(n_pieces=1)
    ctx_inst = ctx.instance(args.T, np.random.default_rng(0))
    ctx_rewards = ctx.rewards(ctx_inst, np.random.default_rng(1))
    pclass = FinitePolicyClass(ctx_inst.info["policy_actions"], 5)
    logged = np.random.default_rng(2).integers(0, 5, args.T)
    weights = ctx_rewards[np.arange(args.T), logged] * 5.0  # uniform logging: p = 1/5
    c = constants(args.T, 5, 500, 0.05)
    nu = nu_j(6, 5, c["C0"], c["L"])
    for C, label in ((1.2e7, "theory C"), (1.2e7 * 1e-10, "practical C")):
        start = time.perf_counter()
        res = solve_op(pclass, np.arange(50_000), logged, weights, nu, C)
        wall = time.perf_counter() - start
        rows.append({"case": f"op_solve_n5e4_K5_N500 ({label}, nu={nu:.4f})", "rounds": 50_000, "trials": 1,
                     "wall_s": round(wall, 3), "target_wall_s": 5.0, "meets_target": wall <= 5.0,
                     "iterations": res.iterations, "oracle_calls": res.oracle_calls})
    for preset in ("practical", "theory"):
        algo = ILTCB(preset=preset)
        start = time.perf_counter()
        algo.play(ctx_rewards, ctx_inst.info, np.random.default_rng(3))
        wall = time.perf_counter() - start
        rows.append({"case": f"iltcb_trial_T1e5_K5_N500 ({preset})", "ns_per_round": round(wall / args.T * 1e9, 1),
                     "rounds": args.T, "trials": 1, "wall_s": round(wall, 2), "target_wall_s": 120.0,
                     "meets_target": wall <= 120.0, "oracle_calls": algo.derived_["oracle_calls"]})

    from bandits.contextual.ada_iltcb_plus import AdaILTCBPlus
    for preset in ("practical", "theory"):
        algo = AdaILTCBPlus(preset=preset)
        start = time.perf_counter()
        algo.play(ctx_rewards, ctx_inst.info, np.random.default_rng(3))
        wall = time.perf_counter() - start
        rows.append({"case": f"ada_iltcb_plus_trial_T1e5_K5_N500 ({preset})", "rounds": args.T, "trials": 1,
                     "ns_per_round": round(wall / args.T * 1e9, 1), "wall_s": round(wall, 2), "target_wall_s": 180.0,
                     "meets_target": wall <= 180.0, "oracle_calls": algo.derived_["oracle_calls"]})
    for T_small in (10_000, 30_000):  # oracle calls against T (the T = 1e5 rows are above)
        small = ctx.instance(T_small, np.random.default_rng(0))
        small_rewards = ctx.rewards(small, np.random.default_rng(1))
        for preset in ("practical", "theory"):
            for cls, label in ((ILTCB, "iltcb"), (AdaILTCBPlus, "ada_iltcb_plus")):
                algo = cls(preset=preset)
                algo.play(small_rewards, small.info, np.random.default_rng(3))
                rows.append({"case": f"{label}_oracle_calls_T{T_small} ({preset})", "rounds": T_small, "trials": 1,
                             "oracle_calls": algo.derived_["oracle_calls"]})

    # Issue 7: SW-UCB-GLB (d = 5, 20 actions, window w_obl) and SW-UCB-comb (top-4 of 20 items).
    from bandits.algorithms.glb import SlidingWindowGLB
    from bandits.algorithms.semibandit import SlidingWindowSemiBandit
    from bandits.environments import DriftingLogistic, DriftingSemiBandit

    for label, env_ext, make, target in (
            ("sw_ucb_glb_obl_d5_K20", DriftingLogistic(d=5, n_actions=20), lambda: SlidingWindowGLB("obl"), 2000.0),
            ("sw_ucb_comb_obl_d20_m4", DriftingSemiBandit(d=20, m=4), lambda: SlidingWindowSemiBandit("obl"), 1000.0)):
        inst_ext = env_ext.instance(args.T, np.random.default_rng(0))
        r_ext = env_ext.rewards(inst_ext, np.random.default_rng(1))
        start = time.perf_counter()
        make().play(r_ext[:100], inst_ext.info, None, features=inst_ext.features)
        compile_s = time.perf_counter() - start
        times = []
        for i in range(args.trials):
            start = time.perf_counter()
            make().play(r_ext, inst_ext.info, None, features=inst_ext.features)
            times.append(time.perf_counter() - start)
        ns = float(np.median(times)) / args.T * 1e9
        rows.append({"case": label, "ns_per_round": round(ns, 1), "rounds": args.T, "trials": args.trials,
                     "target_ns": target, "meets_target": ns <= target, "compile_s": round(compile_s, 2)})

    sw = SlidingWindowUCB(window=1000)
    beta = sw.resolve(args.T, inst.info)["beta"]
    n_py = min(args.T, 20_000)
    start = time.perf_counter()
    play(PythonSWUCB(1000, beta), trials[0][:n_py], inst.info, np.random.default_rng(0))
    py_ns = (time.perf_counter() - start) / n_py * 1e9
    compiled = rows[1]["ns_per_round"]
    rows.append({"case": "python_sw_ucb_K2_w1000 (reference)", "ns_per_round": round(py_ns, 1), "rounds": n_py,
                 "trials": 1, "speedup": round(py_ns / compiled, 1)})
    rows[1]["speedup"] = round(py_ns / compiled, 1)

    if not args.skip_figures:
        for experiments, target in ((("fig2a", "fig2b"), 180.0), (("fig3", "fig4"), 240.0), (("fig5",), 300.0)):
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                for exp in experiments:
                    subprocess.run([sys.executable, "run.py", f"+experiment={exp}", "n_jobs=2", f"results_dir={tmp}"],
                                   cwd=ROOT, check=True, capture_output=True)
                wall = time.perf_counter() - start
            rows.append({"case": f"{'+'.join(experiments)} full scale, n_jobs=2 (wall s)", "ns_per_round": None,
                         "rounds": None, "trials": 50, "target_ns": None, "wall_s": round(wall, 1),
                         "target_wall_s": target, "meets_target": wall <= target})
    table = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False, line_width=100))
    print(f"written: {args.out}")
    return table


if __name__ == "__main__":
    main()
