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
        """One round's ADF example as text lines (the format above)."""
        lines = [VowpalWabbit.shared_line(x)] + [f"|a a{a}" for a in range(K)]
        if label is not None:
            lines[label[0] + 1] = VowpalWabbit.labelled(label[0], label[1], label[2])
        return lines

    @staticmethod
    def shared_line(x: np.ndarray) -> str:
        return "shared |s " + " ".join(f"{i}:{v:.6g}" for i, v in enumerate(x))

    @staticmethod
    def labelled(a: int, cost: float, p: float) -> str:
        return f"0:{cost:.6g}:{p:.6g} |a a{a}"

    def play(self, rewards, info, rng, features=None):
        import pylibvw
        import vowpalwabbit

        X = info.get("contexts")
        if X is None:
            raise ConfigError("vw needs a contextual environment (env=drifting_contextual).")
        T, K = rewards.shape
        seed = int(rng.integers(0, 2 ** 31 - 1))
        u = rng.random(T)
        ws = vowpalwabbit.Workspace(self.arguments(seed))
        # pyvw's own predict/learn wrap every parsed line in a Python Example and look up the
        # label and prediction types each call: two thirds of a round's time at d = 10. These
        # are the same native calls on the same text without the wrappers
        # (tests/test_contextual.py checks the actions against pyvw's predict/learn).
        vw = pylibvw.vw
        arms = [f"|a a{a}" for a in range(K)]
        actions = np.empty(T, dtype=np.int64)
        try:
            for t in range(T):
                lines = [self.shared_line(X[t])] + arms
                ex = vw._parse(ws, "\n".join(lines))
                vw.predict_multi(ws, ex)
                pmf = np.asarray(ex[0].get_action_scores(), dtype=np.float64)
                vw._finish_example_multi_ex(ws, ex)
                pmf /= pmf.sum()
                a = int(min(np.searchsorted(np.cumsum(pmf), u[t], side="right"), K - 1))
                actions[t] = a
                lines[a + 1] = self.labelled(a, 1.0 - rewards[t, a], pmf[a])
                ex = vw._parse(ws, "\n".join(lines))
                vw.learn_multi(ws, ex)
                vw._finish_example_multi_ex(ws, ex)
        finally:
            ws.finish()
        self.derived_ = {"arguments": self.arguments(seed)}
        return actions
