"""The oracle restart reference transcribed literally: a fresh UCB1
(:class:`~bandits.reference.ucb1.ReferenceUCB1`) or kl-UCB
(:class:`~bandits.reference.kl_ucb.ReferenceKLUCB`) built from scratch at round 0 and at
every true change point, so its counts, means and the time in its index start again. An
oracle: it declares ``oracle_knowledge`` and reads ``info["oracle"]["change_points"]``
(0-based rounds where a new piece starts). An independent check of
:class:`bandits.algorithms.OracleRestartUCB`.
"""

from __future__ import annotations

from bandits.reference.kl_ucb import ReferenceKLUCB
from bandits.reference.ucb1 import ReferenceUCB1

PAPER_C = {"ucb1": 2.0, "kl_ucb": 0.0}


class ReferenceOracleRestartUCB:
    problem_kinds = ("karmed",)
    oracle_knowledge = ("change_points",)

    def __init__(self, index: str = "ucb1", c: float | None = None, reward_range=None):
        self.index = index
        self.c = c
        self.reward_range = reward_range

    def needs(self) -> tuple:
        return () if self.reward_range is not None else ("reward_range",)

    def _fresh(self):
        c = PAPER_C[self.index] if self.c is None else self.c
        policy = (ReferenceUCB1 if self.index == "ucb1" else ReferenceKLUCB)(c=c, reward_range=self.reward_range)
        policy.reset(*self.setup_)
        return policy

    def reset(self, n_arms, horizon, rng, info):
        self.setup_ = (n_arms, horizon, rng, info)
        self.changes_ = {int(r) for r in info["oracle"]["change_points"]}
        self.policy_ = self._fresh()

    def select(self, t):
        if t in self.changes_:
            self.policy_ = self._fresh()                # restart from scratch at a true change point
        return self.policy_.select(t)

    def update(self, t, arm, reward):
        self.policy_.update(t, arm, reward)
