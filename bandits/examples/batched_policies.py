"""Two built-in algorithms written again as batched policies in plain numpy
(:mod:`bandits.algorithms.batched`): worked examples of the batched-trials protocol, which act
on every trial of a batch at once and choose, round by round, exactly the arms of the compiled
kernels (tests/test_batched.py checks it on seeded instances):

    python run.py algo=custom algo._target_=examples.batched_policies.BatchedDiscountedUCB \\
        +algo.gamma=0.99 env=piecewise_bernoulli T=20000 trials=100

Each reads like the kernel it follows (``d_ucb_kernel`` in bandits/algorithms/discounted.py,
``sw_ucb_gm_kernel`` in bandits/algorithms/sliding_window_gm.py): the same operations, in the
same order, on every trial at once. Their constants (a tuned discount or window) come from the
built-in class's ``resolve``, so the example is about the loop, not the tuning.

Four habits make a batched policy fast (``make bench``, case ``batched``):

* statistics are arms by trials, ``(n_arms, n_trials)``: one operation per arm touches one
  contiguous row of trials (numpy reduces a short last axis, ``axis=1`` of ``(n_trials, 5)``,
  about ten times more slowly);
* the pulled arm's statistics change through a float one-hot, ``pulled = eye.take(arms,
  axis=1)``, added as ``X += pulled * y``: no fancy indexing, no ``where=``, no mixing of bool
  and float arrays (each of which costs numpy several times more per call), and ``x + 0.0`` is
  ``x`` exactly, so the numbers are the kernel's;
* a round costs a few dozen numpy calls whatever the batch: at 1,000 trials Python's cost per
  call is spread over 1,000 trials;
* the steady state skips what only the first rounds need: ``np.errstate`` and the mask of
  unplayed arms cost about a third of a D-UCB round at 100 trials, and once every count is
  positive neither changes a number (a Python float bounds the smallest count from below, and
  the slow path returns only when it may have reached 0).

One caution for bit-exactness: numpy's vectorised ``log`` is not always ``math.log``, which the
compiled kernels call (about 2 in 10,000 float64 values differ in the last bit on the machine
of docs/speed.md). The logarithm only scales an exploration bonus, and two arms of a trial
share it, so a last-bit difference changes a chosen arm only when two indices sit within a
rounding error of the tie cut (:data:`bandits.numerics.TIE_TOL`); tests/test_batched.py checks
that the arms are the kernels' round by round on seeded instances.
"""

import inspect
import math

import numpy as np

from bandits.algorithms.common import reward_scale
from bandits.algorithms.discounted import DiscountedUCB
from bandits.algorithms.sliding_window_gm import SlidingWindowUCBGM
from bandits.numerics import argmax_lowest_columns

FLOOR = 1e-300  # a count below it may underflow to 0 within a few rounds: D-UCB's slow, guarded path


class TunedAsBuiltIn:
    """What both examples share: their parameters are the built-in class's, and so are their
    declared needs, their parameter checks and their tuned constants (``resolve``), so that an
    example is about its loop, not its tuning."""

    builtin = None  # the built-in class whose loop the example writes again

    def _builtin(self):
        names = inspect.signature(type(self).__init__).parameters
        return self.builtin(**{name: getattr(self, name) for name in names if name != "self"})

    def needs(self) -> tuple:
        return self._builtin().needs()

    def check_params(self) -> None:
        self._builtin().check_params()

    def _resolve(self, horizon, info) -> None:
        builtin = self._builtin()
        self.derived_ = builtin.resolve(horizon, info)
        self.lo_, self.scale_ = reward_scale(builtin, info)  # rewards read as (y - lo) * scale, as the kernel

    def _scaled(self, rewards):
        """(y - lo) * scale, as the kernel reads a reward; on [0, 1] that is y itself, exactly
        (y - 0.0 is y and y * 1.0 is y), and two numpy calls a round fewer."""
        if self.lo_ == 0.0 and self.scale_ == 1.0:
            return rewards
        return (rewards - self.lo_) * self.scale_


class BatchedDiscountedUCB(TunedAsBuiltIn):
    """D-UCB (Garivier & Moulines), batched: each round every arm's discounted count N and
    reward sum X is multiplied by gamma and the pulled arm gains (1, its reward); the next arm
    is argmax X / N + 2 B sqrt(xi log n / N), n = sum of the N (an unplayed arm first)."""

    batched = True
    problem_kinds = ("karmed",)
    builtin = DiscountedUCB

    def __init__(self, gamma=None, xi: float = 0.6, B: float = 1.0, Upsilon_T=None, reward_range=None):
        self.gamma = gamma
        self.xi = xi
        self.B = B
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self._resolve(horizon, info)
        self.N_, self.X_ = np.zeros((n_arms, n_trials)), np.zeros((n_arms, n_trials))  # arms by trials
        self.eye_ = np.eye(n_arms)  # eye_.take(arms, axis=1): the one-hot of each trial's arm, (n_arms, n_trials)
        self.floor_ = 0.0  # a lower bound on every N (0: some arm may be unplayed, or its N may have underflowed)

    def select(self, t):
        # n = sum_i N_i: numpy sums axis 0 of a C-ordered array row after row, in arm order, as the
        # kernel adds (tests/test_batched.py checks it); n = 0 only when every N is (all arms inf below)
        if self.floor_ < FLOOR:  # rarely true: find the smallest N again
            self.floor_ = float(self.N_.min())
        if self.floor_ >= FLOOR:  # every N > 0: no division by 0, no unplayed arm (the same numbers, faster)
            log_n = np.log(self.N_.sum(axis=0))
            index = self.X_ / self.N_ + 2.0 * self.derived_["B"] * np.sqrt(self.derived_["xi"] * log_n / self.N_)
            return argmax_lowest_columns(index)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_n = np.log(self.N_.sum(axis=0))
            index = self.X_ / self.N_ + 2.0 * self.derived_["B"] * np.sqrt(self.derived_["xi"] * log_n / self.N_)
        index[self.N_ <= 0.0] = np.inf
        return argmax_lowest_columns(index)

    def update(self, t, arms, rewards):
        gamma = self.derived_["gamma"]
        self.floor_ *= gamma  # a Python float: every N shrinks by gamma at most this round
        pulled = self.eye_.take(arms, 1)
        self.N_ *= gamma
        self.N_ += pulled
        self.X_ *= gamma
        self.X_ += pulled * self._scaled(rewards)  # x + 0.0 is x: the other arms as they were


class BatchedSlidingWindowUCB(TunedAsBuiltIn):
    """SW-UCB in Garivier & Moulines' form, batched: the count N and reward sum of each arm over
    the last ``window`` rounds, index sum / N + B sqrt(xi log min(t, window) / N) (an arm unseen
    in the window first). The bonus depends on N, an integer in 0..window, only: it is a table,
    computed again only while log min(t, window) grows. The window is a ring buffer shared by
    the trials (its position is the round's); every time it wraps, the sums are recomputed from
    it in its order, as the kernel does."""

    batched = True
    problem_kinds = ("karmed",)
    builtin = SlidingWindowUCBGM

    def __init__(self, window=None, xi: float = 0.6, B: float = 1.0, Upsilon_T=None, reward_range=None):
        self.window = window
        self.xi = xi
        self.B = B
        self.Upsilon_T = Upsilon_T
        self.reward_range = reward_range

    def reset(self, n_trials, n_arms, horizon, rng, info):
        self._resolve(horizon, info)
        self.cap_ = max(1, min(int(self.derived_["window"]), horizon))
        # each round in the window, kept as what it added, arms by trials: its one-hot to the
        # counts and its one-hot times the reward to the sums; a round that leaves subtracts them
        # as they are (2 * cap * n_arms * n_trials numbers: 80 MB at 1,000 trials, a window of
        # 1,000 and K = 5). Lists of the rows: indexing a Python list costs no numpy call.
        self.window_sums_ = np.zeros((self.cap_, n_arms, n_trials))
        self.added_sums_ = list(self.window_sums_)  # views of its rows
        self.added_counts_ = list(np.zeros((self.cap_, n_arms, n_trials), dtype=np.intp))
        self.counts_ = np.zeros((n_arms, n_trials), dtype=np.intp)  # integers: they index the tables below
        self.sums_ = np.zeros((n_arms, n_trials))
        self.eye_ = np.eye(n_arms)  # eye_.take(arms, axis=1): the one-hot of each trial's arm, (n_arms, n_trials)
        self.eye_counts_ = np.eye(n_arms, dtype=np.intp)
        self.window_ = int(self.derived_["window"])
        self.log_w_, self.bonus_ = None, None
        self.divisor_ = np.maximum(np.arange(self.cap_ + 1.0), 1.0)  # max(N, 1) of each count, a table like the bonus

    def select(self, t):
        log_w = math.log(min(t, self.window_)) if t > 0 else 0.0
        if log_w != self.log_w_:  # the bonus of each count N = 1..cap (fixed once t >= window); N = 0: inf
            with np.errstate(divide="ignore", invalid="ignore"):
                self.bonus_ = self.derived_["B"] * np.sqrt(self.derived_["xi"] * log_w / np.arange(self.cap_ + 1.0))
            self.bonus_[0] = np.inf
            self.log_w_ = log_w
        # sum / N + bonus(N); an arm unseen in the window (N = 0) gets 0 / 1 + inf = inf: the lowest
        # unseen arm wins, as in the kernel
        n = self.counts_
        return argmax_lowest_columns(self.sums_ / self.divisor_.take(n) + self.bonus_.take(n))

    def update(self, t, arms, rewards):
        slot = t % self.cap_
        if t >= self.cap_:  # full: the round that leaves takes back what it added
            self.counts_ -= self.added_counts_[slot]
            self.sums_ -= self.added_sums_[slot]  # x - 0.0 is x: the other arms as they were
        counts, sums = self.added_counts_[slot], self.added_sums_[slot]
        self.eye_counts_.take(arms, 1, counts)  # positional out: numpy parses keywords slowly
        np.multiply(self.eye_.take(arms, 1), self._scaled(rewards), sums)
        self.counts_ += counts
        self.sums_ += sums
        if (t + 1) % self.cap_ == 0:  # the window wrapped: its sums recomputed from its rounds, in order
            self.sums_ = self.window_sums_.sum(axis=0)  # row after row in slot order: the oldest first
