"""rliable's aggregates across scenarios (bandits.experiments.figures.aggregates): the
normalisation, the probability of improvement, profiles and rank distributions on synthetic
tables with a known order, and the four figures drawn from a real run."""

import numpy as np
import pandas as pd
import pytest

from bandits.experiments.api import simulate
from bandits.experiments.figures import aggregates as ag
from bandits.experiments.figures.drawing import Drawing


def synthetic(scales: dict, scenarios: int = 3, instances: int = 4, trials: int = 3, seed: int = 0) -> dict:
    """scenario -> rows: each algorithm's regret is its scale x an instance's hardness x noise,
    the hardness shared by the algorithms of an instance (as a drawn problem is)."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in range(scenarios):
        hardness = np.exp(rng.normal(size=instances))
        rows = [{"algo": a, "T": 100, "instance": i, "trial": t * instances + i,
                 "final_regret": scale * hardness[i] * np.exp(0.05 * rng.normal())}
                for a, scale in scales.items() for i in range(instances) for t in range(trials)]
        out[f"s{s}"] = pd.DataFrame(rows)
    return out


SCALES = {"oracle_restart_ucb": 1.0, "best": 2.0, "middle": 3.0, "worst": 6.0}


@pytest.fixture(scope="module")
def result():
    return ag.aggregates(synthetic(SCALES), B=200)


def test_normalised_by_the_reference_on_its_instance(result):
    table = result["aggregate"].set_index(["statistic", "algo"])
    for algo in ("best", "middle", "worst"):  # the hardness cancels: about the scale
        assert table.loc[("IQM", algo), "value"] == pytest.approx(SCALES[algo], rel=0.05)
        assert table.loc[("mean", algo), "ci_low"] <= table.loc[("mean", algo), "value"] <= \
            table.loc[("mean", algo), "ci_high"]
    assert "oracle_restart_ucb" not in result["learners"]


def test_improvement_probabilities_are_complementary_and_ordered(result):
    p = result["improvement"].set_index(["algo", "other"])["p_better"]
    assert p[("best", "worst")] > 0.9 and p[("worst", "best")] < 0.1
    for (a, b), value in p.items():
        assert value + p[(b, a)] == pytest.approx(1.0)


def test_ties_count_one_half():
    x = np.array([[1.0, 2.0], [1.0, 2.0]])
    assert ag.improvement_probability(x)[0, 1] == pytest.approx(0.5)


def test_profiles_and_ranks(result):
    prof = result["profiles"]
    best = prof[prof["algo"] == "best"]
    assert best["fraction"].iloc[0] == 1.0  # best on every scenario-instance
    worst = prof[prof["algo"] == "worst"].set_index("tau")["fraction"]
    assert worst.is_monotonic_increasing and worst.iloc[0] == 0.0
    ranks = result["ranks"]
    assert np.allclose(ranks.groupby("algo")["frequency"].sum(), 1.0)
    assert ranks.set_index(["algo", "rank"]).loc[("best", 1), "frequency"] == 1.0


def test_the_four_figures_from_a_run(tmp_path):
    scenarios = {
        name: simulate(env={"name": "piecewise_bernoulli", "K": 3, "n_changes": 1, "shift": shift},
                       algos=["ucb1", "glr_klucb", "oracle_restart_ucb"], T=300, trials=2, instances=2, seed=3)
        for name, shift in (("big", 1.0), ("small", 0.3))}
    drawing = Drawing(tmp_path)
    written = ag.draw("bench", scenarios, drawing)
    assert written == ["bench_aggregate", "bench_improvement", "bench_profiles", "bench_ranks"]
    for name in written:
        assert (tmp_path / f"{name}.png").exists() and (tmp_path / f"{name}.csv").exists()
    assert set(pd.read_csv(tmp_path / "bench_aggregate.csv")["statistic"]) == {"mean", "IQM"}
