"""Ada-ILTCB+ (ada paper, Algorithm 1 and Figure 1).

Epoch i starts at tau_i. Block 0 is [tau, tau + L - 1], block j >= 1 is
[tau + 2^(j-1) L, tau + 2^j L - 1], and B_(i,j) = [tau, tau + 2^j L - 1]. Constants:
C0 = ln(8 T^3 |Pi|^2 / delta), L = ceil(4 K C0), nu_j = sqrt(C0 / (K 2^j L)),
Kbar = K log2 T, C = 1.2e7, D1 = D4 = 6400, D2 = D5 = 800.

Line by line:

* block start: Q_(i,0) is all mass on policy 0 ("an arbitrary sparse
  distribution"); for j >= 1 Q_(i,j) solves the OP on B_(i,j-1) with nu_j
  (:mod:`bandits.contextual.op_solver`). The replay set S is emptied, so replays
  still running are cut short at a block change.
* Step 1: rep ~ Bernoulli((1/L) 2^(-j/2) sum_{m<j} 2^(-m/2)); if rep, m in
  {0..j-1} with Pr[m = b] proportional to 2^(-b/2), and (m, [t, t + 2^m L - 1])
  joins S.
* Step 2: M_t = indices of the replays covering t. a_t is drawn from
  p_t = Q_(i,j)^{nu_j}(. | x_t) if M_t is empty, else the mean over m in M_t of
  Q_(i,m)^{nu_m}(. | x_t) (the paper samples m uniformly, then a_t from Q_m: the same
  law), and w_t = r_t(a_t) / p_t(a_t) (ada §4).
* Step 3: at the end of every replay interval, EndofReplayTest (eqs. (3)-(5));
  at the end of every block, EndofBlockTest (eqs. (6)-(8)); a failure restarts:
  a new epoch from the next round. Both tests use oracle calls
  (:mod:`bandits.contextual.nonstationarity_tests`).

Rounds where nothing changes (no replay starts or ends) are played by one compiled
call; replay starts are found from pre-drawn uniforms, so the draw is the same as
round by round.

Presets (``preset``), one knob per family of constants:

* ``theory``: the paper's values.
* ``practical``: C_scale (C), D_scale (D1, D4), V_scale (D2, D5), C0_scale (C0,
  hence L and nu_j). C_scale = 1e-10 is ILTCB's tuned value; D_scale = 3e-6 was
  chosen by ``scripts/tune_ada.py`` (mean regret over a 3-piece and a stationary
  tuning instance, root seed 99, that no experiment uses) from {1e-6, 3e-6, 1e-5,
  3e-5}: 5,408 / 5,103 / 5,220 / 6,561. V_scale made no difference anywhere in
  {1e-4, 1e-3, 1e-2} (the variance tests never fired first); 1e-3, the middle, is
  kept. At D_scale = 3e-6 the tuning runs also restarted 1-2 times on the
  stationary instance (false alarms); 1e-5 did not, at 2% more regret.

``replay: false`` is the ablation ``ada_iltcb_plus_noreplay`` (block-end test only).

Events (stored with each trial in ``events_``): every block start (epoch, j,
round), replay (start, m, planned end, actual end, whether it was cut) and restart
(round, test, inequality, policy, k or m, value, threshold).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bandits.contextual.common import contextual_problem, mixture, play_mixture
from bandits.contextual.iltcb import C_PAPER, constants, nu_j
from bandits.contextual.nonstationarity_tests import (
    BruteForceTests,
    Logged,
    OracleTests,
    end_of_block_test,
    end_of_replay_test,
)
from bandits.contextual.op_solver import solve_op
from bandits.errors import ConfigError, require_choice, require_float

D_PAPER = 6400.0
V_PAPER = 800.0
PRESETS = {
    "theory": {"C_scale": 1.0, "D_scale": 1.0, "V_scale": 1.0, "C0_scale": 1.0},
    "practical": {"C_scale": 1e-10, "D_scale": 3e-6, "V_scale": 1e-3, "C0_scale": 1.0},
}


@dataclass
class Run:
    """One run of Algorithm 1: its constants, its pre-drawn uniforms, the log of every
    round (actions, probabilities, importance weights) and the events."""
    pclass: object
    rewards: np.ndarray
    L: int
    C: float
    Kbar: float
    D: tuple  # (D1, D2) for the replay tests; D4 = D1, D5 = D2 for the block tests
    nu: list  # nu_j, j = 0, 1, ...
    u_act: np.ndarray
    u_rep: np.ndarray
    u_m: np.ndarray
    replay: bool
    actions: np.ndarray = None
    probs: np.ndarray = None
    weights: np.ndarray = None
    events: dict = field(default_factory=lambda: {"blocks": [], "replays": [], "restarts": []})
    op_iterations: list = field(default_factory=list)

    def __post_init__(self):
        T = self.rewards.shape[0]
        self.actions, self.probs, self.weights = np.zeros(T, dtype=np.int64), np.ones(T), np.zeros(T)
        self.logged = Logged(self.pclass, self.actions, self.weights)

    @property
    def K(self) -> int:
        return self.rewards.shape[1]

    @property
    def T(self) -> int:
        return self.rewards.shape[0]


@dataclass
class Block:
    """Block j of the epoch starting at tau: rounds [start, end], and the replays of S."""
    tau: int
    j: int
    epoch: int
    start: int
    end: int
    replays: list = field(default_factory=list)  # [m, first round, planned last round, event index]


def block_distribution(run: Run, block: Block) -> tuple:
    """Q_(i,0) is all mass on policy 0 ("an arbitrary sparse distribution"); for j >= 1
    Q_(i,j) solves the OP on B_(i,j-1) = [tau, start) with nu_j."""
    if block.j == 0:
        return np.array([0]), np.array([1.0])
    res = solve_op(run.pclass, np.arange(block.tau, block.start), run.actions, run.weights, run.nu[block.j], run.C)
    run.op_iterations.append(res.iterations)
    return np.asarray(res.support, dtype=np.int64), np.asarray(res.weights)


def replay_starts(run: Run, block: Block, last: int) -> tuple:
    """Step 1's draws for the whole block, found ahead from the pre-drawn uniforms (the
    same draw as round by round): the rounds where rep ~ Bernoulli((1/L) 2^(-j/2)
    sum_{m<j} 2^(-m/2)) is 1, and the cumulative law of m (Pr[m = b] ~ 2^(-b/2))."""
    j = block.j
    if not run.replay or j == 0:
        return np.array([], dtype=np.int64), None
    rate = (1.0 / run.L) * 2 ** (-j / 2) * sum(2 ** (-m / 2) for m in range(j))
    m_prob = np.array([2 ** (-b / 2) for b in range(j)])
    return block.start + np.flatnonzero(run.u_rep[block.start:last + 1] < rate), np.cumsum(m_prob / m_prob.sum())


def start_replay(run: Run, block: Block, t: int, m_cum: np.ndarray) -> None:
    """Step 1: (m, [t, t + 2^m L - 1]) joins S."""
    m = int(min(np.searchsorted(m_cum, run.u_m[t], side="right"), block.j - 1))
    planned = t + 2 ** m * run.L - 1
    block.replays.append([m, t, planned, len(run.events["replays"])])
    run.events["replays"].append({"start": int(t), "m": m, "planned_end": int(planned), "end": None, "cut": False,
                                  "epoch": block.epoch, "j": block.j})


def play_rounds(run: Run, block: Block, Qs: dict, t: int, stop: int) -> None:
    """Step 2 on [t, stop), where S does not change: p_t = Q_(i,j)^{nu_j}(. | x_t) if no
    replay covers t, else the mean over the replays m in M_t of Q_(i,m)^{nu_m}(. | x_t);
    a_t ~ p_t and w_t = r_t(a_t) / p_t(a_t) (ada §4)."""
    active = sorted({r[0] for r in block.replays if r[1] <= t <= r[2]})
    dists = [(Qs[m], run.nu[m]) for m in active] if active else [(Qs[block.j], run.nu[block.j])]
    play_mixture(run.pclass.pred, mixture(dists), run.K, run.u_act, t, stop, run.actions, run.probs)
    rows = np.arange(t, stop)
    run.weights[rows] = run.rewards[rows, run.actions[rows]] / run.probs[rows]


def restart(run: Run, done: int, test: str, result: dict) -> bool:
    run.events["restarts"].append({"round": int(done + 1), "test": test, **result})
    return True


def replay_tests(run: Run, block: Block, engine, Qs: dict, done: int) -> bool:
    """Step 3, EndofReplayTest (eqs. (3)-(5)) for every replay ending at round ``done``;
    True on a failure (restart)."""
    for m, first, _planned, event in [r for r in block.replays if r[2] == done]:
        run.events["replays"][event]["end"] = int(done)
        fail = end_of_replay_test(engine, np.arange(first, done + 1), np.arange(block.tau, block.start), Qs[m],
                                  run.nu[m], run.K, run.Kbar, *run.D)
        if fail is not None:
            ineq, pi, value, thr = fail
            return restart(run, done, "replay", {"inequality": ineq, "policy": int(pi), "m": m, "value": value,
                                                 "threshold": thr})
    return False


def block_test(run: Run, block: Block, engine, Qs: dict) -> bool:
    """Step 3, EndofBlockTest (eqs. (6)-(8)) at the end of block j >= 1; True on a failure."""
    tau, j = block.tau, block.j
    fail = end_of_block_test(engine, np.arange(tau, block.end + 1), [np.arange(tau, tau + 2 ** k * run.L)
                                                                     for k in range(j)],
                             [Qs[k + 1] for k in range(j)], run.nu, run.K, run.Kbar, *run.D)
    if fail is None:
        return False
    ineq, k, pi, value, thr = fail
    return restart(run, block.end, "block", {"inequality": ineq, "policy": int(pi), "k": k, "value": value,
                                             "threshold": thr})


def close_replays(run: Run, block: Block, t: int) -> None:
    """Replays still running when the block changes (or the epoch restarts) are cut short."""
    for r in block.replays:
        ev = run.events["replays"][r[3]]
        if ev["end"] is None:
            ev["end"] = int(t - 1)
            ev["cut"] = True


def run_block(run: Run, block: Block, engine, Qs: dict, t: int) -> tuple:
    """Rounds t..end of one block, Steps 1-3; returns (next round, restarted)."""
    last = min(block.end, run.T - 1)
    cand, m_cum = replay_starts(run, block, last)
    ci, restarted = 0, False
    while t <= last and not restarted:
        if ci < len(cand) and cand[ci] == t:
            start_replay(run, block, t, m_cum)
            ci += 1
        ends = [r[2] for r in block.replays if r[2] >= t]
        nxt = cand[ci] if ci < len(cand) else last + 1
        stop = min(nxt, (min(ends) + 1) if ends else last + 1, last + 1)
        play_rounds(run, block, Qs, t, stop)
        t = stop
        restarted = replay_tests(run, block, engine, Qs, t - 1)
        if not restarted and t - 1 == block.end and block.j > 0:
            restarted = block_test(run, block, engine, Qs)
    close_replays(run, block, t)
    return t, restarted


class AdaILTCBPlus:
    problem_kinds = ("contextual",)

    def __init__(self, preset: str = "practical", delta: float = 0.05, replay: bool = True,
                 C_scale: float | None = None, D_scale: float | None = None, V_scale: float | None = None,
                 C0_scale: float | None = None, tests: str = "oracle"):
        self.preset = preset
        self.delta = delta
        self.replay = replay
        self.C_scale = C_scale
        self.D_scale = D_scale
        self.V_scale = V_scale
        self.C0_scale = C0_scale
        self.tests = tests

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    def check_params(self) -> None:
        require_choice("algo.preset", self.preset, set(PRESETS))
        require_choice("algo.tests", self.tests, {"oracle", "brute_force"})
        d = require_float("algo.delta", self.delta, minimum=0.0, strict=True)
        if d >= 1:
            raise ConfigError(f"algo.delta must lie in (0, 1), got {d}.")
        for k in ("C_scale", "D_scale", "V_scale", "C0_scale"):
            require_float(f"algo.{k}", getattr(self, k), minimum=0.0, strict=True, allow_none=True)
        if not isinstance(self.replay, bool):
            raise ConfigError(f"algo.replay must be true or false, got {self.replay!r}.")

    def knobs(self) -> dict:
        out = dict(PRESETS[self.preset])
        for k in out:
            if getattr(self, k) is not None:
                out[k] = float(getattr(self, k))
        return out

    def play(self, rewards, info, rng, features=None):
        """Algorithm 1: epochs of doubling blocks (:func:`run_block`), each epoch ended by
        a failed test (a restart) or by T."""
        pclass = contextual_problem("ada_iltcb_plus", rewards, info)
        T, K = rewards.shape
        kn = self.knobs()
        const = constants(T, K, pclass.size, float(self.delta), kn["C0_scale"])
        C0, L = const["C0"], const["L"]
        D1, D2 = D_PAPER * kn["D_scale"], V_PAPER * kn["V_scale"]  # D4 = D1, D5 = D2
        nu = [min(nu_j(j, K, C0, L), 1.0 / K) for j in range(64)]
        run = Run(pclass, rewards, L, C_PAPER * kn["C_scale"], K * math.log2(T), (D1, D2), nu,
                  *(rng.random(T) for _ in range(3)), replay=self.replay)
        t, epoch = 0, 0
        while t < T:  # epoch i starts at tau_i = t
            engine = OracleTests(run.logged) if self.tests == "oracle" else BruteForceTests(run.logged)
            Qs, j, restarted = {}, 0, False
            tau = t
            while t < T and not restarted:
                block = Block(tau, j, epoch, tau if j == 0 else tau + 2 ** (j - 1) * L, tau + 2 ** j * L - 1)
                Qs[j] = block_distribution(run, block)
                run.events["blocks"].append({"round": int(block.start), "epoch": epoch, "j": j})
                t, restarted = run_block(run, block, engine, Qs, t)
                j += 1
            epoch += 1
        self.derived_ = {"preset": self.preset, "replay": self.replay, **kn, "C": run.C, "C0": C0, "L": L,
                         "D1": D1, "D2": D2, "oracle_calls": pclass.calls_, "op_iterations": run.op_iterations,
                         "restarts": [e["round"] for e in run.events["restarts"]],
                         "n_replays": len(run.events["replays"])}
        self.events_ = run.events
        return run.actions
