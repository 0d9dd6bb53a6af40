"""Cross-check of our K-armed non-stationary baselines against SMPyBandits 0.9.7 (issue 14).

NOT part of CI or ``make test``. The published numbers come from

    make crosscheck            # = python scripts/crosscheck_smpybandits.py --jobs 2

that is: the three scenarios of :data:`SCENARIOS` at T = 1e4 and abrupt_k5 at T = 1e5 for the
policies of :data:`FAST`, 20 trials (SMPyBandits' CUSUM-UCB and GLR-klUCB on the first 10
tables: ``--slow-trials``), root seed 0, SMPyBandits' ties broken like ours; and AdSwitch
(:data:`SMALL`) on the two-armed problems of :data:`SMALL_SCENARIOS` at T = 600 only
(``--small-T``): SMPyBandits' ``AdSwitchNew`` costs about t^4 (95 s for one trial at T = 1,000,
K = 5), while at K = 2, T = 600 a trial takes about 5 s and both sides evict an arm. About 20
minutes on 2 cores, nearly all of it SMPyBandits. Development runs:
``--T 2000 --trials 3 --large-T 0`` (about 30 s).

What it does
------------
1. Creates, if absent, its own virtual environment (``.crosscheck-venv/`` in the repo root,
   git-ignored, or ``--venv PATH``) with SMPyBandits 0.9.7 and the exact pins of
   :data:`PINS` (SMPyBandits needs scipy < 1.14; on Python 3.11 the rest of the set below
   is what the registry resolves and what was tested). The project's own install is not
   touched. numba is not installed there: SMPyBandits 0.9.7 imports ``numba.decorators``,
   which no numba that runs on Python 3.11 has, so it always runs as plain Python.
2. Generates each scenario's reward tables once with our ``piecewise_bernoulli``
   environment, seeded exactly as the runner seeds them (instance: stream(seed, 0, T);
   trial noise: stream(seed, 1, T, trial)), and saves them to
   ``results/crosscheck/tables/<scenario>_T<T>.npz`` (git-ignored).
3. Runs ours in this process through ``bandits.simulation.run_cell`` (the runner's cell:
   warm-up, one Generator per trial from stream(seed, 2, T, trial, crc32(name)), the time
   of ``play`` alone), and reads the constants each algorithm resolved (``derived_``).
4. Runs the matched SMPyBandits policies in the venv's Python (this same file with
   ``--worker``): ``startGame()``, then ``choice()`` / ``getReward(arm, reward)`` on exactly
   those tables, ``numpy.random.seed`` and ``random.seed`` set per trial (SMPyBandits draws
   from both), after a 200-round warm-up; the time is that of the choice/getReward loop.
5. Reports per (scenario, policy): mean final dynamic pseudo-regret (from the expected
   rewards) of both sides with standard errors, the z-score of the difference (unpaired:
   (m_ours - m_smpy) / sqrt(se_ours^2 + se_smpy^2); the paired one over common trials is in
   the CSV too), the fraction of rounds on which both chose the same arm (deterministic
   policies only), and the per-round times (median over trials) with their ratio. Writes
   ``results/crosscheck/smpybandits.csv`` and prints the table.

Tie rule. SMPyBandits' index policies break ties uniformly at random (``np.random.choice``
in ``IndexPolicy.choice``); ours take the lowest index. With ``--smpy-ties lowest`` (the
default) the worker replaces that one method by our rule (lowest index within 1e-12
relative), so that deterministic policies can agree round by round; it also makes
SMPyBandits a little faster than shipped (no ``np.random.choice`` per round), so the
speed ratios are conservative. ``--smpy-ties random`` runs it as shipped.

SMPyBandits bugs. Where SMPyBandits 0.9.7 has a plain bug (see :data:`SMPY_NOTES`), the
policy also runs as ``<class>+fix``: a subclass in the worker that changes only the faulty
line, so that the rest of the difference can be read. Every other difference is a reading,
listed in the ``notes`` column.

Running against work in progress: ``--project PATH`` imports ``bandits`` from another
checkout; ``--allow-stand-ins`` runs a stand-in config (``--ours d_ucb=ucb`` style, or
the defaults of :data:`STAND_INS`) for an algorithm whose config does not exist yet, with
SMPyBandits' constants from the papers' formulas (:func:`fallback`), flagged in the output.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import io
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# The venv: SMPyBandits 0.9.7 and every package pip resolved with scipy < 1.14 on Python 3.11
# (tested together). The first three are the requirements, the rest constraints.
REQUIREMENTS = ["SMPyBandits==0.9.7", "scipy==1.13.1", "numpy==2.2.6"]
PINS = REQUIREMENTS + [
    "cloudpickle==3.1.3", "contourpy==1.3.3", "cycler==0.12.1", "fonttools==4.68.0", "joblib==1.6.0",
    "kiwisolver==1.5.1", "matplotlib==3.11.2", "narwhals==2.29.0", "packaging==26.4", "pandas==3.1.1",
    "pillow==13.0.0", "pyaml==26.7.0", "pyparsing==3.3.3", "python-dateutil==4.0.0", "PyYAML==6.0.4",
    "scikit-learn==1.9.1", "scikit-optimize==0.10.2", "seaborn==0.13.2", "threadpoolctl==3.8.0",
    "tzdata==2026.6",
]

OUT_DIR = ROOT / "results" / "crosscheck"
SCRIPT_HASH = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]  # a stored SMPyBandits run is reused
# only if this file, its job and its tables are unchanged
WARMUP_ROUNDS = 200

# ----------------------------------------------------------------------------- scenarios
# piecewise_bernoulli configs (means given as rows, change points evenly spaced).
SCENARIOS = {
    # K = 5, 4 evenly spaced changes, each switching the best arm; every change moves two arms by >= 0.4
    # (so M-UCB's tuned forced exploration stays below one round in K at T = 1e4).
    "abrupt_k5": {"means": [[0.1, 0.2, 0.3, 0.4, 0.9],
                            [0.9, 0.2, 0.3, 0.4, 0.1],
                            [0.5, 0.2, 0.9, 0.4, 0.1],
                            [0.5, 0.8, 0.3, 0.4, 0.1],
                            [0.5, 0.4, 0.3, 0.4, 0.9]]},
    # K = 3, 4 changes, all in sub-optimal arm 1 (the best arm 0 never moves).
    "suboptimal_k3": {"means": [[0.8, 0.2, 0.5],
                                [0.8, 0.7, 0.5],
                                [0.8, 0.2, 0.5],
                                [0.8, 0.7, 0.5],
                                [0.8, 0.2, 0.5]]},
    # Stationary control: K = 5, no change (Upsilon_T = 0).
    "stationary_k5": {"means": [[0.1, 0.3, 0.5, 0.6, 0.7]]},
}
# The policies whose SMPyBandits side is affordable only at a small horizon, on two arms (the case
# Auer et al.'s AdSwitch paper explains; SMPyBandits warns that its K > 2 is its own
# generalisation): a gap of 0.8, so that condition (1) can evict the worse arm before T = 600 at
# C1 = 16.1 (about C1 ln T / gap^2 = 160 samples of it), and the same problem with the two arms
# swapped half-way.
SMALL_SCENARIOS = {
    "stationary_k2": {"means": [[0.9, 0.1]]},
    "abrupt_k2": {"means": [[0.9, 0.1], [0.1, 0.9]]},
}
SMALL = ("adswitch",)
SMALL_T = 600
# Our config on the small problems when --ours does not set one: C1 = 16.1, SMPyBandits' default,
# so that both evict (ours, 32 by default, evicts at T = 600 seldom; both values run in ns_sensitivity).
SMALL_OURS = {"adswitch": {"name": "adswitch", "C1": 16.1}}

# ----------------------------------------------------------------------------- policies
# ours (config name) -> SMPyBandits class (as the worker builds it) and whether the policy is
# randomised (on either side; agreement is reported for deterministic pairs only).
POLICIES = {
    "d_ucb": {"smpy": "DiscountedUCB", "randomised": False},
    "sw_ucb_gm": {"smpy": "SWUCB", "randomised": False},
    "discounted_ts": {"smpy": "DiscountedThompson", "randomised": True},
    "cusum_ucb": {"smpy": "CUSUM_IndexPolicy", "randomised": True},
    "pht_ucb": {"smpy": "PHT_IndexPolicy", "randomised": True},
    "m_ucb": {"smpy": "Monitored_IndexPolicy", "randomised": False},
    "glr_klucb": {"smpy": "BernoulliGLR_IndexPolicy_WithDeterministicExploration", "randomised": False},
    "adswitch": {"smpy": "AdSwitchNew", "randomised": True},
}
# Bug-fixed twins run by default (the cheaper ones); cusum_ucb's twin only on request (--fixes all).
FIXED = {"d_ucb": "DiscountedUCB+fix", "discounted_ts": "DiscountedThompson+fix", "m_ucb": "Monitored_IndexPolicy+fix",
         "cusum_ucb": "CUSUM_IndexPolicy+fix", "pht_ucb": "PHT_IndexPolicy+fix"}
DEFAULT_FIXES = ("d_ucb", "discounted_ts", "m_ucb", "pht_ucb")
STAND_INS = {"sw_ucb_gm": {"name": "sw_ucb"}, "d_ucb": {"name": "ucb"}, "discounted_ts": {"name": "ucb"},
             "cusum_ucb": {"name": "ucb"}, "pht_ucb": {"name": "ucb"}, "m_ucb": {"name": "ucb"},
             "glr_klucb": {"name": "ucb"}, "adswitch": {"name": "ucb"}}
FAST = ("d_ucb", "sw_ucb_gm", "discounted_ts", "m_ucb")  # affordable at T = 1e5 on the SMPyBandits side
# SMPyBandits' CUSUM-UCB and GLR-klUCB rescan every sample since the arm's restart in plain Python
# (0.5-7 ms per round at T = 1e4): they run on the first --slow-trials tables only.
SLOW = ("cusum_ucb", "pht_ucb", "glr_klucb")

SMPY_NOTES = {
    "DiscountedUCB": "SMPy bug: discounted_pulls is an int array, so N_gamma(i) is truncated (to 1 when gamma < 1) "
                     "at every pull (+fix: floats); reading: an arm's discounted sums decay only when it is pulled "
                     "(gamma^(1 + rounds since)), so an unpulled arm keeps a stale N_gamma(i) (smaller padding) and "
                     "n_gamma = sum of stale counts; padding sqrt(alpha log n / (2 N)) with alpha = 8 B^2 xi = G&M's",
    "SWUCB": "same reading as ours (window of the last tau rounds, log(min(t, tau)) with t = rounds played): "
             "expected to agree round by round",
    "DiscountedThompson": "SMPy bug: getReward discounts the chosen arm's posterior K-1 more times and never the "
                          "others' (+fix: discounts the other arms); numpy's global stream, so no round-by-round "
                          "comparison",
    "CUSUM_IndexPolicy": "SMPy bug: forced exploration draws randint(0, K-1), never arm K-1 (+fix: all K); "
                         "readings: the first M samples also enter g+/g- (Liu et al. and ours: from sample M+1), "
                         "the alarming sample is kept after a reset (ours: discarded), the statistic is recomputed "
                         "from all samples at every pull (O(n) per round)",
    "PHT_IndexPolicy": "ours is SMPyBandits' reading (the paper's text was not found); SMPy bug: forced exploration "
                       "draws randint(0, K-1), never arm K-1 (+fix: all K); run with a test at every sample and no "
                       "localisation, as ours; readings: alarm at >= h (ours: > h, its docstring's; they differ only "
                       "on exact equality), the alarming sample is kept after a reset (ours: discarded); the "
                       "statistic is recomputed from all samples at every pull (O(n) per round)",
    "Monitored_IndexPolicy": "SMPy bug: detect_change returns a tuple, truthy once an arm's window is full, so it "
                             "restarts whenever an arm has w samples since the restart (+fix: the test's boolean, "
                             "and tau = 0 on the clock that startGame resets); readings: UCB1 with log(rounds "
                             "completed since the restart) (ours: log(t - tau), 1-based t), the alarming sample "
                             "starts the new window; period ceil(K/gamma) matched to ours' floor(K/gamma) (when it "
                             "equals K SMPyBandits forces every round, ours leaves 1 round in K to UCB)",
    "BernoulliGLR_IndexPolicy_WithDeterministicExploration":
        "readings: kl-UCB level ln(rounds completed since the arm's restart) (ours: ln(t - tau_k), 1-based t) "
        "by bisection to 1e-4 (ours: Newton to convergence); splits whose first part has s = 1 mod Delta_s "
        "samples (ours: multiples of Delta_s); the forced-exploration phase restarts at the last restart (ours: the "
        "round clock t mod floor(K/alpha), period matched); the alarming sample is kept after a restart (ours: "
        "discarded); threshold ln(3 n^1.5 / delta) as ours' practical one",
    "AdSwitchNew": "run with our C1; readings (docs/baselines.md, AdSwitch's fidelity table): its tests run every "
                   "50 rounds on a grid of 20 (ours: every round, Remark 3's test lengths), the range "
                   "2^-i >= Delta~ of Algorithm 1 line 10 (ours: Delta~ / 16), the floor of an obligation's length "
                   "(ours: the text's ceil), arms evicted one at a time, 'least recently' counted within the "
                   "episode; randomised on both sides, so a comparison of distributions (z), not of rounds",
}


# ============================================================================= the worker
# Runs in the venv's Python: stdlib + numpy + SMPyBandits only (no project import).

def _lowest_index_choice(self):
    """Our tie rule in place of IndexPolicy.choice's uniform draw among maximisers."""
    self.computeAllIndex()
    index = self.index
    m = max(index)
    if m == math.inf:
        return int(np.flatnonzero(index == math.inf)[0])
    cut = m - 1e-12 * max(1.0, abs(m))
    return int(np.flatnonzero(index >= cut)[0])


def _smpy_classes():
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import SMPyBandits.Policies as P

    class DiscountedUCBFix(P.DiscountedUCB):
        """Only change: the discounted counts are floats (0.9.7 stores them in an int array)."""

        def __init__(self, nbArms, *args, **kwargs):
            super().__init__(nbArms, *args, **kwargs)
            self.discounted_pulls = np.zeros(nbArms)

    class DiscountedThompsonFix(P.DiscountedThompson):
        """Only change: the arms not chosen are discounted (0.9.7 discounts the chosen one again)."""

        def getReward(self, arm, reward):
            self.posterior[arm].update((reward - self.lower) / self.amplitude)
            for other in range(self.nbArms):
                if other != arm:
                    self.posterior[other].discount()
            self.t += 1

    class CUSUMFix(P.CUSUM_IndexPolicy):
        """Only change: forced exploration draws among all K arms (0.9.7: randint(0, K-1))."""

        def choice(self):
            if random.random() < self.proba_random_exploration:  # SMPyBandits' with_proba
                return np.random.randint(0, self.nbArms)
            return self.policy.choice()

    class PHTFix(P.PHT_IndexPolicy):
        """Only change: forced exploration draws among all K arms (0.9.7: randint(0, K-1))."""

        def choice(self):
            if random.random() < self.proba_random_exploration:  # SMPyBandits' with_proba
                return np.random.randint(0, self.nbArms)
            return self.policy.choice()

    class MonitoredFix(P.Monitored_IndexPolicy):
        """Only changes: the test's boolean decides (0.9.7 tests a non-empty tuple, always
        true), and the restart time tau is 0 on the restarted clock (startGame resets t)."""

        def detect_change(self, arm):
            out = super().detect_change(arm)
            return out[0] if isinstance(out, tuple) else out

        def getReward(self, arm, reward):
            super().getReward(arm, reward)
            if self.t == 0:  # restarted in this call
                self.last_update_time_tau = 0

    return P, {"DiscountedUCB+fix": DiscountedUCBFix, "DiscountedThompson+fix": DiscountedThompsonFix,
               "CUSUM_IndexPolicy+fix": CUSUMFix, "PHT_IndexPolicy+fix": PHTFix,
               "Monitored_IndexPolicy+fix": MonitoredFix}


def _inner(P, name, value):
    """The wrapped index policy. SMPyBandits' wrappers cannot pass keyword arguments on to
    it, so a constant is bound in a subclass: UCBalpha's alpha, klUCB_forGLR's c."""
    if value is None:
        return getattr(P, name)
    base, key = {"UCBalpha": (P.UCBalpha, "alpha"), "klUCB_forGLR": (P.klUCB_forGLR, "c")}[name]

    class Bound(base):
        def __init__(self, nbArms, **kwargs):
            super().__init__(nbArms, **{key: value}, **kwargs)

    Bound.__name__ = f"{name}({key}={value:g})"
    return Bound


def build_smpy(P, fixes, job):
    """The SMPyBandits policy of a job: class, keyword arguments, attributes set after."""
    cls_name, K = job["smpy"], job["K"]
    kwargs = dict(job["kwargs"])
    if "policy" in kwargs:
        kwargs["policy"] = _inner(P, kwargs["policy"], kwargs.pop("policy_constant", None))
    cls = fixes.get(cls_name) or getattr(P, cls_name)
    with contextlib.redirect_stdout(io.StringIO()):
        policy = cls(K, **kwargs)
    for key, value in job.get("attrs", {}).items():
        setattr(policy, key, math.inf if value == "inf" else value)
    return policy


def count_restarts(P, policy, counts, i):
    """Count the restarts a change-detecting policy makes, as its getReward decides them:
    M-UCB restarts when detect_change's value is truthy (a tuple in 0.9.7), CD-UCB policies
    when its first element is true, AdSwitchNew at each new episode. (The wrapper costs ~0.1 us
    per pull.)"""
    if hasattr(policy, "new_episode"):  # AdSwitchNew: each new episode after startGame is a restart
        counts[i] = 0
        start = policy.new_episode

        def episode(*args, **kwargs):
            counts[i] += 1
            return start(*args, **kwargs)

        policy.new_episode = episode
        return
    if not hasattr(policy, "detect_change"):
        return
    counts[i] = 0
    test = policy.detect_change
    truthy = isinstance(policy, P.Monitored_IndexPolicy)

    def counted(arm, *args, **kwargs):
        out = test(arm, *args, **kwargs)
        if (bool(out) if truthy else (out[0] if isinstance(out, tuple) else bool(out))):
            counts[i] += 1
        return out

    policy.detect_change = counted


def worker(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    P, fixes = _smpy_classes()
    if spec["ties"] == "lowest":  # every index policy inherits this one method
        importlib.import_module("SMPyBandits.Policies.IndexPolicy").IndexPolicy.choice = _lowest_index_choice
    for job in spec["jobs"]:
        out = Path(job["out"])
        if out.exists():
            continue
        data = np.load(job["tables"])
        rewards = data["rewards"]
        T = rewards.shape[1]
        actions = np.empty((len(job["seeds"]), T), dtype=np.int8)
        restarts = np.full(len(job["seeds"]), np.nan)  # stays NaN for a policy without a detector
        seconds = []
        started = time.perf_counter()
        for i, seed in enumerate(job["seeds"]):
            table = rewards[i].tolist()  # python floats: what a user's loop would hand over
            if i == 0:  # warm-up on the first rounds (imports, caches), not timed
                np.random.seed(seed)
                random.seed(seed)
                policy = build_smpy(P, fixes, job)
                policy.startGame()
                for t in range(min(WARMUP_ROUNDS, T)):
                    arm = int(policy.choice())
                    policy.getReward(arm, table[t][arm])
            np.random.seed(seed)
            random.seed(seed)
            policy = build_smpy(P, fixes, job)
            policy.startGame()
            count_restarts(P, policy, restarts, i)
            acts = actions[i]
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                for t in range(T):
                    arm = int(policy.choice())
                    acts[t] = arm
                    policy.getReward(arm, table[t][arm])
            seconds.append(time.perf_counter() - start)
        tmp = out.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, actions=actions, seconds=np.asarray(seconds), restarts=restarts,
                            label=str(policy).encode())
        os.replace(tmp, out)
        print(f"  smpy {job['key']}: {len(job['seeds'])} trials in {time.perf_counter() - started:.1f} s "
              f"({np.median(seconds) / T * 1e6:.1f} us/round)", file=sys.stderr, flush=True)


# ============================================================================= the venv

def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(venv: Path) -> Path:
    """The venv's interpreter, creating the venv and installing the pins if needed."""
    py = venv_python(venv)
    stamp = venv / "crosscheck-pins.txt"
    want = "\n".join(PINS) + "\n"
    if py.exists() and stamp.exists() and stamp.read_text() == want:
        return py
    if not py.exists():
        print(f"creating {venv} (SMPyBandits 0.9.7 and its pins; the project's install is not touched)")
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
    constraints = venv / "crosscheck-constraints.txt"
    constraints.write_text(want)
    subprocess.run([str(py), "-m", "pip", "install", "-q", *REQUIREMENTS, "-c", str(constraints)], check=True)
    stamp.write_text(want)
    return py


# ============================================================================= our side

def import_project(project: Path | None):
    if project is not None:
        sys.path.insert(0, str(project.resolve()))
    else:
        sys.path.insert(0, str(ROOT))
    import bandits
    return Path(bandits.__file__).resolve().parent.parent


def make_env(name: str):
    from bandits.experiments.compose import registry
    from bandits.experiments.compose.building import build

    cfg = {**registry.group_config("env", "piecewise_bernoulli"), **{**SCENARIOS, **SMALL_SCENARIOS}[name]}
    return build(cfg, "env")[1], cfg


def tables(name: str, T: int, trials: int, seed: int, folder: Path, regenerate: bool):
    """The scenario's instance and reward tables (trials, T, K), generated once per (T, seed, trials)."""
    from bandits.simulation import stream, trial_rewards

    env, cfg = make_env(name)
    env.check_params(T)
    instance = env.instance(T, stream(seed, 0, T))
    path = folder / f"{name}_T{T}.npz"
    tag = hashlib.sha256(json.dumps([cfg, T, trials, seed], sort_keys=True).encode()).hexdigest()[:16]
    if path.exists() and not regenerate:
        data = np.load(path)
        if str(data["tag"]) == tag and np.array_equal(data["means"], instance.means):
            return instance, data["rewards"], path, tag
    rewards = np.stack([trial_rewards(env, instance, seed, T, trial) for trial in range(trials)])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, rewards=rewards, means=instance.means, tag=np.array(tag),
                        change_points=np.asarray(instance.evaluation.get("change_points", []), dtype=np.int64))
    os.replace(tmp, path)
    return instance, rewards, path, tag


def restart_count(derived: dict) -> float:
    """The restarts our algorithm recorded in a trial (``n_restarts``; AdSwitch: ``restarts``, its new
    episodes), NaN for one without restarts."""
    count = derived.get("n_restarts", derived.get("restarts"))
    return float(count) if isinstance(count, (int, float)) else float("nan")


def our_algorithm(name: str, spec: dict | None, allow_stand_ins: bool):
    """(object, config used, stand-in?) for our config ``name`` (or the override ``spec``)."""
    from bandits.experiments.compose import registry
    from bandits.experiments.compose.building import algorithm

    stand_in = False
    if spec is None:
        if name in registry.names("algo"):
            spec = {"name": name}
        elif allow_stand_ins:
            spec, stand_in = dict(STAND_INS[name]), True
        else:
            raise SystemExit(f"no algo config named {name!r} in this checkout; run from a checkout that has it "
                             "(--project PATH), give --ours NAME=CONFIG, or --allow-stand-ins.")
    else:
        stand_in = spec.get("name") != name
    cfg = {**registry.group_config("algo", spec["name"]), **{k: v for k, v in spec.items() if k != "name"}}
    _, obj, cfg = algorithm(cfg, name)
    return obj, cfg, stand_in


def run_ours(obj, name, instance, rewards, seed, T):
    from bandits.simulation import check_needs, run_cell

    check_needs(obj, name, instance, "piecewise_bernoulli")
    cells = [run_cell(obj, name, instance, rewards[trial], seed, T, trial, save_actions=True)
             for trial in range(rewards.shape[0])]
    actions = np.asarray([c["actions"] for c in cells], dtype=np.int64)
    derived = [c["derived"] or {} for c in cells]
    seconds = np.asarray([c["wall_time_s"] for c in cells])
    return actions, seconds, derived, [c["final_regret"] for c in cells]


# ============================================================================= matching

def _get(derived: dict, *names, default=None):
    for n in names:
        if n in derived and derived[n] is not None:
            return derived[n]
    return default


def fallback(policy: str, T: int, info: dict) -> dict:
    """The papers' constants, under our algorithms' ``derived_`` names, used on the SMPyBandits
    side only where our algorithm does not record them (stand-ins): Garivier & Moulines 2011
    (gamma = 1 - sqrt(Y/T)/4, tau = 2 sqrt(T log T / Y), B = 1, xi = 0.6; the same gamma for
    discounted Thompson sampling), Liu et al. 2018 (h = log(T/Y), alpha = sqrt(Y/T log(T/Y)),
    eps = min_change/2, M = 100, UCB1), Cao et al. 2019 (w, b, gamma with delta = min_change),
    Besson et al. 2022 (delta = 1/sqrt(T), alpha = sqrt(K Y log T / T), Delta_n = Delta_s = 10,
    local restarts). Y = max(1, Upsilon_T)."""
    Y = max(1, int(info.get("Upsilon_T", 1)))
    K = int(info["d"])
    dmin = float(info.get("min_change") or 0.1)
    if policy in ("d_ucb", "discounted_ts"):
        return {"gamma": 1 - 0.25 * math.sqrt(Y / T), "B": 1.0, "xi": 0.6}
    if policy == "sw_ucb_gm":
        return {"window": min(T, int(2 * math.sqrt(T * math.log(T) / Y))), "B": 1.0, "xi": 0.6}
    if policy in ("cusum_ucb", "pht_ucb"):
        return {"h": math.log(T / Y), "alpha": math.sqrt(Y / T * math.log(T / Y)), "epsilon": dmin / 2, "M": 100,
                "xi": 2.0}
    if policy == "m_ucb":
        w = (4 / dmin ** 2) * (math.sqrt(math.log(2 * K * T ** 2)) + math.sqrt(math.log(2 * T))) ** 2
        w = 2 * math.ceil(w / 2)
        b = math.sqrt(w / 2 * math.log(2 * K * T ** 2))
        return {"window": w, "b": b, "gamma": min(1.0, math.sqrt(Y * K * (2 * b + 3 * math.sqrt(w)) / (2 * T)))}
    if policy == "glr_klucb":
        return {"delta": 1 / math.sqrt(T), "alpha0": min(1.0, math.sqrt(K * Y * math.log(T) / T)),
                "check_every": 10, "split_every": 10, "restart": "local"}
    if policy == "adswitch":
        return {"C1": 16.1}
    raise KeyError(policy)


def period_rate(K: int, period: int) -> float:
    """SMPyBandits' forced-exploration rate whose period ceil(K / rate) is ``period`` (ours:
    floor(K / rate), Cao et al. 2019 and Besson et al. 2022); 0 = no forced exploration."""
    return 0.0 if period <= 0 else K / (period - 0.5)


def smpy_job(policy: str, K: int, T: int, info: dict, derived: dict, stand_in: bool):
    """(class, kwargs, attrs, our constants used, their source, notes) of the SMPyBandits
    policy matched to ours. Attributes are set after construction where the constructor
    cannot take our value (it recomputes or replaces it)."""
    fb = fallback(policy, T, info)
    d = {} if stand_in else derived
    used, missing, notes = {}, [], []

    def val(key, *names):
        for n in names:
            if n in d:
                used[key] = d[n]
                return d[n]
        missing.append(key)
        used[key] = fb[key]
        return fb[key]

    cls = POLICIES[policy]["smpy"]
    attrs = {}
    if policy == "d_ucb":
        gamma, B, xi = val("gamma", "gamma"), val("B", "B"), val("xi", "xi")
        # G&M's 2 B sqrt(xi log n / N) = SMPyBandits' sqrt(alpha log n / (2 N)) with alpha = 8 B^2 xi
        kwargs = {"gamma": gamma, "alpha": 8 * B * B * xi, "useRealDiscount": True}
    elif policy == "sw_ucb_gm":
        tau, B, xi = val("window", "window"), val("B", "B"), val("xi", "xi")
        kwargs = {"tau": int(tau), "alpha": B * B * xi}  # B sqrt(xi L / N) = sqrt(alpha L / N)
    elif policy == "discounted_ts":
        kwargs = {"gamma": val("gamma", "gamma")}
        prior = d.get("prior", [1.0, 1.0])
        if list(prior) != [1.0, 1.0]:
            notes.append(f"ours has prior Beta{tuple(prior)}, SMPyBandits Beta(1, 1)")
    elif policy in ("cusum_ucb", "pht_ucb"):
        h, alpha = val("h", "h"), val("alpha", "alpha")
        eps, xi = val("epsilon", "epsilon"), val("xi", "xi")
        M = val("M", "M") if policy == "cusum_ucb" else 100  # PHT has no M (SMPyBandits' default, unused)
        detect = h is not None and math.isfinite(h)
        kwargs = {"horizon": T, "max_nb_random_events": max(1, int(info.get("Upsilon_T", 1))),
                  "policy": "UCB" if xi == 2 else "UCBalpha", "epsilon": eps,
                  "min_number_of_observation_between_change_point": int(M),
                  "lazy_detect_change_only_x_steps": 1 if detect else T + 1,
                  "use_localization": False, "per_arm_restart": True}
        if xi != 2:
            kwargs["policy_constant"] = 2.0 * xi  # UCBalpha: sqrt(alpha log n / (2 N)) = sqrt(xi log n / N)
        attrs = {"threshold_h": float(h) if detect else "inf", "proba_random_exploration": float(alpha)}
        if not detect:
            notes.append("detector off in ours (h = inf): SMPyBandits' test is not run (test step > T)")
    elif policy == "m_ucb":
        w, b, gamma = val("window", "window"), val("b", "b"), val("gamma", "gamma")
        detect = d.get("detection", w is not None and w <= T) and w is not None
        period = d.get("period", math.floor(K / gamma) if gamma > 0 else 0)
        kwargs = {"horizon": T, "policy": "UCB", "w": int(w) if detect else 2 * (T // 2 + 1),
                  "b": float(b) if b is not None else 1e300, "gamma": 0.5,
                  "per_arm_restart": False, "full_restart_when_refresh": True}
        attrs = {"gamma": period_rate(K, int(period))}  # the constructor replaces gamma = 0
        if not detect:
            notes.append(f"detector off in ours (w = {w} > T or unset): SMPyBandits' window set above T")
    elif policy == "glr_klucb":
        delta, restart = val("delta", "delta"), val("restart", "restart")
        dn, ds = val("check_every", "check_every"), val("split_every", "split_every")
        alpha0, grows = val("alpha0", "alpha0"), d.get("alpha_grows", False)
        threshold, c = d.get("threshold", "practical"), d.get("c", 0.0)
        if threshold == "experiments":
            delta *= 3.0  # ln(n^1.5 / delta) = ln(3 n^1.5 / (3 delta))
        elif threshold != "practical":
            notes.append(f"ours uses the {threshold} threshold; SMPyBandits runs ln(3 n^1.5 / delta)")
        if d.get("check_on", "samples") != "samples":
            notes.append("ours counts Delta_n in rounds since the restart; SMPyBandits in the arm's samples")
        period = int(math.floor(K / min(alpha0, 1.0))) if alpha0 > 0 else 0
        kwargs = {"horizon": T, "policy": "klUCB_forGLR", "policy_constant": 1.0, "delta": float(delta),
                  "alpha0": period_rate(K, period), "per_arm_restart": restart == "local",
                  "lazy_detect_change_only_x_steps": int(dn), "lazy_try_value_s_only_x_steps": int(ds),
                  "use_localization": False}
        if grows:
            notes.append("ours grows alpha_k = alpha0 sqrt(k) with the episode (agnostic tuning); SMPyBandits "
                         "cannot: it runs the constant alpha0")
        if c != 0:
            notes.append(f"ours explores with ln u + {c:g} ln ln u; SMPyBandits with ln u (c = 1 x ln)")
    elif policy == "adswitch":
        kwargs = {"horizon": T, "C1": float(val("C1", "C1"))}
        if d.get("tests", "remark3") != "remark3":
            notes.append(f"ours runs the {d['tests']} tests")
    else:
        raise KeyError(policy)
    source = "derived_" if not missing else ("papers (stand-in)" if stand_in else f"papers for {','.join(missing)}")
    return cls, kwargs, attrs, used, source, notes


# ============================================================================= report

def regrets(means: np.ndarray, actions: np.ndarray) -> np.ndarray:
    best = means.max(axis=1)
    rounds = np.arange(means.shape[0])
    return np.asarray([(best - means[rounds, a]).sum() for a in actions])


def mean_se(x: np.ndarray):
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")


def fmt_table(rows: list) -> str:
    cols = [("scenario", "{}"), ("T", "{}"), ("policy", "{}"), ("smpy", "{}"), ("ours_regret", "{:.1f}"),
            ("ours_se", "{:.1f}"), ("smpy_regret", "{:.1f}"), ("smpy_se", "{:.1f}"), ("z", "{:+.2f}"),
            ("agreement", "{:.3f}"), ("ours_restarts", "{:.1f}"), ("smpy_restarts", "{:.1f}"),
            ("ours_ns_round", "{:.0f}"), ("smpy_us_round", "{:.1f}"), ("ratio", "{:.0f}")]
    cells = [[c for c, _ in cols]]
    for r in rows:
        cells.append([("-" if isinstance(r[c], float) and math.isnan(r[c]) else f.format(r[c])) for c, f in cols])
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    return "\n".join("  ".join(v.rjust(w) if i > 3 else v.ljust(w)
                               for i, (v, w) in enumerate(zip(row, widths, strict=True))) for row in cells)


# ============================================================================= main

def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--T", type=int, default=10_000, help="horizon of every scenario (default 1e4)")
    p.add_argument("--large-T", type=int, default=100_000, help="one larger case, 0 to skip (default 1e5)")
    p.add_argument("--large-scenario", default="abrupt_k5")
    p.add_argument("--large-policies", default=",".join(FAST), help="policies of the large case")
    p.add_argument("--small-T", type=int, default=SMALL_T,
                   help=f"horizon of {', '.join(SMALL)} on {', '.join(SMALL_SCENARIOS)} (0 to skip; default {SMALL_T})")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--slow-trials", type=int, default=10,
                   help=f"trials of SMPyBandits' {' and '.join(SLOW)} (the first tables; default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenarios", default=",".join(SCENARIOS))
    p.add_argument("--policies", default=",".join(POLICIES))
    p.add_argument("--fixes", default=",".join(DEFAULT_FIXES),
                   help="policies whose bug-fixed SMPyBandits twin also runs: names, 'all' or 'none'")
    p.add_argument("--ours", action="append", default=[], metavar="NAME=CONFIG[,key=value...]",
                   help="run config CONFIG (with overrides) as our NAME, e.g. d_ucb=ucb or sw_ucb_gm=sw_ucb,window=500")
    p.add_argument("--allow-stand-ins", action="store_true", help="stand-ins for configs that do not exist yet")
    p.add_argument("--project", type=Path, default=None, help="import bandits from this checkout")
    p.add_argument("--venv", type=Path, default=ROOT / ".crosscheck-venv")
    p.add_argument("--jobs", type=int, default=1, help="SMPyBandits worker processes")
    p.add_argument("--smpy-ties", choices=("lowest", "random"), default="lowest")
    p.add_argument("--out", type=Path, default=None,
                   help="the report (default: results/crosscheck/smpybandits.csv for the published run, the "
                        "defaults; outputs/crosscheck/smpybandits.csv for any other)")
    p.add_argument("--work", type=Path, default=OUT_DIR / "tables", help="tables and SMPyBandits runs (git-ignored)")
    p.add_argument("--rerun", action="store_true", help="recompute the SMPyBandits runs and tables")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.out is None and not args.worker:
        # only the published run (every option at its default) rewrites the shipped report
        published = all(getattr(args, k) == p.get_default(k) for k in PUBLISHED_OPTIONS)
        args.out = (OUT_DIR if published else ROOT / "outputs" / "crosscheck") / "smpybandits.csv"
    return args


# The options that define the published cross-check (make crosscheck with no CROSSCHECK_ARGS).
PUBLISHED_OPTIONS = ("T", "large_T", "large_scenario", "large_policies", "small_T", "trials", "slow_trials", "seed",
                     "scenarios", "policies", "fixes", "ours", "allow_stand_ins", "project", "smpy_ties")


def overrides(items) -> dict:
    out = {}
    for item in items:
        name, _, rest = item.partition("=")
        parts = rest.split(",")
        spec = {"name": parts[0]}
        for kv in parts[1:]:
            k, _, v = kv.partition("=")
            try:
                spec[k] = json.loads(v)
            except json.JSONDecodeError:
                spec[k] = v
        out[name] = spec
    return out


def ours_label(policy: str, spec: dict | None, stand_in: bool) -> str:
    """Our config as run: its name, or the stand-in's, with any overrides."""
    if spec is None:
        return STAND_INS[policy]["name"] if stand_in else policy
    extra = ",".join(f"{k}={v}" for k, v in spec.items() if k != "name")
    return spec["name"] + (f"[{extra}]" if extra else "")


def run_workers(py: Path, jobs: list, n: int, work: Path, ties: str) -> None:
    todo = [j for j in jobs if not Path(j["out"]).exists()]
    if not todo:
        return
    todo.sort(key=lambda j: -j["cost"])
    buckets = [[] for _ in range(max(1, min(n, len(todo))))]
    loads = [0.0] * len(buckets)
    for job in todo:  # longest first onto the least loaded worker
        i = loads.index(min(loads))
        buckets[i].append(job)
        loads[i] += job["cost"]
    procs = []
    for i, bucket in enumerate(buckets):
        spec = work / f"worker-{i}.json"
        spec.write_text(json.dumps({"ties": ties, "jobs": bucket}))
        procs.append(subprocess.Popen([str(py), str(Path(__file__).resolve()), "--worker", str(spec)]))
    codes = [p.wait() for p in procs]
    if any(codes):
        raise SystemExit(f"an SMPyBandits worker failed (exit codes {codes})")


# rough SMPyBandits microseconds per round at n samples since a restart (for scheduling only)
COST_US = {"CUSUM_IndexPolicy": 2.0, "PHT_IndexPolicy": 2.0,
           "BernoulliGLR_IndexPolicy_WithDeterministicExploration": 0.3, "AdSwitchNew": 50.0}


def main(argv=None) -> int:
    args = parse(argv)
    if args.worker:
        worker(args.worker)
        return 0
    where = import_project(args.project)
    t_start = time.perf_counter()
    py = ensure_venv(args.venv)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    ours_specs = overrides(args.ours)
    policies = [p for p in args.policies.split(",") if p]
    fixes = set(FIXED) if args.fixes == "all" else set() if args.fixes == "none" else set(args.fixes.split(","))
    cases = [(s, args.T, [p for p in policies if p not in SMALL]) for s in args.scenarios.split(",") if s]
    if args.large_T:
        cases.append((args.large_scenario, args.large_T, [p for p in args.large_policies.split(",") if p in policies]))
    small = [p for p in policies if p in SMALL]
    if args.small_T and small:
        cases += [(s, args.small_T, small) for s in SMALL_SCENARIOS]
        for p in small:
            ours_specs.setdefault(p, dict(SMALL_OURS[p]))
    print(f"ours: bandits from {where}; SMPyBandits: {py}; ties: {args.smpy_ties}")

    records, jobs = [], []
    for scenario, T, pols in cases:
        instance, rewards, path, tag = tables(scenario, T, args.trials, args.seed, work, args.rerun)
        K = instance.means.shape[1]
        for policy in pols:
            obj, cfg, stand_in = our_algorithm(policy, ours_specs.get(policy), args.allow_stand_ins)
            actions, seconds, derived, finals = run_ours(obj, policy, instance, rewards, args.seed, T)
            info = dict(instance.info)
            cls, kwargs, attrs, used, source, job_notes = smpy_job(policy, K, T, info, derived[0], stand_in)
            variants = [cls] + ([FIXED[policy]] if policy in fixes and policy in FIXED else [])
            from bandits.simulation import stream
            n_smpy = min(args.trials, args.slow_trials) if policy in SLOW else args.trials
            seeds = [int(stream(args.seed, 3, T, trial).integers(2 ** 31)) for trial in range(n_smpy)]
            for variant in variants:
                job = {"smpy": variant, "K": K, "kwargs": kwargs, "attrs": attrs, "tables": str(path), "seeds": seeds}
                key = hashlib.sha256(json.dumps([job, tag, args.smpy_ties, SCRIPT_HASH], sort_keys=True).encode()
                                     ).hexdigest()[:12]
                job["key"] = f"{scenario}_T{T}_{variant}_{key}"
                job["out"] = str(work / f"smpy_{job['key']}.npz")
                if args.rerun and Path(job["out"]).exists():
                    Path(job["out"]).unlink()
                n_piece = T / (int(info.get("Upsilon_T", 0)) + 1)
                job["cost"] = T * args.trials * (30e-6 + COST_US.get(cls, 0.0) * 1e-6 * n_piece / 2)
                jobs.append(job)
                records.append({"scenario": scenario, "T": T, "K": K, "policy": policy, "variant": variant,
                                "job": job, "means": instance.means, "ours_actions": actions,
                                "ours_seconds": seconds, "ours_finals": finals, "stand_in": stand_in,
                                "ours_config": ours_label(policy, ours_specs.get(policy), stand_in),
                                "derived": derived[0], "used": used, "source": source, "job_notes": job_notes,
                                "ours_restarts": float(np.mean([restart_count(dd) for dd in derived]))})
            print(f"  ours {scenario} T={T} {policy}: {np.mean(finals):.1f} "
                  f"({np.median(seconds) / T * 1e9:.0f} ns/round){' [stand-in]' if stand_in else ''}", flush=True)

    print(f"SMPyBandits: {len(jobs)} runs on {args.jobs} process(es)", flush=True)
    run_workers(py, jobs, args.jobs, work, args.smpy_ties)

    rows = []
    for r in records:
        data = np.load(r["job"]["out"])
        smpy_actions = data["actions"].astype(np.int64)
        T = r["T"]
        ours_reg = regrets(r["means"], r["ours_actions"])
        assert np.allclose(ours_reg, r["ours_finals"]), "our regret differs from the runner's"
        smpy_reg = regrets(r["means"], smpy_actions)
        mo, so = mean_se(ours_reg)
        ms, ss = mean_se(smpy_reg)
        n = len(smpy_reg)  # SMPyBandits ran the first n tables
        diff = ours_reg[:n] - smpy_reg
        md, sd = mean_se(diff)
        randomised = POLICIES[r["policy"]]["randomised"] or r["stand_in"]
        agree = float((r["ours_actions"][:n] == smpy_actions).mean()) if not randomised else float("nan")
        ours_ns = float(np.median(r["ours_seconds"]) / T * 1e9)
        smpy_us = float(np.median(data["seconds"]) / T * 1e6)
        notes = "; ".join([*r["job_notes"], SMPY_NOTES.get(r["variant"].split("+")[0], "")])
        if r["variant"].endswith("+fix"):
            notes = "bug-fixed twin (only the faulty line changed); " + notes
        if r["stand_in"]:
            notes = f"STAND-IN: ours ran {r['ours_config']}; " + notes
        rows.append({
            "scenario": r["scenario"], "T": T, "K": r["K"], "trials": len(ours_reg), "smpy_trials": n,
            "policy": r["policy"],
            "ours_config": r["ours_config"], "smpy": r["variant"], "smpy_label": bytes(data["label"]).decode(),
            "ours_regret": mo, "ours_se": so, "smpy_regret": ms, "smpy_se": ss,
            "z": (mo - ms) / math.sqrt(so ** 2 + ss ** 2) if so + ss > 0 else 0.0 if mo == ms else float("nan"),
            "z_paired": md / sd if sd > 0 else 0.0 if md == 0 else float("nan"),
            "agreement": agree, "ours_restarts": r["ours_restarts"],
            "smpy_restarts": float(data["restarts"].mean()) if "restarts" in data else float("nan"),
            "ours_ns_round": ours_ns, "smpy_us_round": smpy_us,
            "ratio": smpy_us * 1e3 / ours_ns if ours_ns > 0 else float("nan"),
            "params_source": r["source"], "smpy_params": json.dumps({**r["job"]["kwargs"], **r["job"]["attrs"]}),
            "ours_derived": json.dumps({k: v for k, v in r["derived"].items() if k != "n_restarts"}, default=str),
            "ties": args.smpy_ties, "seed": args.seed,
            "notes": notes,
        })
    import pandas as pd

    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False, float_format="%.6g")
    print()
    print(fmt_table(rows))
    print(f"\nwrote {args.out} ({time.perf_counter() - t_start:.0f} s); z: (ours - smpy) / sqrt(se^2 + se^2); "
          "agreement: same arm, deterministic pairs; ratio: SMPyBandits time / ours per round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
