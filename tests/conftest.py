import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CONF = ROOT / "conf"


def compose(overrides=()):
    """Compose the project config exactly as run.py does."""
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return hydra_compose(config_name="config", overrides=list(overrides))


@pytest.fixture
def sinusoid_trial():
    from bandits.environments import Sinusoid

    env = Sinusoid()
    inst = env.instance(2000)
    rewards = env.rewards(inst, np.random.default_rng(0))
    return inst, rewards


def argmax_ties(scores, tol=1e-12):
    """The spec's tie rule, written independently: lowest index within tol (relative) of the max."""
    scores = np.asarray(scores, dtype=float)
    top = scores.max()
    return int(np.flatnonzero(scores >= top - tol * max(1.0, abs(top)))[0])
