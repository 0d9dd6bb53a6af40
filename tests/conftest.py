import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CONF = ROOT / "conf"


def compose(overrides=()):
    """Compose the project config exactly as run.py does."""
    from bandits.experiments.compose.registry import compose as registry_compose

    return registry_compose(overrides)


@pytest.fixture
def sinusoid_trial():
    from bandits.environments import Sinusoid

    env = Sinusoid()
    inst = env.instance(2000)
    rewards = env.rewards(inst, np.random.default_rng(0))
    return inst, rewards


def piecewise_linear_problem(T, d, action_set, seed, n_breakpoints, n_actions=7):
    """(instance, rewards) of a small piecewise_linear problem: instance from ``seed``,
    noise from ``seed + 1`` (the linear baselines' round-exact tests)."""
    from bandits.environments import PiecewiseLinear

    env = PiecewiseLinear(d=d, n_breakpoints=n_breakpoints, action_set=action_set, n_actions=n_actions)
    inst = env.instance(T, np.random.default_rng(seed))
    return inst, env.rewards(inst, np.random.default_rng(seed + 1))


def argmax_ties(scores, tol=1e-12):
    """The spec's tie rule, written independently: lowest index within tol (relative) of the max."""
    scores = np.asarray(scores, dtype=float)
    top = scores.max()
    return int(np.flatnonzero(scores >= top - tol * max(1.0, abs(top)))[0])
