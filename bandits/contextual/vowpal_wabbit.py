"""Vowpal Wabbit's contextual bandit (optional extra: ``pip install "drift-bandits[vw]"``).

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

from bandits.errors import ConfigError, Unavailable, install_hint, require_choice, require_float, require_int


def available() -> bool:
    try:
        import vowpalwabbit  # noqa: F401
    except ImportError:
        return False
    return True


def shared_format(d: int) -> str:
    """The shared line of a d-dimensional context as a format string ("shared |s 0:{:.6g} ..."):
    one ``str.format`` per round instead of d f-strings (the same text)."""
    return "shared |s " + " ".join(f"{i}:{{:.6g}}" for i in range(d))


def draw_from_scores(scores, u: float) -> tuple:
    """(a, p(a)): the action drawn from VW's scores normalised to a distribution, by the
    inverse CDF at the uniform u, and its probability. The same numbers, bit for bit, as
    numpy's pmf = scores / scores.sum(); a = min(searchsorted(cumsum(pmf), u, "right"), K - 1)
    (tests/test_contextual.py checks both), without numpy's cost per call on K numbers: numpy
    adds fewer than 8 numbers in order, more with its pairwise sum, which is kept."""
    K = len(scores)
    if K < 8:
        total = 0.0
        for v in scores:
            total += v
    else:
        total = float(np.asarray(scores, dtype=np.float64).sum())
    acc = 0.0
    for a in range(K):
        acc += scores[a] / total
        if u < acc:
            return a, scores[a] / total
    return K - 1, scores[K - 1] / total


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
            raise Unavailable(f"vowpalwabbit is not installed ({install_hint('vw')}): skipping this algorithm.")

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
        return shared_format(len(x)).format(*np.asarray(x, dtype=np.float64).tolist())

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
        shared = shared_format(X.shape[1])
        actions = np.empty(T, dtype=np.int64)
        try:
            for t, x in enumerate(np.asarray(X[:T], dtype=np.float64).tolist()):  # contexts may run past T
                lines = [shared.format(*x)] + arms
                ex = vw._parse(ws, "\n".join(lines))
                vw.predict_multi(ws, ex)
                a, p = draw_from_scores(ex[0].get_action_scores(), u[t])
                vw._finish_example_multi_ex(ws, ex)
                actions[t] = a
                lines[a + 1] = self.labelled(a, 1.0 - rewards[t, a], p)
                ex = vw._parse(ws, "\n".join(lines))
                vw.learn_multi(ws, ex)
                vw._finish_example_multi_ex(ws, ex)
        finally:
            ws.finish()
        self.derived_ = {"arguments": self.arguments(seed)}
        return actions
