"""Vowpal Wabbit's contextual bandit (optional extra: ``pip install -e ".[vw]"``).

Each round is fed as one multi-line ADF example (``--cb_explore_adf``):

    shared |s 0:x_0 1:x_1 ... (d-1):x_(d-1)
    |a a0
    |a a1
    ...

with ``-q sa`` so every action gets its own linear function of the context (the
per-action regression of the ``linear`` policy class). VW returns a distribution
over the K actions; we draw a_t from it with the trial's own uniform, then teach
the same example with the label ``a_t:cost:p_t(a_t)`` on the chosen action, cost =
1 - reward (VW minimises cost). Exploration: ``explore: epsilon`` (``--epsilon``)
or ``cover`` (``--cover``), VW's seed from the algorithm's stream. VW learns a
linear policy, not one of the finite class: its regret is still measured against
the best policy of the class.

If the package is not installed, the runner skips this algorithm with a one-line
notice (:class:`bandits.errors.Unavailable`).
"""

from __future__ import annotations

import numpy as np

from bandits.errors import ConfigError, Unavailable, require_choice, require_float, require_int


def available() -> bool:
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        return False
    return True


class VowpalWabbit:
    problem_kinds = ("contextual",)

    def needs(self) -> tuple:
        return ("contexts",)

    def __init__(self, explore: str = "epsilon", epsilon: float = 0.05, cover: int = 4, extra: str = ""):
        self.explore = explore
        self.epsilon = epsilon
        self.cover = cover
        self.extra = extra

    def check_params(self) -> None:
        require_choice("algo.explore", self.explore, {"epsilon", "cover"})
        require_float("algo.epsilon", self.epsilon, minimum=0.0)
        require_int("algo.cover", self.cover, minimum=1)
        if not available():
            raise Unavailable("vowpalwabbit is not installed (pip install -e \".[vw]\"): skipping this algorithm.")

    def arguments(self, seed: int) -> str:
        explore = f"--epsilon {float(self.epsilon)}" if self.explore == "epsilon" else \
            f"--cover {int(self.cover)} --epsilon {float(self.epsilon)}"
        return f"--cb_explore_adf {explore} -q sa --quiet --random_seed {seed} {self.extra}".strip()

    @staticmethod
    def example(x: np.ndarray, K: int, label: tuple | None = None) -> list:
        shared = "shared |s " + " ".join(f"{i}:{v:.6g}" for i, v in enumerate(x))
        lines = [shared]
        for a in range(K):
            prefix = f"0:{label[1]:.6g}:{label[2]:.6g} " if label is not None and label[0] == a else ""
            lines.append(f"{prefix}|a a{a}")
        return lines

    def play(self, rewards, info, rng, features=None):
        import vowpalwabbit

        X = info.get("contexts")
        if X is None:
            raise ConfigError("vw needs a contextual environment (env=drifting_contextual).")
        T, K = rewards.shape
        seed = int(rng.integers(0, 2 ** 31 - 1))
        u = rng.random(T)
        ws = vowpalwabbit.Workspace(self.arguments(seed))
        actions = np.empty(T, dtype=np.int64)
        try:
            for t in range(T):
                ex = self.example(X[t], K)
                pmf = np.asarray(ws.predict(ex), dtype=np.float64)
                pmf /= pmf.sum()
                a = int(min(np.searchsorted(np.cumsum(pmf), u[t], side="right"), K - 1))
                actions[t] = a
                ws.learn(self.example(X[t], K, (a, 1.0 - rewards[t, a], pmf[a])))
        finally:
            ws.finish()
        self.derived_ = {"arguments": self.arguments(seed)}
        return actions
