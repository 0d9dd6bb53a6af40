"""Ada-ILTCB+ (ada paper, Algorithm 1 and Figure 1), transcribed literally: one round at a
time, every empirical regret and variance summed afresh over its interval for every policy of
the (finite) class, no compiled code and no shared bookkeeping with
:mod:`bandits.contextual.ada_iltcb_plus`.

Algorithm 1, line by line (rounds counted from 0 here, from 1 in the paper):

* Line 1: epoch i starts at tau_i = t.
* Block j = 0, 1, ...: Q_(i,0) is all mass on policy 0 ("an arbitrary sparse distribution");
  for j >= 1, Q_(i,j) solves (OP) with I = B_(i,j-1) = [tau, tau + 2^(j-1) L - 1] and
  nu = nu_j. S <- {} (the replay set, emptied at every block). The block runs while
  t <= tau + 2^j L - 1.
* Step 1: rep ~ Bernoulli((1/L) 2^(-j/2) sum_{m=0}^{j-1} 2^(-m/2)); if rep = 1, m in
  {0, ..., j-1} with Pr[m = b] proportional to 2^(-b/2), and (m, [t, t + 2^m L - 1]) joins S.
* Step 2: M_t = the indices m of S's intervals that contain t. If M_t is empty,
  a_t ~ Q_(i,j)^{nu_j}(. | x_t); else m ~ Uniform(M_t) and a_t ~ Q_(i,m)^{nu_m}(. | x_t),
  which is one draw from the mean of the Q_(i,m)^{nu_m}(. | x_t) over m in M_t (the same law;
  the transcription draws from that mean, with one uniform, as the library does).
  w_t = r_t(a_t) / p_t(a_t), the importance weight of §3.
* Step 3: for every (m, [s, s']) of S with s' = t, EndofReplayTest(i, j, m, [s, t]); if
  t = tau + 2^j L - 1, EndofBlockTest(i, j). A Fail: t <- t + 1, a new epoch (Line 1).

Figure 1, for an interval I: R^_I(pi) = (1/|I|) sum_{t in I} w_t 1{pi(x_t) = a_t},
Reg^_I(pi) = max_pi' R^_I(pi') - R^_I(pi), V^_I(Q, nu, pi) = (1/|I|) sum_{t in I}
1 / Q^nu(pi(x_t) | x_t), with Q^nu(a | x) = nu + (1 - K nu) Q(a | x).

* EndofReplayTest(i, j, m, A): Fail if some pi has (3) Reg^_A - 4 Reg^_B >= D1 Kbar nu_m,
  (4) Reg^_B - 4 Reg^_A >= D1 Kbar nu_m, or (5) V^_A(Q_(i,m), nu_m, pi) - 41
  V^_B(Q_(i,m), nu_m, pi) >= D2 K, with B = B_(i,j-1).
* EndofBlockTest(i, j): Fail if some k in {0, ..., j-1} and pi have (6) Reg^_(B_(i,j)) - 4
  Reg^_(B_(i,k)) >= D4 Kbar nu_k, (7) Reg^_(B_(i,k)) - 4 Reg^_(B_(i,j)) >= D4 Kbar nu_k, or (8)
  V^_(B_(i,j))(Q_(i,k+1), nu_(k+1), pi) - 41 V^_(B_(i,k))(Q_(i,k+1), nu_(k+1), pi) >= D5 K.
  For j = 0 the set of k is empty: no test.

Constants (Algorithm 1's definitions and Figure 1): C0 = ln(8 T^3 |Pi|^2 / delta), L =
ceil(4 K C0), nu_j = sqrt(C0 / (K 2^j L)), Kbar = K log2 T, C = 1.2e7, D1 = D4 = 6400,
D2 = D5 = 800; the project's presets scale them (``C_scale``, ``D_scale``, ``V_scale``,
``C0_scale``: ``docs/ada.md``). nu_j is capped at 1/K, the domain (0, 1/K] on which the paper
defines Q^nu.

The OP (Figure 1) states two constraints, not an algorithm (the paper points to Agarwal et
al. 2014, whose solution is not unique): it is solved by the library's coordinate descent
(:func:`bandits.contextual.op_solver.solve_op`), as the MASTER-ILTCB transcription does, and
this transcription checks the solution against the text instead: for every block it records
how far constraints (1) and (2) are exceeded, computed here from their definitions
(``op_excess_``: 0 when both hold).

The uniforms are drawn as the library draws them (one array of T each for the actions, for
rep and for m), so that the two can be compared round by round. Like the library's class, and
unlike the protocol policies of this package, it plays a whole trial (``play``): Algorithm 1
restarts and replays across rounds, which a transcription reads best as one loop.
"""

from __future__ import annotations

import math

import numpy as np

from bandits.contextual.op_solver import solve_op
from bandits.contextual.policy_class import FinitePolicyClass

C_PAPER, D_PAPER, V_PAPER = 1.2e7, 6400.0, 800.0


class ReferenceAdaILTCBPlus:
    problem_kinds = ("contextual",)

    def __init__(self, delta: float = 0.05, replay: bool = True, C_scale: float = 1e-10, D_scale: float = 3e-6,
                 V_scale: float = 1e-3, C0_scale: float = 1.0):
        self.delta = delta
        self.replay = replay
        self.C_scale = C_scale
        self.D_scale = D_scale
        self.V_scale = V_scale
        self.C0_scale = C0_scale

    def check_params(self) -> None:
        pass  # a transcription for tests: its parameters are the library class's, checked there

    def needs(self) -> tuple:
        return ("policy_actions", "reward_range")

    # ------------------------------------------------------------------ Figure 1's quantities

    def R_hat(self, interval) -> np.ndarray:
        """R^_I(pi) for every policy pi: (1/|I|) sum_{t in I} w_t 1{pi(x_t) = a_t}."""
        total = np.zeros(self.N_)
        for t in interval:
            total += self.w_[t] * (self.pred_[t] == self.a_[t])
        return total / len(interval)

    def Reg_hat(self, interval) -> np.ndarray:
        """Reg^_I(pi) = R^_I(pi^_I) - R^_I(pi), pi^_I the empirically best policy."""
        R = self.R_hat(interval)
        return R.max() - R

    def Q_given_x(self, Q, t) -> np.ndarray:
        """Q(a | x_t) = sum of Q(pi) over the policies pi with pi(x_t) = a."""
        support, weights = Q
        out = np.zeros(self.K_)
        for pi, q in zip(support, weights, strict=True):
            out[self.pred_[t, pi]] += q
        return out

    def Q_nu(self, Q, nu, t) -> np.ndarray:
        """Q^nu(. | x_t) = nu 1 + (1 - K nu) Q(. | x_t)."""
        return nu + (1.0 - self.K_ * nu) * self.Q_given_x(Q, t)

    def V_hat(self, interval, Q, nu) -> np.ndarray:
        """V^_I(Q, nu, pi) for every policy pi: (1/|I|) sum_{t in I} 1 / Q^nu(pi(x_t) | x_t)."""
        total = np.zeros(self.N_)
        for t in interval:
            total += 1.0 / self.Q_nu(Q, nu, t)[self.pred_[t]]
        return total / len(interval)

    def nu(self, j: int) -> float:
        return min(math.sqrt(self.C0_ / (self.K_ * 2 ** j * self.L_)), 1.0 / self.K_)

    def B(self, tau: int, j: int) -> range:
        """B_(i,j) = [tau_i, tau_i + 2^j L - 1]."""
        return range(tau, tau + 2 ** j * self.L_)

    # ------------------------------------------------------------------ the OP and the tests

    def solve(self, interval, nu: float):
        """(OP) on I with nu: the library's solver; how far (1) and (2) are exceeded, recorded."""
        rows = np.arange(interval.start, interval.stop)
        res = solve_op(self.pclass_, rows, self.a_, self.w_, nu, self.C_)
        Q = (np.asarray(res.support, dtype=np.int64), np.asarray(res.weights))
        reg = self.Reg_hat(interval)
        full = np.zeros(self.N_)
        full[Q[0]] += Q[1]
        excess_1 = float(full @ reg) - 2 * self.C_ * self.K_ * nu
        excess_2 = float(np.max(self.V_hat(interval, Q, nu) - (2 * self.K_ + reg / (self.C_ * nu))))
        self.op_excess_.append(max(excess_1, excess_2, 0.0))
        return Q

    def end_of_replay_test(self, tau, j, m, A, Q):
        """EndofReplayTest(i, j, m, A): (inequality, policy) of the first Fail, or None."""
        B = self.B(tau, j - 1)
        reg_A, reg_B = self.Reg_hat(A), self.Reg_hat(B)
        threshold = self.D1_ * self.Kbar_ * self.nu(m)
        for inequality, gap, bound in ((3, reg_A - 4 * reg_B, threshold), (4, reg_B - 4 * reg_A, threshold),
                                       (5, self.V_hat(A, Q[m], self.nu(m)) - 41 * self.V_hat(B, Q[m], self.nu(m)),
                                        self.D2_ * self.K_)):
            if np.any(gap >= bound):
                return inequality, int(np.argmax(gap))
        return None

    def end_of_block_test(self, tau, j, Q):
        """EndofBlockTest(i, j): (inequality, k, policy) of the first Fail, or None."""
        Bj = self.B(tau, j)
        reg_j = self.Reg_hat(Bj)
        for k in range(j):
            Bk = self.B(tau, k)
            reg_k = self.Reg_hat(Bk)
            threshold = self.D1_ * self.Kbar_ * self.nu(k)  # D4 = D1
            nu = self.nu(k + 1)
            for inequality, gap, bound in ((6, reg_j - 4 * reg_k, threshold), (7, reg_k - 4 * reg_j, threshold),
                                           (8, self.V_hat(Bj, Q[k + 1], nu) - 41 * self.V_hat(Bk, Q[k + 1], nu),
                                            self.D2_ * self.K_)):  # D5 = D2
                if np.any(gap >= bound):
                    return inequality, k, int(np.argmax(gap))
        return None

    # ------------------------------------------------------------------ Algorithm 1

    def play(self, rewards, info, rng, features=None):
        T, K = rewards.shape
        self.pred_ = np.asarray(info["policy_actions"])  # pi(x_t) for every round t and policy pi
        self.pclass_ = FinitePolicyClass(self.pred_, K)
        self.K_, self.N_ = K, self.pred_.shape[1]
        self.C0_ = self.C0_scale * math.log(8 * float(T) ** 3 * float(self.N_) ** 2 / self.delta)
        self.L_ = int(math.ceil(4 * K * self.C0_))
        self.Kbar_ = K * math.log2(T)
        self.C_ = C_PAPER * self.C_scale
        self.D1_, self.D2_ = D_PAPER * self.D_scale, V_PAPER * self.V_scale
        u_act, u_rep, u_m = rng.random(T), rng.random(T), rng.random(T)
        self.a_, self.p_, self.w_ = np.zeros(T, dtype=np.int64), np.ones(T), np.zeros(T)
        self.op_excess_, self.distributions_ = [], []
        self.events_ = {"blocks": [], "replays": [], "restarts": []}
        L = self.L_
        t, epoch = 0, 0
        while t < T:  # Line 1: epoch i starts at tau_i
            tau, j, Q, failed = t, 0, {}, False
            while t < T and not failed:
                Q[j] = (np.array([0]), np.array([1.0])) if j == 0 else self.solve(self.B(tau, j - 1), self.nu(j))
                self.distributions_.append(Q[j])
                self.events_["blocks"].append({"round": t, "epoch": epoch, "j": j})
                S = []  # (m, s, s')
                while t <= tau + 2 ** j * L - 1 and t < T and not failed:
                    # Step 1. Randomly start a replay phase
                    if self.replay and j >= 1:
                        rep = u_rep[t] < (1.0 / L) * 2 ** (-j / 2) * sum(2 ** (-m / 2) for m in range(j))
                        if rep:
                            law = np.array([2 ** (-b / 2) for b in range(j)])
                            cumulative = np.cumsum(law / law.sum())
                            m = next((b for b in range(j) if u_m[t] < cumulative[b]), j - 1)
                            S.append((m, t, t + 2 ** m * L - 1))
                            self.events_["replays"].append({"start": t, "m": m, "planned_end": t + 2 ** m * L - 1})
                    # Step 2. Sample an action
                    M_t = sorted({m for m, s, s_end in S if s <= t <= s_end})
                    p = (np.mean([self.Q_nu(Q[m], self.nu(m), t) for m in M_t], axis=0) if M_t
                         else self.Q_nu(Q[j], self.nu(j), t))
                    a = next((b for b in range(K) if u_act[t] < np.cumsum(p)[b]), K - 1)
                    self.a_[t], self.p_[t], self.w_[t] = a, p[a], rewards[t, a] / p[a]
                    # Step 3. Perform non-stationarity tests
                    for m, s, s_end in S:
                        fail = self.end_of_replay_test(tau, j, m, range(s, t + 1), Q) if s_end == t else None
                        if fail is not None:
                            self.events_["restarts"].append({"round": t + 1, "test": "replay", "inequality": fail[0],
                                                             "m": m})
                            failed = True
                            break
                    if not failed and j >= 1 and t == tau + 2 ** j * L - 1:
                        fail = self.end_of_block_test(tau, j, Q)
                        if fail is not None:
                            self.events_["restarts"].append({"round": t + 1, "test": "block", "inequality": fail[0],
                                                             "k": fail[1]})
                            failed = True
                    t += 1
                j += 1
            epoch += 1
        return self.a_
