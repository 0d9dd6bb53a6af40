"""Assumption 1 of Wei & Luo (COLT 2021) asks of every base's rate rho: rho non-increasing,
rho(t) >= 1/sqrt(t), and C(t) = t rho(t) non-decreasing. Checked here, written from the text
and independently of the library's check, for every MASTER config over t = 1..T at several
horizons and problem sizes; and a rate that breaks it is refused before any work."""

import numpy as np
import pytest
from conftest import compose
from omegaconf import OmegaConf

from bandits.errors import ConfigError
from bandits.experiments.compose import registry
from bandits.experiments.compose.building import build

MASTERS = [name for name in registry.names("algo") if name.startswith("master")]
PROBLEMS = {  # info of each kind, for K or d actions and N policies
    "karmed": lambda T: {"d": 5, "reward_range": (0.0, 1.0)},
    "linear": lambda T: {"d": 5, "R": 0.1, "L": 1.0, "S": 1.0, "reward_bound": 1.0, "linear": True},
    "contextual": lambda T: {"K": 5, "policy_actions": np.zeros((1, 500), dtype=np.int16), "reward_range": (0, 1)},
}


def algo(name, **overrides):
    cfg = OmegaConf.to_container(compose([f"algo={name}"]).algo, resolve=True)
    cfg.update({k: v for k, v in overrides.items() if k in cfg})
    return build(cfg, "algo")[1]


def rho_of(a, T):
    """rho(t), t = 1..T, of the algorithm's resolved rate."""
    kind = "contextual" if "contextual" in a.problem_kinds else ("linear" if "linear" in a.problem_kinds else "karmed")
    info = PROBLEMS[kind](T)
    p = a.resolve(T, info) if kind != "karmed" else a.resolve(T, info, 5)
    rate = a.rate(p, 5) if kind == "karmed" else a.rate(p)
    t = np.arange(1, T + 1, dtype=np.float64)
    return t, np.minimum(rate.cap, rate.coef * t ** -rate.power + rate.lin / t)


def test_every_master_config_is_found():
    assert {"master_ucb", "master_ucb_nolog", "master_oful", "master_oful_nolog", "master_ctx",
            "master_iltcb"} <= set(MASTERS)


@pytest.mark.parametrize("cap", [False, True])
@pytest.mark.parametrize("T", [100, 10 ** 4, 10 ** 6])
@pytest.mark.parametrize("name", MASTERS)
def test_every_base_rate_meets_assumption_1(name, T, cap):
    t, rho = rho_of(algo(name, rho_cap=cap), T)
    assert np.all(np.diff(rho) <= 1e-12 * rho[:-1]), "rho increases"
    assert np.all(rho >= (1 - 1e-12) / np.sqrt(t)), "rho(t) < 1/sqrt(t)"
    C = t * rho
    assert np.all(np.diff(C) >= -1e-12 * C[1:]), "t rho(t) decreases"


@pytest.mark.parametrize("name", MASTERS)
def test_a_rate_below_one_over_sqrt_t_is_refused(name):
    a = algo(name, rho_constant=1e-3, rho_linear=0.0)
    with pytest.raises(ConfigError, match="Assumption 1"):
        rho_of(a, 1000)
