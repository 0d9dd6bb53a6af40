"""``make bench`` case ``contextual_1e6``: one trial of every contextual algorithm of C1-C3 at
T = 1e6 (K = 5, d = 10, N = 500, the ``ctx_switch`` instance: S = 4, root seed 12), each in a
fresh process, with its peak memory.

The instance is drawn once (its seconds are a row of their own) and handed to each process as
a pickle; each process compiles its kernels on a 2,000-round instance first (not timed), then
plays the trial. ``wall_s`` is the trial's ``play``; ``peak_rss_mb`` the process's peak
resident memory (``ru_maxrss``: the instance, about 0.6 GB of it the (T, N) policy actions,
plus the algorithm's state). Target: every trial under 2 minutes and 2 GB.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HORIZON = 1_000_000
ALGOS = ("ada_iltcb_plus", "ada_iltcb_plus_theory", "ada_iltcb_plus_noreplay", "iltcb", "oracle_restart",
         "master_iltcb", "master_ctx", "epsilon_greedy", "vw_epsilon")
TARGET_WALL_S, TARGET_PEAK_MB = 120.0, 2000.0

ONE_TRIAL = """
import json, pickle, resource, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from omegaconf import OmegaConf
from bandits.environments import DriftingContextual
from bandits.experiments.compose.building import build
from bandits.experiments.compose.registry import compose
from bandits.simulation import learner_info

def make():
    cfg = compose(["algo={name}", "env=drifting_contextual"])
    return build(OmegaConf.to_container(cfg.algo, resolve=True), "algo")[1]

env = DriftingContextual(mode="switching", n_pieces=4)
small = env.instance(2000, np.random.default_rng(1))
make().play(env.rewards(small, np.random.default_rng(2)), learner_info(make(), small), np.random.default_rng(3))
with open({path!r}, "rb") as f:
    inst = pickle.load(f)
rewards = env.rewards(inst, np.random.default_rng(1))
algo = make()
info = learner_info(algo, inst)
start = time.perf_counter()
algo.play(rewards, info, np.random.default_rng(0))
wall = time.perf_counter() - start
calls = getattr(algo, "derived_", {{}}).get("oracle_calls")
print(json.dumps({{"wall_s": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "oracle_calls": calls}}))
"""


def contextual_1e6(horizon: int = HORIZON) -> list[dict]:
    from bandits.environments import DriftingContextual

    env = DriftingContextual(mode="switching", n_pieces=4)
    start = time.perf_counter()
    inst = env.instance(horizon, np.random.default_rng(12))
    build_s = time.perf_counter() - start
    rows = [{"case": "contextual instance T1e6_K5_N500 (drawn once: contexts, means, every policy's actions)",
             "rounds": horizon, "trials": 1, "wall_s": round(build_s, 1),
             "note": f"policy_actions {inst.info['policy_actions'].nbytes / 1e6:.0f} MB "
                     f"({inst.info['policy_actions'].dtype})"}]
    with tempfile.TemporaryDirectory(prefix="bench-ctx-") as tmp:
        path = str(Path(tmp) / "instance.pkl")
        with open(path, "wb") as f:
            pickle.dump(inst, f, protocol=5)
        del inst
        for name in ALGOS:
            code = ONE_TRIAL.format(root=str(ROOT), name=name, path=path)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
            if out.returncode != 0:
                rows.append({"case": f"{name}_trial_T1e6_K5_N500", "note": f"failed: {out.stderr.strip()[-300:]}"})
                continue
            got = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append({"case": f"{name}_trial_T1e6_K5_N500", "ns_per_round": round(got["wall_s"] / horizon * 1e9, 1),
                         "rounds": horizon, "trials": 1, "wall_s": round(got["wall_s"], 1),
                         "target_wall_s": TARGET_WALL_S, "peak_rss_mb": round(got["peak_rss_mb"]),
                         "oracle_calls": got["oracle_calls"],
                         "meets_target": got["wall_s"] <= TARGET_WALL_S and got["peak_rss_mb"] <= TARGET_PEAK_MB,
                         "note": f"target: under {TARGET_WALL_S:.0f} s and {TARGET_PEAK_MB:,.0f} MB"})
    return rows


if __name__ == "__main__":
    for row in contextual_1e6(int(float(sys.argv[1])) if len(sys.argv) > 1 else HORIZON):
        print(row)
