"""The engine's shape, read from its sources: each shared concept is defined once and
imported where it is used, and every compiled kernel has a short signature."""

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT
from numba.core.registry import CPUDispatcher

import bandits

# the library that produces numbers: bandits/ without the runner (bandits/experiments/)
LIBRARY = sorted(p for p in (ROOT / "bandits").rglob("*.py")
                 if p.relative_to(ROOT / "bandits").parts[0] != "experiments")
MAX_KERNEL_PARAMETERS = 10


def sources_matching(pattern: str) -> list:
    return sorted(str(p.relative_to(ROOT)) for p in LIBRARY if re.search(pattern, p.read_text(), flags=re.M))


def test_one_sigmoid():
    assert sources_matching(r"^\s*def _?sigmoid\b") == ["bandits/numerics.py"]


def test_the_tie_tolerance_lives_in_one_module():
    assert sources_matching(r"TIE_TOL\s*=") == ["bandits/numerics.py"]
    # a tie tolerance written out ("value + 1e-12 * max(...)") anywhere else
    assert sources_matching(r"1e-12\s*\*\s*max\(") == []


def test_one_sliding_window_used_by_every_windowed_algorithm():
    ring = r"pos\s*\+=\s*1|pos\s*==\s*cap|filled\s*==\s*cap"  # ring-buffer bookkeeping written out
    assert sources_matching(ring) == []
    users = sources_matching(r"from bandits\.algorithms\.window import|from bandits\.algorithms\.sliding_window_least"
                             r"_squares import")
    for windowed in ("sliding_window_ucb.py", "semibandit.py", "pricing.py", "sliding_window_least_squares.py",
                     "glb.py"):
        assert f"bandits/algorithms/{windowed}" in users, windowed


def test_one_bob_outer_loop():
    assert sources_matching(r"^def bob_blocks") == ["bandits/algorithms/bandit_over_bandit.py"]
    assert sources_matching(r"bob_blocks\(") == ["bandits/algorithms/bandit_over_bandit.py",
                                                 "bandits/algorithms/bob_ext.py",
                                                 "bandits/algorithms/restart_linear_ucb.py"]
    assert sources_matching(r"range\([^)]*n_blocks") == ["bandits/algorithms/bandit_over_bandit.py"]


def test_one_oful_radius_and_one_t_interval():
    assert sources_matching(r"math\.log\(\(1\.0 \+") == ["bandits/algorithms/tuning.py"]
    t_ppf = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "bandits" / "experiments").rglob("*.py"))
             if "t.ppf" in p.read_text()]
    # the t-interval over trials lives in summary.py; bootstrap.py's t quantiles belong to the
    # two-stage bootstrap over instances (the expanded percentile level, and a mean's t interval
    # on the bootstrap standard error): a different interval, over instances, not a copy
    assert t_ppf == ["bandits/experiments/report/bootstrap.py", "bandits/experiments/report/summary.py"]


def kernels():
    for info in pkgutil.walk_packages(bandits.__path__, "bandits."):
        if info.name.startswith("bandits.experiments"):  # the runner: no compiled kernel there
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                yield f"{info.name}.{name}", obj


def test_no_compiled_kernel_takes_more_than_ten_arguments():
    found = dict(kernels())
    assert len(found) >= 15
    long = {name: len(inspect.signature(k.py_func).parameters) for name, k in found.items()
            if len(inspect.signature(k.py_func).parameters) > MAX_KERNEL_PARAMETERS}
    assert not long, long


def test_no_bare_except_exception_in_the_library():
    """An exception caught broadly is re-raised (reported with its place), never swallowed."""
    import ast

    for path in LIBRARY:
        for node in ast.walk(ast.parse(path.read_text())):
            broad = isinstance(node, ast.ExceptHandler) and (node.type is None or (
                isinstance(node.type, ast.Name) and node.type.id in ("Exception", "BaseException")))
            if broad:
                raises = any(isinstance(n, ast.Raise) for stmt in node.body for n in ast.walk(stmt))
                assert raises, f"{path}:{node.lineno} swallows an exception"


def test_window_refreshes_exactly_when_it_wraps():
    from bandits.algorithms.window import FILLED, POS, advance, is_full, new_window

    rows, state = new_window(3, 2)
    wraps = []
    for t in range(8):
        assert is_full(rows, state) == (t >= 3)
        wraps.append(advance(rows, state))
    assert wraps == [False, False, True, False, False, True, False, False]
    assert state[POS] == 8 % 3 and state[FILLED] == 3


@pytest.mark.parametrize("window", [1, 3, 7])
def test_window_sums_never_drift(window):
    """After many rounds the incrementally kept sums equal a direct sum over the last w
    rewards (the exact refresh removes add/remove rounding)."""
    from bandits.algorithms.sliding_window_ucb import sw_ucb_segment

    rng = np.random.default_rng(window)
    rewards = rng.normal(1e6, 1.0, (5000, 2))  # large values: rounding would accumulate
    actions = np.empty(5000, dtype=np.int64)
    sw_ucb_segment(rewards, 0, 5000, window, 1.0, np.full(5000, 0.5), np.inf, actions)
    # the last decision used the window of the `window` rounds before it
    counts = np.bincount(actions[-window - 1:-1], minlength=2).astype(float)
    sums = np.array([rewards[-window - 1:-1][actions[-window - 1:-1] == a, a].sum() for a in range(2)])
    index = sums / (1.0 + counts) + 0.5 / np.sqrt(1.0 + counts)
    assert actions[-1] == int(np.argmax(index))


# ----------------------------------------------------------------------------- adding an algorithm

LEADER_CONFIG = """name: window_leader
_target_: window_leader.WindowLeader
label: null
window: 200
epsilon: 0.05
"""


def new_algorithm_folder(tmp_path, source: str):
    """docs/architecture.md's recipe in a folder of its own: the module and its config."""
    (tmp_path / "conf" / "algo").mkdir(parents=True)
    (tmp_path / "conf" / "algo" / "window_leader.yaml").write_text(LEADER_CONFIG)
    (tmp_path / "window_leader.py").write_text(source)
    import os
    return {**os.environ, "DRIFT_BANDITS_CONF": str(tmp_path / "conf"), "PYTHONPATH": str(tmp_path)}


def conformance(env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "tests/test_conformance.py", "-k", "window_leader",
                           "-o", "addopts=", "-q", "-p", "no:cacheprovider"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_new_algorithm_in_a_folder_of_its_own_is_checked_by_the_conformance_suite(tmp_path):
    source = (ROOT / "examples" / "window_leader.py").read_text()
    good = conformance(new_algorithm_folder(tmp_path / "good", source))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "9 passed" in good.stdout  # conformance, bandit feedback and contract, on its three kinds
    peeking = source.replace("observe_arm(rows, state, counts, sums, arm, rewards[t, arm])",
                             "observe_arm(rows, state, counts, sums, arm, rewards[t].max())")
    assert peeking != source
    bad = conformance(new_algorithm_folder(tmp_path / "bad", peeking))
    assert bad.returncode == 1 and "learns_only_from_the_rewards_it_chose" in bad.stdout


def test_a_new_algorithm_runs_from_the_command_line(tmp_path):
    env = new_algorithm_folder(tmp_path, (ROOT / "examples" / "window_leader.py").read_text())
    proc = subprocess.run([sys.executable, "run.py", "algo=window_leader", "T=500", "trials=2",
                           f"results_dir={tmp_path / 'results'}"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "window_leader" in proc.stdout


def test_the_regret_against_the_best_arm_of_each_round_is_numpys_cumsum_bit_for_bit():
    """evaluate() without a reported optimum takes each round's best mean in its own loop (not
    a slice per round): the same sums as numpy's cumsum of max - chosen, and a NaN mean
    anywhere in a round makes that round's regret NaN, as numpy's max does."""
    from bandits.simulation import evaluate

    rng = np.random.default_rng(3)
    T, K = 5000, 7
    means, rewards = rng.random((T, K)), rng.random((T, K))
    actions = rng.integers(0, K, T)
    curves = evaluate(means, rewards, actions)
    rounds = np.arange(T)
    assert np.array_equal(curves["regret"], np.cumsum(means.max(axis=1) - means[rounds, actions]))
    assert np.array_equal(curves["reward"], np.cumsum(rewards[rounds, actions]))
    means[10, (actions[10] + 1) % K] = np.nan  # not the arm played: numpy's max is NaN all the same
    with np.errstate(invalid="ignore"):
        regret = evaluate(means, rewards, actions)["regret"]
    assert np.isfinite(regret[:10]).all() and np.isnan(regret[10:]).all()


def test_workers_take_turns_warming_kernels(tmp_path, monkeypatch):
    """warm_up_all passes over an algorithm whose warming lock another process holds (a file in
    numba's cache folder), warms the others first, and warms that one once the lock is free:
    two workers on a cold cache compile each kernel once between them, not once each."""
    import fcntl
    import threading

    from bandits import simulation
    from bandits.algorithms import KLUCB, UCB1

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(simulation, "_WARM", set())
    order, second = [], threading.Event()

    def record(algo, instance, rewards):
        order.append(type(algo).__name__)
        if len(order) == 2:
            second.set()

    monkeypatch.setattr(simulation, "warm_up", record)
    (tmp_path / "warming").mkdir()
    with open(tmp_path / "warming" / f"{KLUCB.__module__}.{KLUCB.__qualname__}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)           # "another worker" is compiling kl-UCB
        run = threading.Thread(target=simulation.warm_up_all, args=([KLUCB(), UCB1(), KLUCB()], None, None))
        run.start()
        assert not second.wait(0.5)                # UCB1 warmed, kl-UCB waits for the lock
        assert order == ["UCB1"]
        fcntl.flock(held, fcntl.LOCK_UN)
        run.join(10)
    assert order == ["UCB1", "KLUCB"]              # once each, kl-UCB after its lock was freed


def test_warming_without_file_locks_warms_each_algorithm_once(tmp_path, monkeypatch):
    """On a file system that refuses locks (flock fails with ENOLCK, as some network ones do),
    warm_up_all warms every algorithm once, in order, instead of failing the batch."""
    import errno
    import fcntl

    from bandits import simulation
    from bandits.algorithms import KLUCB, UCB1

    def refuse(fh, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(simulation, "_WARM", set())
    monkeypatch.setattr(fcntl, "flock", refuse)
    order = []
    monkeypatch.setattr(simulation, "warm_up", lambda algo, instance, rewards: order.append(type(algo).__name__))
    simulation.warm_up_all([KLUCB(), UCB1(), KLUCB()], None, None)
    assert order == ["KLUCB", "UCB1"]


def test_contextual_warm_up_compiles_the_kernels_that_20_rounds_never_reach(monkeypatch):
    """The OP's, the tests' and the replays' kernels are first called after block 0 (hundreds of
    rounds): the warm-up compiles them for the problem's array types, so that no contextual
    cell carries compile time (int16 policy actions: a type no other test compiles)."""
    from bandits.contextual import common, policy_class

    pred = np.random.default_rng(0).integers(0, 3, size=(5, 4)).astype(np.int16)
    common.warm_kernels(pred, 3)
    for kernel in (policy_class._finite_scores, policy_class._iw_scores, policy_class._distribution,
                   common.play_mixture):
        assert any(str(sig[0]).startswith("array(int16, 2d, C") for sig in kernel.signatures), kernel
    called = []
    monkeypatch.setattr(common, "warm_kernels", lambda actions, K: called.append((actions.dtype, K)))
    from bandits.contextual.ada_iltcb_plus import AdaILTCBPlus
    from bandits.environments.drifting_contextual import DriftingContextual
    from bandits.simulation import warm_up

    env = DriftingContextual(K=3, d=2, n_policies=40)
    inst = env.instance(200, np.random.default_rng(1))
    monkeypatch.setattr(sys.modules["bandits.simulation"], "_WARM", set())
    warm_up(AdaILTCBPlus(), inst, env.rewards(inst, np.random.default_rng(2)))
    assert called == [(inst.info["policy_actions"].dtype, 3)]
