"""The long run's rules for drawn instances (bandits.experiments.studies.ctx_long_rules) on
synthetic tables of a known rate: the slope verdict, its horizons rule, the local slopes, the
log-factor reading and the paired ratio curves."""

import numpy as np
import pandas as pd
import pytest

from bandits.experiments.studies import ctx_long_rules as rules

TS = [10_000, 31_623, 100_000, 177_828, 316_228, 562_341, 1_000_000]


def table(rate: float, Ts=TS, instances: int = 5, trials: int = 2, log_power: float = 0.0, seed: int = 0):
    rng = np.random.default_rng(seed)
    hardness = np.exp(0.1 * rng.normal(size=instances))  # an instance is as hard at every T
    rows = []
    for label, scale in (("ada", 1.0), ("other", 2.0)):
        for T in Ts:
            for i in range(instances):
                for k in range(trials):
                    value = scale * hardness[i] * T ** rate * np.log(T) ** log_power * np.exp(0.02 * rng.normal())
                    rows.append({"label": label, "T": T, "instance": i, "trial": k * instances + i,
                                 "final_regret": value})
    return pd.DataFrame(rows)


def claims(rows, exponent=0.5):
    regrets = rules.nested_regrets(rows)
    draws = rules.Draws(regrets, np.random.default_rng(rules.BOOTSTRAP_SEED))
    return rules.slope_claims(regrets, draws, "ada", "Ada", "t", exponent, "sqrt T"), regrets, draws


def test_a_known_rate_agrees_and_its_readings_are_reported():
    out, _, _ = claims(table(0.5))
    slope, local, second = out
    assert slope["verdict"] == "agrees" and "5 horizons" in slope["claim"] and "Bonferroni over 15" in slope["claim"]
    assert float(slope["measured"].split()[0]) == pytest.approx(0.5, abs=0.01)
    assert local["measured"].count("[") == 4 and local["verdict"] == rules.REPORTED
    a, b = (float(part.split("=")[1]) for part in second["measured"].split(","))
    assert a == pytest.approx(0.5, abs=0.05) and abs(b) < 0.5  # ill-conditioned over two decades: loose


def test_a_faster_rate_exceeds_and_a_log_factor_shows_in_the_second_reading():
    out, _, _ = claims(table(0.7))
    assert out[0]["verdict"] == "exceeds bound"
    out, _, _ = claims(table(0.5, log_power=2.0))
    assert float(out[0]["measured"].split()[0]) > 0.5 + 0.1  # the one-decade slope reads the log factor as rate
    a, b = (float(part.split("=")[1]) for part in out[2]["measured"].split(","))
    assert a == pytest.approx(0.5, abs=0.05) and b == pytest.approx(2.0, abs=0.3)


def test_fewer_than_five_horizons_in_the_last_decade_is_not_measured():
    out, _, _ = claims(table(0.5, Ts=[10_000, 100_000, 316_228, 1_000_000]))
    assert out[0]["verdict"] == "not measured" and len(out) == 1


def test_ratio_curve_is_paired_and_covers_the_true_ratio():
    _, regrets, draws = claims(table(0.5))
    curve = rules.ratio_curve(regrets, draws, "ada", "other")
    assert (curve["ci_low"] <= 0.5).all() and (curve["ci_high"] >= 0.5).all()
    assert (curve["ci_high"] - curve["ci_low"] < 0.05).all()  # paired: the instance's hardness cancels
    assert set(curve["instances"]) == {5}


def test_horizons_share_the_instance_stage_unless_told_not_to():
    """Point 5: instance i is the same problem at every T (draw_order by_part), so the horizons
    share one instance stage; share=False (the rule before that) gives each its own."""
    regrets = rules.nested_regrets(table(0.5))
    assert rules.SHARE_INSTANCES
    shared = rules.Draws(regrets, np.random.default_rng(0))
    assert (shared.by_T[TS[0]].instances == shared.by_T[TS[1]].instances).all()
    assert not (shared.by_T[TS[0]].trials == shared.by_T[TS[1]].trials).all()  # trial streams differ with T
    apart = rules.Draws(regrets, np.random.default_rng(0), share=False)
    assert not (apart.by_T[TS[0]].instances == apart.by_T[TS[1]].instances).all()
